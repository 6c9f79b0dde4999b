import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// An agent end to end through the CLI: a TypeScript config whose system is a function returning `{ output, steps }`;
// `assay run` gates on pass^k and prints it, `assay show --sample` prints one output's steps.

const tmp = useConfigDir('assay-cli-agent-');
const cli = (...args: string[]) => captureCli(args);
const validateReport = new Ajv({ strict: false, validateFormats: false }).compile(
  JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object,
);

// Thirty orders; the agent looks each up, and for order 7 it also refunds on 4 of its 8 tries.
const CONFIG = `export default {
  name: 'agent',
  system: async (input: string, { sample }: { sample: number }) => {
    const refund = input === 'order 7' && sample % 2 === 0;
    return {
      output: refund ? 'Refunded.' : 'It shipped.',
      steps: [
        { toolCalls: [{ name: 'lookup_order', arguments: { order: input }, result: { status: 'shipped' } }] },
        ...(refund ? [{ toolCalls: [{ name: 'refund', arguments: { order: input }, error: 'refunds need approval' }] }] : []),
      ],
    };
  },
  inputs: Array.from({ length: 30 }, (_, i) => 'order ' + i),
  samples: 8,
  validators: [{ name: 'no-refund', check: { type: 'tool-not-called', name: 'refund' }, minSuccess: 0.9, passK: { k: 8, minSuccess: 0.99 } }],
};
`;

describe('an agent config through the CLI', () => {
  it('assay run prints pass^k and what the agent did, gates on pass^k (exit 1), and assay show --sample prints the steps', async () => {
    const file = tmp.config('agent.config.ts', CONFIG);
    const store = join(tmp.dir(), 'agent.db');
    const json = join(tmp.dir(), 'agent.json');
    const run = await cli('run', file, '--store', store, '--json', json);
    // 236 of 240 tries pass (the rate's lower bound clears 0.9); pass^8 over 30 inputs, 29 always right, cannot be
    // shown ≥ 99%: the gate is inconclusive, which fails CI.
    expect(run.code, run.err).toBe(1);
    expect(run.out).toMatch(
      /\nno-refund pass\^8 96\.7% \[\S+, \S+\] · pass@8 100\.0% .* over 30 inputs \(95% CI, inputs as the unit\) · pass\^8 ≥ 99\.0%: (FAIL|INCONCLUSIVE)\n/,
    );
    expect(run.out).toContain('  lowest: #8 "order 7" pass^8 0.0% [');
    expect(run.out).toContain('agent: 240 runs with steps · steps mean 1.0, max 2 · 244 tool calls (lookup_order 240, refund 4 (4 errors)) · 4 tool errors');
    const r = JSON.parse(readFileSync(json, 'utf8')) as JsonReport;
    expect(validateReport(r), JSON.stringify(validateReport.errors)).toBe(true);
    expect(r.validators[0].passK).toMatchObject({ k: 8, minSuccess: 0.99, inputs: 30 });
    expect(r.stats!.agent).toMatchObject({ trajectories: 240, toolErrors: 4 });

    const shown = await cli('show', 'latest', '--store', store, '--sample', '8,1');
    expect(shown.code).toBe(1);
    expect(shown.out).toContain(
      [
        'input: order 7',
        'step 1:',
        '  call lookup_order({"order":"order 7"}) → {"status":"shipped"}',
        'step 2:',
        '  call refund({"order":"order 7"}) → error: refunds need approval',
        'final answer: Refunded.',
        '  no-refund: FAIL',
      ].join('\n'),
    );
    const bad = await cli('show', 'latest', '--store', store, '--sample', '0,1');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--sample: expected <input>,<sample> counted from 1, e\.g\. 3,2, found "0,1"/);
    const outside = await cli('show', 'latest', '--store', store, '--sample', '31,1');
    expect(outside.code).toBe(2);
    expect(outside.err).toMatch(/--sample: run \S+ has no stored output at input 31, sample 1 \(it has 30 inputs × 8 samples\)/);
  });
});
