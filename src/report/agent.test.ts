import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { Trajectory } from '../core/trajectory.js';
import type { ValidatorMeta } from '../core/validator.js';
import { computeStats } from '../run/stats.js';
import type { RunRecord, SampleRecord } from '../store/types.js';
import { buildJsonReport } from './json.js';
import { renderMarkdownReport } from './markdown.js';
import type { ReportMeta } from './meta.js';
import { formatTerminalSummary } from './terminal.js';
import { sampleText } from './trajectory.js';

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);

/** 3 inputs × 6 samples of an agent: input 1 refunds (and fails the rule) on samples 0–2; its refund fails on sample 1. */
const N = 3;
const M = 6;
const failing = (i: number, j: number) => i === 1 && j < 3;
const trajectory = (i: number, j: number): Trajectory => ({
  steps: [
    { toolCalls: [{ name: 'lookup_order', arguments: { orderId: `A${i}` }, result: { status: 'shipped' } }] },
    ...(failing(i, j)
      ? [{ toolCalls: [{ name: 'refund', arguments: { orderId: `A${i}` }, ...(j === 1 ? { error: 'refunds are closed' } : { result: 'ok' }) }] }]
      : []),
    { text: 'Shipped.', toolCalls: [] },
  ],
  ended: i === 2 && j === 5 ? 'max-steps' : 'final',
});
const samples: SampleRecord[] = Array.from({ length: N * M }, (_, x) => {
  const [i, j] = [Math.floor(x / M), x % M];
  return { i, j, output: 'Shipped.', trajectory: trajectory(i, j), outcomes: [failing(i, j) ? Outcome.FAIL : Outcome.PASS], latencyMs: 5, attempts: 1 };
});
const t = new ReliabilityTensor(N, M, 1);
for (const s of samples) t.set(s.i, s.j, 0, s.outcomes[0]);
const rule: ValidatorMeta[] = [
  { name: 'never refunds unasked', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator', passK: { k: 3, minSuccess: 0.9 } },
];
const inputs = ['Where is A0?', 'Where is A1?', 'Where is A2?'];
const meta: ReportMeta = {
  runId: '20260101-000000-agnt',
  name: 'agent',
  status: 'complete',
  systemId: 'function:agent',
  createdAt: '2026-01-01T00:00:00.000Z',
  inputs,
  stats: computeStats(samples),
};

describe("an agent's run in every report", () => {
  const s = summarize(t, rule);

  it('the JSON report carries pass^k per rule and the steps summed in stats.agent, and validates against the schema', () => {
    const r = buildJsonReport(s, meta);
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    const pk = r.validators[0].passK!;
    // Three inputs show little about a population: the gate is open (the interval spans [0, 1]).
    expect(pk).toMatchObject({ k: 3, minSuccess: 0.9, inputs: 3, leftOut: 0, verdict: 'inconclusive', ci: { low: 0, high: 1 } });
    // Input 1: 3 of 6 tries pass, C(3,3)/C(6,3) = 1/20; the others 1.
    expect(pk.perInput[1].passK).toBeCloseTo(1 / 20, 12);
    expect(pk.passK).toBeCloseTo((1 + 1 / 20 + 1) / 3, 12);
    expect(r.validators[0].verdict).toBe('inconclusive');
    expect(r.validators[0].reason).toBe('lower bound 58.6% ≥ minSuccess 50.0%; pass^3 bounds [0.0%, 100.0%] straddle minSuccess 90.0%');
    expect(r.stats!.agent).toEqual({
      trajectories: 18,
      steps: { mean: 39 / 18, max: 3 },
      toolCalls: 21,
      tools: [
        { name: 'lookup_order', calls: 18, errors: 0 },
        { name: 'refund', calls: 3, errors: 1 },
      ],
      toolErrors: 1,
      cutByLimit: 1,
    });
  });

  it('the terminal and Markdown say pass^k with its interval, the gate, the lowest input, and what the agent did', () => {
    const term = formatTerminalSummary(s, meta);
    expect(term).toMatch(
      /\nnever refunds unasked pass\^3 68\.3% \[0\.0%, 100\.0%\] · pass@3 98\.3% \[\S+, 100\.0%\] over 3 inputs \(95% CI, inputs as the unit\) · pass\^3 ≥ 90\.0%: INCONCLUSIVE\n/,
    );
    expect(term).toContain('  lowest: #2 "Where is A1?" pass^3 5.0% [');
    expect(term).toContain(
      'agent: 18 runs with steps · steps mean 2.2, max 3 · 21 tool calls (lookup_order 18, refund 3 (1 error)) · 1 tool error · 1 cut by the step limit',
    );
    const md = renderMarkdownReport(s, meta);
    expect(md).toContain('### never refunds unasked: pass^3');
    expect(md).toMatch(/pass\^3 68\.3% .* · \*\*pass\^3 ≥ 90\.0%: INCONCLUSIVE\*\*/);
    expect(md).toContain('<sub>agent: 18 runs with steps');
  });

  it('assay show --sample prints the steps as a trace: each call, its arguments, its result or error', () => {
    const run = { id: 'r1', inputs, validators: rule } as unknown as RunRecord;
    expect(sampleText(run, samples[1 * M + 1])).toBe(
      [
        'input 2, sample 2 of run r1',
        'input: Where is A1?',
        'step 1:',
        '  call lookup_order({"orderId":"A1"}) → {"status":"shipped"}',
        'step 2:',
        '  call refund({"orderId":"A1"}) → error: refunds are closed',
        'step 3:',
        '  text: Shipped.',
        'final answer: Shipped.',
        '  never refunds unasked: FAIL',
        '',
      ].join('\n'),
    );
  });
});
