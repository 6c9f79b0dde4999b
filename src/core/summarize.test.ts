import { describe, expect, it } from 'vitest';
import { clopperPearson, wilson } from './intervals.js';
import { Outcome } from './outcome.js';
import { overallVerdict, resolveSummaryOptions, summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import { HAND } from './testing/fixtures.js';
import type { ValidatorMeta } from './validator.js';

//   input 0: j0 [P, P]  j1 [P, F]  j2 [E, P]
//   input 1: j0 [F, P]  j1 [P, F]  j2 [P, _]
const meta = (minSuccess: [number, number], extra: Partial<ValidatorMeta> = {}): ValidatorMeta[] => [
  { name: 'a', message: 'A failed', minSuccess: minSuccess[0], weight: 3, kind: 'validator', ...extra },
  { name: 'b', message: 'B failed', minSuccess: minSuccess[1], weight: 1, kind: 'verifier' },
];

describe('summarize on the hand-built 2×3×2 tensor', () => {
  it('defaults: Clopper–Pearson 95%, confident verdicts, mean aggregation, maxErrorShare 5%, fixed stopping', () => {
    const byDefault = summarize(HAND(), meta([0.75, 0.5]));
    expect(byDefault.options).toEqual({
      interval: 'clopper-pearson',
      level: 0.95,
      verdict: 'confident',
      aggregate: 'mean',
      maxErrorShare: 0.05,
      stopping: 'fixed',
      estimand: 'inputs',
    });
    // b = 3/5 clears 0.5 as a point, but its interval [14.7%, 94.7%] does not: inconclusive by default.
    expect(byDefault.validators.map((v) => v.verdict)).toEqual(['error', 'inconclusive']);
    expect(byDefault.validators[1].reason).toMatch(/^bounds \[14\.7%, 94\.7%\] straddle minSuccess 50\.0%/);
    // The paper's point verdicts, on request.
    const s = summarize(HAND(), meta([0.75, 0.5]), { verdict: 'point' });
    expect([s.N, s.M, s.K]).toEqual([2, 3, 2]);
    // a = 4/5 = 0.8 but 1 of its 6 checked cells is an error (16.7% > 5%): error; b = 3/5 = 0.6 ≥ 0.5: pass.
    expect(s.validators.map((v) => [v.name, v.kind, v.rate, v.errorShare, v.verdict])).toEqual([
      ['a', 'validator', 0.8, 1 / 6, 'error'],
      ['b', 'verifier', 0.6, 0, 'pass'],
    ]);
    expect(s.validators[0].counts).toEqual({ pass: 4, fail: 1, error: 1, pending: 0 });
    expect(s.validators[0].ci).toEqual(clopperPearson(4, 5, 0.95));
    expect(s.validators[0].errorBounds).toEqual({ low: clopperPearson(4, 6)!.low, high: clopperPearson(5, 6)!.high });
    expect(s.validators[0].reason).toMatch(/error share 16\.7% > maxErrorShare 5\.0%/);
    expect(s.verdict).toBe('error');
    // The validator's own maxErrorShare overrides the run's.
    const lenient = summarize(HAND(), meta([0.75, 0.5], { maxErrorShare: 0.2 }), { verdict: 'point' });
    expect(lenient.validators.map((v) => [v.maxErrorShare, v.verdict])).toEqual([
      [0.2, 'pass'],
      [0.05, 'pass'],
    ]);
    expect(lenient.verdict).toBe('pass');
  });

  it('IRP, ORP, rows, pooled and all-pass figures, with error shares', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { interval: 'wilson' });
    expect(s.inputs.map((r) => r.rate)).toEqual([0.8, 0.6]);
    expect(s.inputs.map((r) => r.errorShare)).toEqual([1 / 6, 0]);
    expect(s.inputs[0].perValidator.map((r) => r.rate)).toEqual([1, 2 / 3]);
    expect(s.inputs[1].perValidator.map((r) => r.rate)).toEqual([2 / 3, 0.5]);
    expect(s.inputs.map((r) => r.allPass.rate)).toEqual([0.5, 0]);
    expect(s.inputs[1].allPass.counts).toEqual({ pass: 0, fail: 2, error: 0, pending: 1 });
    expect(s.iterations.map((r) => [r.j, r.rate])).toEqual([
      [0, 0.75],
      [1, 0.5],
      [2, 1],
    ]);
    expect(s.allOutputs.rate).toBe(0.7);
    expect(s.allOutputs.errorShare).toBeCloseTo(1 / 11, 15);
    expect(s.allPass.rate).toBe(0.25);
    expect(s.allPass.ci).toEqual(wilson(1, 4));
    // Pooled views take the output as the unit: input 0 has 3 outputs (5 decided cells), all outputs 6.
    expect([s.inputs[0].outputs, s.allOutputs.outputs]).toEqual([3, 6]);
    // All outputs: per output (x, n) = (2,2) (1,2) (1,1) (1,2) (1,2) (1,1): 5 outputs hold both outcomes,
    // 2 a failure → 1 degree of freedom → n_eff = the 6 outputs.
    expect(s.allOutputs.effectiveN).toBe(6);
    expect(s.allOutputs.ci).toEqual(wilson(0.7 * 6, 6));
  });

  it('overall: §3.3 over validator rates and §3.6.7 over the tensor, with the error share', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { aggregate: 'weighted' });
    expect(s.overall.mean).toBeCloseTo(0.7, 15);
    expect(s.overall.weighted).toBeCloseTo(0.75, 15);
    expect(s.overall.min).toBe(0.6);
    expect(s.overall.method).toBe('weighted');
    expect(s.overall.value).toBe(s.overall.weighted);
    expect(s.overall.tensor).toEqual({ mean: 0.7, weighted: 0.75, min: 0.5 });
    expect(s.overall.errorShare).toBeCloseTo(1 / 11, 15);
    expect(s.overall.undecidedValidators).toBe(0);
  });

  it('a run where 4 of 5 validators errored on every cell is an error, its headline rate carries the error share', () => {
    const t = new ReliabilityTensor(2, 10, 5);
    for (let i = 0; i < 2; i++) for (let j = 0; j < 10; j++) for (let k = 0; k < 5; k++) t.set(i, j, k, k === 0 ? Outcome.PASS : Outcome.ERROR);
    const metas = Array.from({ length: 5 }, (_, k): ValidatorMeta => ({ name: `v${k}`, message: '', minSuccess: 0.9, weight: 1, kind: 'validator' }));
    const s = summarize(t, metas);
    expect(s.overall.mean).toBe(1); // the one validator that answered
    expect(s.overall.errorShare).toBe(0.8);
    expect(s.overall.undecidedValidators).toBe(4);
    // v0's 20 of 20 cannot show 0.9 at 95% (lower bound 83.2%): inconclusive; the others are errors, and so is the run.
    expect(s.validators.map((v) => v.verdict)).toEqual(['inconclusive', 'error', 'error', 'error', 'error']);
    expect(s.verdict).toBe('error');
    expect(summarize(t, metas, { verdict: 'point' }).validators.map((v) => v.verdict)).toEqual(['pass', 'error', 'error', 'error', 'error']);
  });

  it('confident mode: wide intervals are inconclusive, with the outputs that decide them at 80%', () => {
    const s = summarize(HAND(), meta([0.75, 0.5], { maxErrorShare: 0.2 }), { verdict: 'confident' });
    expect(s.validators.map((v) => v.verdict)).toEqual(['inconclusive', 'inconclusive']);
    for (const v of s.validators) {
      expect(v.toDecide!.probability).toBe(0.8);
      expect(v.toDecide!.outputs).toBeGreaterThan(0);
    }
    // a: 4 pass, 1 fail, 1 error: its pass share 4/6 is below 0.75, so no number of outputs passes it while
    // errors stay at 1 in 6, and its fail needs the share of passes and errors (5/6) below 0.75: never.
    expect(s.validators[0].toDecide!.outputs).toBe(Infinity);
    expect(s.verdict).toBe('inconclusive');
    // The summary survives JSON, except Infinity (the reports write it as null).
    const b = summarize(HAND(), meta([0.75, 0.5]), { verdict: 'confident' }).validators[1];
    expect(JSON.parse(JSON.stringify(b))).toEqual(b);
  });

  it('sequential stopping: confidence-sequence intervals, where each validator stopped and why', () => {
    const t = new ReliabilityTensor(1, 150, 2);
    for (let j = 0; j < 150; j++) {
      t.set(0, j, 0, j < 98 ? Outcome.PASS : Outcome.PENDING); // stopped after 98: never checked again
      t.set(0, j, 1, j % 2 === 0 ? Outcome.PASS : Outcome.FAIL);
    }
    const metas: ValidatorMeta[] = [
      { name: 'a', message: '', minSuccess: 0.95, weight: 1, kind: 'validator' },
      { name: 'b', message: '', minSuccess: 0.95, weight: 1, kind: 'validator' },
    ];
    const s = summarize(t, metas, { stopping: 'sequential' });
    expect(s.options.verdict).toBe('confident');
    expect(s.validators.map((v) => [v.verdict, v.sequential!.reason, v.sequential!.rounds])).toEqual([
      ['pass', 'lower-bound', 98],
      ['fail', 'upper-bound', s.validators[1].sequential!.rounds],
    ]);
    expect(s.validators[0].ci!.method).toBe('confidence-sequence');
    expect(s.validators[0].reason).toMatch(/^sequence lower bound 95\.\d+% ≥ minSuccess 95\.0%$/);
    expect(s.stoppedAfter).toBe(Math.max(98, s.validators[1].sequential!.rounds));
    expect(() => resolveSummaryOptions({ stopping: 'sequential', verdict: 'point' })).toThrow(/needs verdict "confident"/);
  });

  it('other interval methods and levels flow through', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { interval: 'wilson', level: 0.9 });
    expect(s.validators[0].ci!.method).toBe('wilson');
    expect(s.inputs[1].ci!.level).toBe(0.9);
  });

  it('nothing decided: rates and intervals null, verdicts inconclusive', () => {
    const s = summarize(new ReliabilityTensor(2, 2, 2), meta([0.5, 0.5]));
    expect(s.validators.map((v) => [v.rate, v.ci, v.errorShare, v.verdict])).toEqual([
      [null, null, null, 'inconclusive'],
      [null, null, null, 'inconclusive'],
    ]);
    expect(s.overall.value).toBeNull();
    expect(s.overall.errorShare).toBeNull();
    expect(s.verdict).toBe('inconclusive');
  });

  it('checks its arguments', () => {
    expect(() => summarize(HAND(), meta([0.5, 0.5]).slice(1))).toThrow(/K = 2 .* 1 validators/);
    expect(() => resolveSummaryOptions({ level: 95 })).toThrow(/options.level/);
    expect(() => resolveSummaryOptions({ interval: 'agresti' as never })).toThrow(/options.interval/);
    expect(() => resolveSummaryOptions({ maxErrorShare: 2 })).toThrow(/options.maxErrorShare/);
    expect(() => resolveSummaryOptions({ stopping: 'eventually' as never })).toThrow(/options.stopping/);
    expect(() => summarize(HAND(), meta([0.5, 0.5], { maxErrorShare: -0.1 }))).toThrow(/maxErrorShare/);
    expect(resolveSummaryOptions({ verdict: undefined }).verdict).toBe('confident');
  });

  it('overall verdict rule: fail, then error, then inconclusive', () => {
    expect(overallVerdict(['pass', 'inconclusive', 'error', 'fail'])).toBe('fail');
    expect(overallVerdict(['pass', 'inconclusive', 'error'])).toBe('error');
    expect(overallVerdict(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(overallVerdict(['pass', 'pass'])).toBe('pass');
  });
});

describe('summarize with per-input floors (core/per-input.ts)', () => {
  /** 4 inputs × 40 samples × 1 rule: inputs 0–2 always pass, input 3 passes `good` of its 40. */
  const tensor = (good: number) => {
    const t = new ReliabilityTensor(4, 40, 1);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 40; j++) t.set(i, j, 0, i < 3 || j < good ? Outcome.PASS : Outcome.FAIL);
    return t;
  };
  const rule = (perInput?: { minSuccess: number }): ValidatorMeta[] => [
    { name: 'r', message: 'm', minSuccess: 0.6, weight: 1, kind: 'validator', ...(perInput ? { perInput } : {}) },
  ];

  it('fails a rule whose aggregate passes when one input fails its floor, and says both', () => {
    const plain = summarize(tensor(10), rule());
    expect(plain.validators[0].verdict).toBe('pass'); // 130/160 = 81%, lower bound ≥ 60%
    const s = summarize(tensor(10), rule({ minSuccess: 0.8 }));
    const v = s.validators[0];
    expect(v.verdict).toBe('fail');
    expect(v.perInput).toMatchObject({ verdict: 'fail', failing: [3] });
    expect(v.perInput!.inputs.slice(0, 3).map((x) => x.verdict)).toEqual(['pass', 'pass', 'pass']);
    expect(v.reason).toMatch(/^lower bound \S+ ≥ minSuccess 60\.0%; per input: 1 of 4 inputs below their floor 80\.0% \(Holm, family-wise 95%\)$/);
    expect(s.verdict).toBe('fail');
  });

  it('passes only when both pass; an input still open leaves the rule inconclusive', () => {
    expect(summarize(tensor(40), rule({ minSuccess: 0.8 })).validators[0].verdict).toBe('pass');
    // 30/40 against 80%: neither shown below (P(X ≤ 30) = 0.29) nor at or above it.
    const open = summarize(tensor(30), rule({ minSuccess: 0.8 })).validators[0];
    expect(open.perInput!.inputs[3].verdict).toBe('inconclusive');
    expect(open.verdict).toBe('inconclusive');
    expect(open.toDecide).toBeUndefined();
  });

  it('refuses per-input floors with sequential stopping', () => {
    expect(() => summarize(tensor(40), rule({ minSuccess: 0.8 }), { stopping: 'sequential' })).toThrow(
      /^expected no perInput with stopping: sequential, found a per-input floor \(validator ".*"\): its exact per-input tests need a number of samples fixed in advance/,
    );
  });
});

describe('summarize with pass^k (core/pass-k.ts)', () => {
  /** 80 inputs × 10 samples × 1 rule: every input passes `good` of its 10. */
  const tensor = (good: number, N = 80) => {
    const t = new ReliabilityTensor(N, 10, 1);
    for (let i = 0; i < N; i++) for (let j = 0; j < 10; j++) t.set(i, j, 0, j < good ? Outcome.PASS : Outcome.FAIL);
    return t;
  };
  const rule = (passK?: { k: number; minSuccess?: number }): ValidatorMeta[] => [
    { name: 'r', message: 'm', minSuccess: 0.6, weight: 1, kind: 'validator', ...(passK ? { passK } : {}) },
  ];

  it('reports pass^k without changing the verdict when no minSuccess is set', () => {
    const v = summarize(tensor(9), rule({ k: 5 })).validators[0];
    expect(v.verdict).toBe('pass');
    expect(v.passK).toMatchObject({ k: 5, inputs: 80, leftOut: 0 });
    expect(v.passK!.passK).toBeCloseTo((9 * 8 * 7 * 6 * 5) / (10 * 9 * 8 * 7 * 6), 12);
    expect(v.passK!.verdict).toBeUndefined();
  });

  it('a gate on pass^k fails a rule whose rate passes: 90% per try is 50% for five in a row', () => {
    const v = summarize(tensor(9), rule({ k: 5, minSuccess: 0.8 })).validators[0];
    expect(v.rate).toBe(0.9);
    expect(v.passK!.verdict).toBe('fail');
    expect(v.verdict).toBe('fail');
    expect(v.reason).toMatch(/^lower bound \S+ ≥ minSuccess 60\.0%; pass\^5 upper bound \S+ < minSuccess 80\.0%$/);
    expect(summarize(tensor(10), rule({ k: 5, minSuccess: 0.8 })).validators[0].verdict).toBe('pass');
  });

  it('refuses pass^k with sequential stopping', () => {
    expect(() => summarize(tensor(10), rule({ k: 2 }), { stopping: 'sequential' })).toThrow(/passK cannot be estimated with stopping "sequential"/);
  });
});

describe('two claims: the inputs run and the input population (issue 29)', () => {
  // 10 inputs × 20 samples, one rule: inputs 8 and 9 always fail, the others always pass.
  const tenInputs = () => {
    const t = new ReliabilityTensor(10, 20, 1);
    for (let i = 0; i < 10; i++) for (let j = 0; j < 20; j++) t.set(i, j, 0, i >= 8 ? Outcome.FAIL : Outcome.PASS);
    return t;
  };
  const rule: ValidatorMeta[] = [{ name: 'polite', message: 'not polite', minSuccess: 0.7, weight: 1, kind: 'validator' }];

  it('reports both: the inputs-run interval about [74%, 85%] and a population interval whose lower bound is far below it', () => {
    const s = summarize(tenInputs(), rule);
    const v = s.validators[0];
    expect(v.ci!.low).toBeCloseTo(0.7378, 4);
    expect(v.ci!.high).toBeCloseTo(0.8531, 4);
    expect(v.population).toMatchObject({ rate: 0.8, method: 'cluster-cp', inputs: 10, level: 0.95 });
    expect(v.population!.low).toBeCloseTo(0.4439, 4);
    // The default claim is about the inputs run: lower bound 73.8% ≥ 70%.
    expect(v.verdict).toBe('pass');
  });

  it('estimand population: the same run is not PASS at minSuccess 0.7, and says why', () => {
    const s = summarize(tenInputs(), rule, { estimand: 'population' });
    const v = s.validators[0];
    expect(s.options.estimand).toBe('population');
    expect(v.verdict).toBe('inconclusive');
    expect(v.reason).toMatch(/^population bounds \[44\.4%, 97\.5%\] \(over 10 inputs\) straddle minSuccess 70\.0%: more inputs/);
    expect(v.errorBounds!.low).toBeCloseTo(0.4439, 4);
    expect(v.toDecide).toBeUndefined();
    // Point verdicts compare the population rate.
    expect(summarize(tenInputs(), rule, { estimand: 'population', verdict: 'point' }).validators[0].verdict).toBe('pass');
    // A population that fails: 4 of 10 inputs always fail, at minSuccess 0.95.
    const t = tenInputs();
    for (let j = 0; j < 20; j++) for (const i of [6, 7]) t.set(i, j, 0, Outcome.FAIL);
    const f = summarize(t, [{ ...rule[0], minSuccess: 0.95 }], { estimand: 'population' }).validators[0];
    expect(f.verdict).toBe('fail');
    expect(f.reason).toMatch(/^population upper bound 87\.8% \(over 10 inputs\) < minSuccess 95\.0%/);
  });

  it('one input: no population figure, and a population verdict is inconclusive; refused with sequential stopping', () => {
    const t = new ReliabilityTensor(1, 30, 1);
    for (let j = 0; j < 30; j++) t.set(0, j, 0, Outcome.PASS);
    const s = summarize(t, rule, { estimand: 'population' });
    expect(s.validators[0].population).toBeUndefined();
    expect(s.validators[0].verdict).toBe('inconclusive');
    expect(s.validators[0].reason).toMatch(/fewer than 2 inputs/);
    expect(() => resolveSummaryOptions({ estimand: 'population', stopping: 'sequential' })).toThrow(/estimand.*stopping: fixed/);
    expect(() => resolveSummaryOptions({ estimand: 'everyone' as never })).toThrow(/options\.estimand must be one of inputs, population/);
  });
});

describe('estimand population with grades: the corrected population rate decides (issue 29)', () => {
  // 40 inputs × 5 samples; the judge passes everything; people fail one output in five (40 graded, one per input).
  const t = new ReliabilityTensor(40, 5, 1);
  for (let i = 0; i < 40; i++) for (let j = 0; j < 5; j++) t.set(i, j, 0, Outcome.PASS);
  const grades = [
    Array.from({ length: 40 }, (_, n) => ({ i: n, j: 0, person: n % 5 !== 0, graders: 1, disputed: false, probability: 0.2, design: 'uniform' })),
  ];
  const polite: ValidatorMeta = { name: 'polite', message: 'polite', minSuccess: 0.95, weight: 1, kind: 'verifier' };

  it('decides on the corrected population figure and says so — not the judge’s 100%', () => {
    const s = summarize(t, [polite], { verdict: 'confident', estimand: 'population' }, grades).validators[0];
    const pop = s.grading!.corrected!.population!;
    expect(pop.rate).toBeCloseTo(0.8, 6);
    expect(pop.high).toBeLessThan(0.95);
    expect(s.verdict).toBe('fail');
    expect(s.reason).toMatch(/^population upper bound \S+ \(corrected by 40 grades\) < minSuccess 95\.0%/);
    expect(s.figure).toMatch(/^corrected by 40 grades over the input population \(grading look 2/);
  });

  it('without a population form (a weighted draw) it keeps the judge’s population rate and says why', () => {
    const weighted = [grades[0].map((g, n) => ({ ...g, probability: n % 2 ? 0.1 : 0.4, design: 'imported' }))];
    const s = summarize(t, [polite], { verdict: 'confident', estimand: 'population' }, weighted).validators[0];
    expect(s.verdict).toBe('inconclusive'); // the judge's population bounds, 40 inputs all passing: [91.2%, 100%]
    expect(s.figure).toMatch(
      /^judge's rate over the input population · grades not used: the corrected rate has no population form here \(its grades were drawn/,
    );
  });
});
