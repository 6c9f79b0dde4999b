import { readFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import type { SummaryOptions } from '../core/summary-types.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import { computeStats } from '../run/stats.js';
import { buildJsonReport, renderJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';
import { exitCodeFor, type ReportMeta } from './meta.js';
import { formatTerminalSummary, sparkline } from './terminal.js';

const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
const schema = JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validate = ajv.compile(schema);

const { PASS: P, FAIL: F, ERROR: E, PENDING: _ } = Outcome;

const metas: ValidatorMeta[] = [
  { name: 'short', message: 'Output too long', minSuccess: 0.5, weight: 1, kind: 'validator' },
  // 1 error in 6 cells: its own maxErrorShare of 20% lets its verdict rest on the other 5.
  { name: 'polite <&> "x"', message: 'Be | polite', minSuccess: 0.9, weight: 3, kind: 'verifier', maxErrorShare: 0.2 },
];

/** N=3 inputs × M=2 samples × K=2: hand-chosen cells. */
function tensor(cells: OutcomeCode[]): ReliabilityTensor {
  return new ReliabilityTensor(3, 2, 2, Uint8Array.from(cells));
}
// (i,j): [k0, k1]
const cells: OutcomeCode[] = [P, P, /* (0,0) */ P, F /* (0,1) */, P, E, /* (1,0) */ F, F /* (1,1) */, P, P, /* (2,0) */ P, P /* (2,1) */];

const meta: ReportMeta = {
  runId: '20260101-000000-abcd',
  name: 'demo | run',
  status: 'complete',
  systemId: 'simulated',
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:02.500Z',
  inputs: ['Say hi', { topic: 'weather' }, 'Pipe | here'],
  stats: computeStats([{ i: 0, j: 0, outcomes: [P, P], latencyMs: 10, attempts: 2, usage: { promptTokens: 3, completionTokens: 4 }, output: 'x' }]),
};

const opts = (o: Partial<SummaryOptions> = {}) => o;
/** The paper's point verdicts: the fixture's pass and fail (confident, the default, leaves `polite` inconclusive). */
const point = { verdict: 'point' } as const;

describe('JSON report', () => {
  it('carries the summary figures and validates against schemas/report.schema.json', () => {
    const s = summarize(tensor(cells), metas, opts(point));
    const r = buildJsonReport(s, meta);
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    // A point verdict says so, on every validator.
    expect(r.options.verdict).toBe('point');
    expect(r.validators.map((v) => v.verdictMode)).toEqual(['point', 'point']);
    expect(buildJsonReport(summarize(tensor(cells), metas), meta).validators.map((v) => [v.verdict, v.verdictMode])).toEqual([
      ['inconclusive', 'confident'],
      ['inconclusive', 'confident'],
    ]);
    expect(r.schemaVersion).toBe(2);
    expect(r.runId).toBe(meta.runId);
    // validator 0: 5 pass, 1 fail → 5/6; validator 1: 3 pass, 2 fail, 1 error → 3/5
    expect(r.validators[0]).toMatchObject({ name: 'short', rate: 5 / 6, counts: { pass: 5, fail: 1, error: 0, pending: 0 }, minSuccess: 0.5, verdict: 'pass' });
    expect(r.validators[1]).toMatchObject({
      rate: 3 / 5,
      counts: { pass: 3, fail: 2, error: 1 },
      errorShare: 1 / 6,
      maxErrorShare: 0.2,
      verdict: 'fail',
      kind: 'verifier',
      reason: 'rate 60.0% < minSuccess 90.0%',
    });
    expect(r.validators[1].errorBounds!.low).toBeLessThan(r.validators[1].errorBounds!.high);
    expect(r.options).toMatchObject({ interval: 'clopper-pearson', maxErrorShare: 0.05, stopping: 'fixed' });
    expect(r.overall.errorShare).toBeCloseTo(1 / 12, 15);
    expect(r.allOutputs).toMatchObject({ outputs: 6, errorShare: 1 / 12 });
    expect(r.validators[0].ci!.low).toBeLessThan(5 / 6);
    expect(r.validators[0].ci!.high).toBeGreaterThan(5 / 6);
    // input 1: cells P,E,F,F → 1/3; iteration 0: P,P,P,E,P,P → 5/5
    expect(r.inputs[1]).toMatchObject({ i: 1, input: { topic: 'weather' }, rate: 1 / 3 });
    expect(r.iterations[0].rate).toBe(1);
    expect(r.iterations[1].rate).toBe(3 / 6);
    expect(r.overall.mean).toBeCloseTo((5 / 6 + 3 / 5) / 2, 12);
    expect(r.overall.weighted).toBeCloseTo((5 / 6 + 3 * (3 / 5)) / 4, 12);
    expect(r.overall.min).toBeCloseTo(3 / 5, 12);
    expect(r.passed).toBe(false);
    expect(r.stats?.retries).toBe(1);
  });

  it('an interrupted run with pending cells and an all-error validator still validates (null rates)', () => {
    const c: OutcomeCode[] = [P, E, P, E, _, _, _, _, _, _, _, _];
    const s = summarize(tensor(c), metas, opts({ verdict: 'confident', interval: 'clopper-pearson' }));
    const r = JSON.parse(renderJsonReport(s, { ...meta, status: 'interrupted', finishedAt: undefined }));
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(r.validators[1].rate).toBeNull();
    expect(r.validators[1].ci).toBeNull();
    expect(r.validators[0].counts.pending).toBe(4);
    expect(r.passed).toBe(false);
  });

  it('the schema is not vacuous: it rejects broken reports', () => {
    const good = buildJsonReport(summarize(tensor(cells), metas), meta);
    const broken: unknown[] = [
      { ...good, schemaVersion: 1 },
      { ...good, validators: [{ ...good.validators[0], errorShare: undefined }] },
      { ...good, validators: [{ ...good.validators[0], verdict: 'maybe' }] },
      { ...good, allOutputs: { ...good.allOutputs, effectiveN: undefined } },
      { ...good, runId: undefined },
      { ...good, validators: [{ ...good.validators[0], rate: 1.5 }] },
      { ...good, validators: [{ ...good.validators[0], ci: { low: 0.1 } }] },
      { ...good, inputs: [{ ...good.inputs[0], counts: { pass: 1, fail: 0 } }] },
      { ...good, overall: { ...good.overall, weighted: undefined } },
      { ...good, createdAt: 'yesterday' },
    ];
    for (const b of broken) expect(validate(JSON.parse(JSON.stringify(b)))).toBe(false);
  });
});

describe('JUnit report', () => {
  it('one testcase per validator; fail → failure; all-error → error; escapes XML', () => {
    const s = summarize(tensor(cells), metas, point);
    const xml = renderJunitReport(s, meta);
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('tests="2" failures="1" errors="0" skipped="0" time="2.500"');
    expect(xml).toContain('name="polite &lt;&amp;&gt; &quot;x&quot;"');
    expect(xml).toMatch(/<failure type="below-min-success" message="Be \| polite: fail \(point\) \(rate 60\.0%/);
    expect(xml).toContain('<system-out>pass (point): rate 83.3%');
    expect(xml).toContain('<property name="verdictMode" value="point"/>');
    expect(xml).not.toMatch(/<testcase[^>]*name="short"[^>]*>\s*<failure/);

    const allError: OutcomeCode[] = [P, E, P, E, P, E, P, E, P, E, P, E];
    const xml2 = renderJunitReport(summarize(tensor(allError), metas, point), meta);
    expect(xml2).toContain('failures="0" errors="1"');
    expect(xml2).toContain('<error type="infrastructure" message="no decided cell: 6 error(s)"');
  });

  it('inconclusive is a failure, or skipped when --allow-inconclusive', () => {
    // 6/6 passes cannot show 0.9 with 95% confidence: inconclusive in confident mode.
    const s = summarize(tensor(new Array(12).fill(P)), metas, { verdict: 'confident' });
    expect(s.validators[1].verdict).toBe('inconclusive');
    expect(renderJunitReport(s, meta)).toMatch(/<failure type="inconclusive"/);
    const lenient = renderJunitReport(s, { ...meta, allowInconclusive: true });
    expect(lenient).toMatch(/<skipped message="inconclusive, accepted/);
    expect(lenient).not.toMatch(/<failure/);
  });
});

describe('Markdown report', () => {
  it('has a verdict heading, a validator table and escaped cells', () => {
    const md = renderMarkdownReport(summarize(tensor(cells), metas, point), meta);
    expect(md.split('\n')[0]).toBe('## ❌ assay: demo \\| run: FAIL (point)');
    expect(md).toContain('| 50.0% | pass (point) |');
    expect(md).toContain('> FAIL (point): 1 failed of 2 validator(s)');
    // Confident verdicts carry no mark.
    const confident = renderMarkdownReport(summarize(tensor(cells), metas), meta);
    expect(confident.split('\n')[0]).toBe('## ⚠️ assay: demo \\| run: INCONCLUSIVE');
    expect(confident).not.toContain('(point)');
    expect(md).toContain('| ✅ | short | 83.3% |');
    expect(md).toContain('| ❌ | polite &lt;&> "x" _(verifier)_ | 60.0% |');
    expect(md).toContain('| 3 | Pipe \\| here | 100.0% |'); // inputs numbered from 1, as people count
    expect(md).toContain('<details><summary>Per input (IRP)');
    expect(md).toContain('**Overall** (mean)');
  });
});

describe('terminal summary', () => {
  it('shows every validator with rate, interval, minSuccess, verdict and counts incl. errors', () => {
    const text = formatTerminalSummary(summarize(tensor(cells), metas, point), meta);
    const row = text.split('\n').find((l) => l.startsWith('polite'))!;
    expect(row).toMatch(/polite <&> "x" \(verifier\)\s+60\.0%\s+\[\S+, \S+\]\s+16\.7%\s+90\.0%\s+FAIL \(point\)\s+3\s+2\s+1$/);
    expect(text.split('\n').find((l) => l.startsWith('short'))).toMatch(/\s+50\.0%\s+PASS \(point\)\s+5\s+1\s+0$/);
    // A verifier without grades says its rate is its judge's, never checked against people.
    expect(text).toContain(`  polite <&> "x": judge's rate · judge not checked against people; rate 60.0% < minSuccess 90.0%\n`);
    expect(text).toContain('overall  mean 71.7%  weighted 65.8%  min 60.0%  (mean) · errors 8.3% of checked cells');
    // The weakest input left a quarter of its cells out as errors: its rate says so.
    expect(text).toMatch(/IRP \(per input\)\s+\S{3}\s+min 33\.3% \(#2, errors 25\.0%\) {2}max 100\.0% \(#3\)/);
    // An object input is shown as its JSON, not wrapped in quotes as if it were a string.
    expect(text).toMatch(/weakest input\s+#2 .* {2}\{"topic":"weather"\}\n/);
    expect(text).toContain('FAIL (point): 1 failed of 2 validator(s): polite <&> "x"');
    // By default (confident) nothing is marked, and neither 5 of 6 nor 3 of 5 can be decided either way.
    const confident = formatTerminalSummary(summarize(tensor(cells), metas), meta);
    expect(confident).not.toContain('(point)');
    expect(confident).toContain('INCONCLUSIVE: 2 inconclusive of 2 validator(s): short, polite <&> "x"');
  });

  it('aligns columns by display width: wide characters and colours do not shift the table', () => {
    const wide: ValidatorMeta[] = [
      { name: '礼貌的回答', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator' },
      { name: 'short', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator' },
    ];
    for (const color of [false, true]) {
      const lines = formatTerminalSummary(summarize(tensor(cells), wide), meta, { color }).split('\n');
      const strip = (l: string) => l.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
      const header = strip(lines.find((l) => l.startsWith('validator'))!);
      const rows = lines.filter((l) => l.startsWith('礼貌') || l.startsWith('short ')).map(strip);
      // The "min" column ends at the same display column in the header and both rows (CJK = 2 columns).
      const minEnd = (l: string) => stringWidth(l.slice(0, l.indexOf('50.0%') + 5));
      expect(rows.map(minEnd)).toEqual([stringWidth(header.slice(0, header.indexOf('min') + 3)), stringWidth(header.slice(0, header.indexOf('min') + 3))]);
    }
  });

  it('names the most frequent error messages under the operational figures', () => {
    const stats = computeStats([
      { i: 0, j: 0, outcomes: [E, E], generationError: 'openai:m: HTTP 503: overloaded', latencyMs: 1, attempts: 5 },
      { i: 0, j: 1, outcomes: [E, E], generationError: 'openai:m: HTTP 503: overloaded', latencyMs: 1, attempts: 5 },
      { i: 1, j: 0, outcomes: [P, E], errors: [undefined, 'validator polite: timed out after 60000 ms'], latencyMs: 1, attempts: 1, output: 'x' },
    ]);
    const text = formatTerminalSummary(summarize(tensor(cells), metas), { ...meta, stats });
    expect(text).toContain('  error ×2: openai:m: HTTP 503: overloaded\n  error ×1: validator polite: timed out after 60000 ms\n');
    const md = renderMarkdownReport(summarize(tensor(cells), metas), { ...meta, stats });
    expect(md).toContain('- ×2: `openai:m: HTTP 503: overloaded`');
    expect(formatTerminalSummary(summarize(tensor(cells), metas), meta)).not.toContain('error ×');
  });

  it('a partial run says so and how to resume it', () => {
    const partial = summarize(tensor([P, P, P, P, _, _, _, _, _, _, _, _]), metas);
    const fromFile = { ...meta, configPath: 'assay.yaml' };
    expect(formatTerminalSummary(partial, { ...fromFile, status: 'interrupted' })).toContain(
      `INTERRUPTED: partial results, 4 of 6 samples not run; resume with: assay run --resume ${meta.runId}\n`,
    );
    // No config file on record (a Vitest block, the library API): the bare --resume would exit 2, so the hint
    // asks for the config, and names what finishes a Vitest block's run instead.
    expect(formatTerminalSummary(partial, { ...meta, status: 'interrupted' })).toContain(
      `INTERRUPTED: partial results, 4 of 6 samples not run; resume with: assay run <config> --resume ${meta.runId} ` +
        '(no config file is on record for this run; a Vitest block finishes by re-running its test file)',
    );
    expect(formatTerminalSummary(partial, { ...meta, status: 'running' })).toContain('INCOMPLETE (running, or its process was killed)');
    // A queued run resumes on the queue (else the hint would run it locally), with the store the workers use.
    expect(
      formatTerminalSummary(partial, { ...fromFile, status: 'interrupted', store: 'postgres://u:***@db/x', queue: 'redis://127.0.0.1:6379?prefix=team' }),
    ).toContain(`resume with: assay run --resume ${meta.runId} --store 'postgres://u:***@db/x' --queue 'redis://127.0.0.1:6379?prefix=team'`);
  });

  it('sparkline maps 0..1 to eight bars and marks undecided', () => {
    expect(sparkline([0, 0.5, 1, null])).toBe('▁▅█·');
    expect(sparkline([1, 1, 1], 2)).toBe('██…');
  });
});

describe('exit codes', () => {
  it('0 pass, 1 fail or inconclusive (unless allowed), 130 interrupted', () => {
    const pass = summarize(
      tensor(new Array(12).fill(P)),
      metas.map((m) => ({ ...m, minSuccess: 0.5 })),
    );
    expect(exitCodeFor(pass, 'complete')).toBe(0);
    expect(exitCodeFor(summarize(tensor(cells), metas), 'complete')).toBe(1);
    const inc = summarize(tensor(new Array(12).fill(P)), metas, { verdict: 'confident' });
    expect(exitCodeFor(inc, 'complete')).toBe(1);
    expect(exitCodeFor(inc, 'complete', true)).toBe(0);
    expect(exitCodeFor(pass, 'interrupted')).toBe(130);
  });
});
