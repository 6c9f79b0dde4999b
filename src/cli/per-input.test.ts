import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import { mockResponder } from '../mock/rules.js';
import type { JsonReport } from '../report/json.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Issue 19 item 2 end to end: a support bot whose answers to one input of five always apologise. Pooled, 120 of
// 150 outputs pass (lower bound ≥ 70%: the aggregate passes); per input, that one fails its floor of 80%.

const tmp = useConfigDir('assay-cli-per-input-');
const cli = (...args: string[]) => captureCli(args);
const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
const validateReport = new Ajv({ strict: false, validateFormats: false }).compile(
  JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object,
);

let mock: Awaited<ReturnType<typeof startMock>>;
beforeAll(async () => {
  // Every input is echoed back, except the refund request, which is always answered with apologies.
  mock = await startMock('openai', { chat: mockResponder({ rules: [{ match: 'refund', reply: 'Sorry, so sorry, we are very sorry.' }] }) });
});
afterAll(() => mock.close());

const config = (extra = '', rule = 'perInput: { minSuccess: 0.8 }') => `name: support
system: { openai: { baseURL: "${mock.baseURL}", model: bot } }
inputs: ["Where is my order?", "Can I change my address?", "Do you ship abroad?", "I want a refund for my broken kettle, please", "What are your opening hours?"]
samples: 30
${extra}validators:
  - { name: no-apology, predicate: "o => !/sorry/i.test(o)", minSuccess: 0.7, ${rule} }
`;

describe('perInput: one input below its floor while the aggregate passes', () => {
  it('exits 1 and names the input in every report; without the floor the same outputs pass', async () => {
    const file = tmp.config('support.yaml', config());
    const store = join(tmp.dir(), 'support.db');
    const out = (ext: string) => join(tmp.dir(), `support.${ext}`);
    const r = await cli(
      'run',
      file,
      '--store',
      store,
      '--no-progress',
      '--json',
      out('json'),
      '--junit',
      out('xml'),
      '--markdown',
      out('md'),
      '--html',
      out('html'),
    );
    expect(r.code, r.err).toBe(1);

    const json = report(out('json'));
    expect(validateReport(json), JSON.stringify(validateReport.errors)).toBe(true);
    const v = json.validators[0];
    expect(v).toMatchObject({ verdict: 'fail', counts: { pass: 120, fail: 30, error: 0 } });
    expect(v.reason).toMatch(/^lower bound 7\d\.\d% ≥ minSuccess 70\.0%; per input: 1 of 5 inputs below their floor 80\.0% \(Holm, family-wise 95%\)$/);
    const p = v.perInput!;
    expect(p).toMatchObject({ minSuccess: 0.8, method: 'holm', level: 0.95, verdict: 'fail', failing: [3] });
    expect(p.alpha).toBeCloseTo(0.025, 12);
    expect(p.inputs[3]).toMatchObject({ input: 3, n: 30, successes: 0, errors: 0, rate: 0, verdict: 'fail' });
    expect(p.inputs[3].pValue).toBeCloseTo(0.2 ** 30, 30);
    // 30 of 30 against 80%: P(X ≥ 30) = 0.8^30 = 0.00124, × 5 by Holm ≤ 0.025: each other input passes its floor.
    expect(p.inputs.filter((x) => x.input !== 3).map((x) => x.verdict)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(json.passed).toBe(false);

    expect(r.out).toMatch(/no-apology\s+80\.0%\s+\[\S+, \S+\]\s+0\.0%\s+70\.0%\s+FAIL/);
    expect(r.out).toContain('no-apology per input ≥ 80.0% (Holm, family-wise 95%): FAIL');
    expect(r.out).toMatch(/ {2}below its floor: #4 "I want a refund for my broken kettle, please" 0\/30 = 0\.0% \[0\.0%, 11\.6%\], Holm p = /);
    expect(r.out).toContain('FAIL: 1 failed of 1 validator(s): no-apology');

    const junit = readFileSync(out('xml'), 'utf8');
    expect(junit).toMatch(/<failure type="below-min-success" message="[^"]*below the per-input floor 80\.0%: #4 &quot;I want a refund/);
    const md = readFileSync(out('md'), 'utf8');
    expect(md).toContain('### no-apology per input ≥ 80.0% (Holm, family-wise 95%): FAIL');
    expect(md).toMatch(/- below its floor: #4 "I want a refund for my broken kettle, please" 0\/30 = 0\.0%/);
    const html = readFileSync(out('html'), 'utf8');
    expect(html).toContain('<h2>Per-input floors</h2>');
    expect(html).toMatch(/4\. I want a refund for my broken kettle, please/);

    // `assay show` decides the stored run by its stored floor: the same verdict and the same input named.
    const shown = await cli('show', 'latest', '--store', store);
    expect(shown.code).toBe(1);
    expect(shown.out).toContain('below its floor: #4 "I want a refund');

    // The very same outputs without a floor: the aggregate alone passes (the floor is what catches the input).
    const plain = await cli('run', tmp.config('plain.yaml', config('', 'perInput: false')), '--store', store, '--no-progress');
    expect(plain.code, plain.out).toBe(0);
    const byDefault = await cli('run', tmp.config('default.yaml', config('perInput: { minSuccess: 0.8 }\n', 'weight: 1')), '--store', store, '--no-progress');
    expect(byDefault.code).toBe(1);
    expect(byDefault.out).toContain('below its floor: #4');
    // The same floor from the command line, for every rule without its own.
    const byFlag = await cli('run', tmp.config('flag.yaml', config('', 'weight: 1')), '--per-input', '0.8', '--store', store, '--no-progress');
    expect(byFlag.code).toBe(1);
    expect(byFlag.out).toContain('below its floor: #4');
  });

  it('a resume that changes the floor is refused, exit 2, naming the field; sequential stopping is refused', async () => {
    const store = join(tmp.dir(), 'resume.db');
    const first = await cli('run', tmp.config('r.yaml', config()), '--store', store, '--no-progress');
    expect(first.code).toBe(1);
    const r = await cli('run', tmp.config('r2.yaml', config('', 'perInput: { minSuccess: 0.6 }')), '--resume', 'latest', '--store', store, '--no-progress');
    expect(r.code).toBe(2);
    expect(r.err).toContain('changes how the run is decided: "no-apology".perInput: {"minSuccess":0.8} → {"minSuccess":0.6}. ');
    const dropped = await cli('run', tmp.config('r3.yaml', config('', 'perInput: false')), '--resume', 'latest', '--store', store, '--no-progress');
    expect(dropped.code).toBe(2);
    expect(dropped.err).toContain('"no-apology".perInput: {"minSuccess":0.8} → unset');

    const seq = await cli('run', tmp.config('seq.yaml', config('stopping: sequential\n')), '--store', store, '--no-progress');
    expect(seq.code).toBe(2);
    expect(seq.err).toMatch(
      /seq\.yaml: validators\[0\]\.perInput: expected no perInput with stopping: sequential, found a per-input floor: .*use stopping: fixed, or drop perInput\) \(line 7\)/,
    );
    const flag = await cli('run', tmp.config('seq2.yaml', config()), '--stopping', 'sequential', '--store', store, '--no-progress');
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(
      /^assay: --stopping: expected no perInput with stopping: sequential, found a per-input floor \(validators\[0\]\.perInput in .*seq2\.yaml, line 6\): its exact/m,
    );
    const both = await cli('run', tmp.config('seq3.yaml', config('', 'weight: 1')), '--stopping', 'sequential', '--per-input', '0.8', '--store', store);
    expect(both.code).toBe(2);
    expect(both.err).toContain('assay: --per-input: expected no perInput with stopping: sequential, found a per-input floor: its exact per-input tests');
    const badFlag = await cli('run', tmp.config('seq3.yaml', config('', 'weight: 1')), '--per-input', '80%', '--store', store);
    expect(badFlag.code).toBe(2);
    expect(badFlag.err).toContain(`--per-input: expected a number strictly between 0 and 1 (each input's floor, e.g. 0.8), found "80%"`);
    const bad = await cli('run', tmp.config('bad.yaml', config('', 'perInput: { minSuccess: 1 }')), '--store', store, '--no-progress');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/bad\.yaml: validators\[0\]\.perInput\.minSuccess: expected a number strictly between 0 and 1, found 1/);
  });
});
