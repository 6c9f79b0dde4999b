import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { openSqliteStore } from '../store/sqlite.js';
import { captureCli } from './testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = captureCli;

describe('assay plan --rates', () => {
  it("prints the worked example's figures with the correct m", async () => {
    const r = await cli(['plan', '--rates', '0.95,0.90,0.85', '--confidence', '0.99', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.p_pass).toBeCloseTo(0.72675, 12);
    expect(j.expected_attempts).toBeCloseTo(1.376, 3);
    expect(j.expected_retries).toBeCloseTo(0.376, 3);
    expect(j.m).toBe(4);
    expect(j.p_success_within_m).toBeCloseTo(0.994425, 6);
  });

  it('prints a readable summary without --json', async () => {
    const r = await cli(['plan', '--rates', '0.9', '--confidence', '0.99']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/m \(max attempts, incl\. the first\) for 99\.00%: 2/);
  });

  it('rejects bad rates and flags with exit 2, naming what was found', async () => {
    for (const [args, msg] of [
      [['--rates', '0.9,1.5'], /--rates: .*found "1\.5" at position 2/],
      [['--rates', '0.9,,0.8'], /found "" at position 2/],
      [['--rates', 'abc'], /found "abc"/],
      [['--rates', '0x1'], /found "0x1" at position 1/],
      [['--rates', 'Infinity'], /found "Infinity"/],
      [['--rates', '0.9', '--confidence', '0x0'], /--confidence: .*found "0x0"/],
      [['--rates', '0.9', '--confidence', '1'], /--confidence: expected a number strictly between 0 and 1, found "1"/],
      [['--rates', '0.9', '--run', 'x'], /exactly one of --rates .* found --rates and --run/],
      [[], /found none/],
      [['--rates', '0.9', '--interval', 'bayes'], /--interval: expected clopper-pearson, wilson or wald, found "bayes"/],
    ] as const) {
      const r = await cli(['plan', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
    }
  });
});

describe('assay plan --run', () => {
  it('plans from a stored run: global figures, per-input figures and the independence check', async () => {
    const path = join(dir, 'assay.db');
    const store = openSqliteStore(path);
    const run = await store.runs.create({
      name: 'exp',
      config: {},
      inputs: ['easy', 'hard'],
      samples: 40,
      validators: [
        { name: 'a', message: 'a', minSuccess: 0.9, weight: 1, kind: 'validator' },
        { name: 'b', message: 'b', minSuccess: 0.9, weight: 1, kind: 'validator' },
      ],
      systemId: 'simulated',
    });
    const { PASS: P, FAIL: F } = Outcome;
    // Input 0 passes 39/40 samples; input 1 passes 20/40, and a and b always fail together there.
    for (let j = 0; j < 40; j++) {
      await store.samples.record(run.id, { i: 0, j, outcomes: j === 0 ? [P, F] : [P, P], latencyMs: 1, attempts: 1 });
      await store.samples.record(run.id, { i: 1, j, outcomes: j < 20 ? [F, F] : [P, P], latencyMs: 1, attempts: 1 });
    }
    await store.close();

    const r = await cli(['plan', '--run', run.id, '--store', path, '--confidence', '0.99', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j).slice(0, 8)).toEqual(['run_id', 'name', 'source', 'p_pass', 'expected_attempts', 'expected_retries', 'm', 'p_success_within_m']);
    expect(j).toMatchObject({ run_id: run.id, source: 'per_input', N: 2, M: 40, K: 2 });
    // Headline: the mixture over the two inputs. Mean P_pass,i = 59/80; E = (40/39 + 2)/2; m: ((1/40)^m + 0.5^m)/2 ≤ 1%.
    expect(j.p_pass).toBeCloseTo(59 / 80, 12);
    expect(j.expected_attempts).toBeCloseTo((40 / 39 + 2) / 2, 12);
    expect(j.expected_retries).toBeCloseTo((40 / 39 + 2) / 2 - 1, 12);
    expect(j.m).toBe(6);
    expect(j.p_success_within_m).toBeCloseTo(1 - (40 ** -6 + 0.5 ** 6) / 2, 12);
    // The pooled rate alone would say m = 4, which succeeds on only ~96.9% of calls over these inputs.
    expect(j.joint.m).toBe(4);
    expect(j.joint.per_input_success_within_m).toBeCloseTo(1 - (40 ** -4 + 0.5 ** 4) / 2, 12);
    expect(j.product.p_pass).toBeCloseTo((60 / 80) * (59 / 80), 12);
    expect(j.inputs).toHaveLength(2);
    expect(j.inputs[0]).toMatchObject({ i: 0, input: 'easy', samples: 40, all_pass: 39, m: 2 });
    expect(j.inputs[1]).toMatchObject({ i: 1, input: 'hard', all_pass: 20, m: 7 });
    expect(j.inputs[1].expected_attempts).toBeCloseTo(2, 12);
    expect(j.inputs[1].p_pass_ci.low).toBeLessThan(0.5);
    expect(j.inputs[1].m_ci.high).toBeGreaterThan(7);
    expect(j.independence.independent).toBe(false);
    expect(j.independence.flagged_validators).toEqual(['a', 'b']);

    const table = await cli(['plan', '--run', run.id, '--store', path]);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/product of marginals \(paper\)/);
    expect(table.out).toMatch(/guard over these inputs: m = 6 attempts/);
    expect(table.out).toMatch(/each input on its own needs up to m = 7/);
    expect(table.out).toMatch(/the pooled rate's m = 4 would succeed on only 96\.8[78]% of calls/);
    expect(table.out).toMatch(/MISPREDICTS/);
    expect(table.out).toMatch(/hard/);
  });

  it('names an unknown run or a missing store (exit 2)', async () => {
    const missing = await cli(['plan', '--run', 'nope', '--store', join(dir, 'none.db')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--store: expected an assay store/);
    const path = join(dir, 'assay.db');
    const unknown = await cli(['plan', '--run', 'nope', '--store', path]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--run: no run with id "nope"/);
  });
});

describe('assay plan --min-success --expect (sample sizes)', () => {
  // Reference values by exact binomial sums and a dynamic programme written independently in Python.
  it("prints the fixed n and the sequential design's expected and worst-case n as JSON", async () => {
    const r = await cli(['plan', '--min-success', '0.95', '--expect', '0.98', '--power', '0.8', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { fixed: { n: number }; sequential: { expected_n: number; max_n: number } };
    expect(Object.keys(j)).toEqual(['fixed', 'sequential']);
    expect(j.fixed).toEqual({ n: 312 });
    expect(j.sequential.max_n).toBe(431);
    expect(j.sequential.expected_n).toBeCloseTo(276.0214473620315, 8);
  });

  it('plans a fail as well, with a readable summary; --level and --power change the figures', async () => {
    const r = await cli(['plan', '--min-success', '0.95', '--expect', '0.9']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/to fail minSuccess 95\.00% with probability 80\.00% when the rate is 90\.00%/);
    expect(r.out).toMatch(/fixed .* n = 213 outputs/);
    const strict = JSON.parse((await cli(['plan', '--min-success', '0.95', '--expect', '0.9', '--power', '0.975', '--json'])).out) as {
      fixed: { n: number };
      sequential: { max_n: number; expected_n: number };
    };
    expect(strict.sequential.max_n).toBe(605);
    expect(strict.sequential.expected_n).toBeCloseTo(195.80851108829103, 8);
    const wider = JSON.parse((await cli(['plan', '--min-success', '0.95', '--expect', '0.9', '--level', '0.99', '--json'])).out) as { fixed: { n: number } };
    expect(wider.fixed.n).toBeGreaterThan(213);
  });

  it('--interval is honoured: Wilson plans for a Wilson verdict (fewer outputs), Wald is refused as the verdict refuses it', async () => {
    const cp = JSON.parse((await cli(['plan', '--min-success', '0.95', '--expect', '0.9', '--json'])).out) as { fixed: { n: number } };
    const wilson = await cli(['plan', '--min-success', '0.95', '--expect', '0.9', '--interval', 'wilson']);
    expect(wilson.code).toBe(0);
    expect(wilson.out).toMatch(/fixed \(confident verdict, Wilson\)/);
    const n = Number(/n = (\d+) outputs/.exec(wilson.out)![1]);
    expect(n).toBeLessThan(cp.fixed.n);
    const wald = await cli(['plan', '--min-success', '0.95', '--expect', '0.9', '--interval', 'wald']);
    expect(wald.code).toBe(2);
    expect(wald.err).toMatch(/--interval: expected clopper-pearson or wilson with verdict: confident/);
  });

  it('names what is wrong (exit 2)', async () => {
    for (const [args, msg] of [
      [['--expect', '0.9'], /--min-success and --expect go together, found only --expect/],
      [['--min-success', '0.9'], /found only --min-success/],
      [['--min-success', '0.9', '--expect', '0.9'], /--expect: expected a rate different from --min-success/],
      [['--min-success', '1.5', '--expect', '0.9'], /--min-success: expected a number strictly between 0 and 1, found "1\.5"/],
      [['--min-success', '0.9', '--expect', '0.95', '--power', '1'], /--power: expected a number strictly between 0 and 1/],
      [['--min-success', '0.9', '--expect', '0.95', '--rates', '0.9'], /expected exactly one of .* found --rates and --min-success\/--expect/],
      [[], /expected exactly one of --rates <list>, --run <runId> or --min-success <rate> --expect <rate>, found none/],
    ] as [string[], RegExp][]) {
      const r = await cli(['plan', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(msg);
    }
  });
});
