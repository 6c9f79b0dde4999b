import { describe, expect, it } from 'vitest';
import { compareSummaries, inputKey, type ComparedRun } from './compare.js';
import { holmAdjust } from './significance.js';
import { Outcome, type OutcomeCode } from './outcome.js';
import { summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import type { InputValue } from './validator.js';

const { PASS, FAIL, ERROR } = Outcome;

function make(inputs: InputValue[], M: number, names: string[], cell: (i: number, j: number, k: number) => OutcomeCode): ComparedRun {
  const t = new ReliabilityTensor(inputs.length, M, names.length);
  for (let i = 0; i < inputs.length; i++) for (let j = 0; j < M; j++) for (let k = 0; k < names.length; k++) t.set(i, j, k, cell(i, j, k));
  const validators = names.map((name) => ({ name, message: name, minSuccess: 0.5, weight: 1, kind: 'validator' as const }));
  return { inputs, summary: summarize(t, validators) };
}

describe('compareSummaries', () => {
  it('Fisher on [[3,1],[1,3]]: p = 34/70 (hand-computed), not significant', () => {
    // One input, 4 samples: A passes 3 of 4, B passes 1 of 4.
    const c = compareSummaries(
      make(['x'], 4, ['v'], (_i, j) => (j < 3 ? PASS : FAIL)),
      make(['x'], 4, ['v'], (_i, j) => (j < 1 ? PASS : FAIL)),
    );
    const v = c.validators[0];
    expect(v.test).toBe('fisher');
    // Tables with 4 passes in total: x ∈ 0..4 with weights C(4,x)·C(4,4−x) = 1, 16, 36, 16, 1 (sum 70);
    // the observed x = 3 has weight 16; tables no more likely: 1 + 16 + 16 + 1 = 34 → p = 34/70.
    expect(v.pValue).toBeCloseTo(34 / 70, 12);
    expect(v.diff).toBeCloseTo(-0.5, 12);
    expect(v.significant).toBe(false);
    expect(c.regressions).toEqual([]);
  });

  it('excludes errors from the counts, matches validators by name and inputs by content', () => {
    // A: inputs p, q; validators keep, dropped. B: inputs q, r (reordered, one new); validators added, keep.
    const a = make(['p', { k: 'q' }], 2, ['keep', 'dropped'], (i, j) => (i === 0 && j === 0 ? ERROR : PASS));
    const b = make([{ k: 'q' }, 'r'], 2, ['added', 'keep'], (i, _j, k) => (k === 1 && i === 0 ? FAIL : PASS));
    const c = compareSummaries(a, b);
    expect(c.validators.map((v) => v.label)).toEqual(['keep']);
    // keep: A has 3 decided passes (one error excluded); B has 2 of 4 (input {k:q} fails twice).
    expect(c.validators[0].a).toMatchObject({ pass: 3, n: 3 });
    expect(c.validators[0].b).toMatchObject({ pass: 2, n: 4 });
    expect(c.onlyInA).toEqual(['dropped']);
    expect(c.onlyInB).toEqual(['added']);
    expect(c.inputs.map((r) => [r.label, r.iA, r.iB])).toEqual([['{"k":"q"}', 1, 0]]);
    // {k:q}: A 4/4 over both validators; B: 'added' passes 2, 'keep' fails 2 → 2/4
    expect(c.inputs[0].a).toMatchObject({ pass: 4, n: 4 });
    expect(c.inputs[0].b).toMatchObject({ pass: 2, n: 4 });
    expect([c.inputsOnlyInA, c.inputsOnlyInB]).toEqual([1, 1]);
  });

  it('matches object inputs whatever their key order, and repeated inputs occurrence by occurrence', () => {
    expect(inputKey({ a: 1, b: { d: 2, c: [3, { f: 1, e: 0 }] } })).toBe(inputKey({ b: { c: [3, { e: 0, f: 1 }], d: 2 }, a: 1 }));
    expect(inputKey('{"a":1}')).not.toBe(inputKey({ a: 1 }));
    const a = make([{ q: 'x', lang: 'en' }, 'dup', 'dup', 'solo'], 1, ['v'], () => PASS);
    const b = make(['dup', { lang: 'en', q: 'x' }, 'dup'], 1, ['v'], () => PASS);
    const c = compareSummaries(a, b);
    expect(c.inputs.map((r) => [r.iA, r.iB])).toEqual([
      [0, 1],
      [1, 0],
      [2, 2],
    ]);
    expect([c.inputsOnlyInA, c.inputsOnlyInB]).toEqual([1, 0]);
  });

  it('flags a large, significant drop as a regression and a rise as better', () => {
    // 100 samples: A 95/100, B 80/100 → z-test (expected fails 12.5 ≥ 5), p ≈ 0.0013 → worse.
    const a = make(['x'], 100, ['v', 'w'], (_i, j, k) => (k === 0 ? (j < 95 ? PASS : FAIL) : j < 50 ? PASS : FAIL));
    const b = make(['x'], 100, ['v', 'w'], (_i, j, k) => (k === 0 ? (j < 80 ? PASS : FAIL) : j < 70 ? PASS : FAIL));
    const c = compareSummaries(a, b);
    const [v, w] = c.validators;
    expect(v.test).toBe('z');
    // pooled 175/200 = 0.875, se = sqrt(0.875·0.125·0.02) = 0.046771, z = −0.15/0.046771 = −3.2071
    expect(v.z!.z).toBeCloseTo(-3.2071, 3);
    expect(v.direction).toBe('worse');
    expect(w.direction).toBe('better');
    expect(c.regressions).toEqual(['v']);
  });

  it('a validator with no decided cell in B (all errors) is untestable, never a regression', () => {
    const a = make(['x', 'y'], 10, ['v'], () => PASS);
    const b = make(['x', 'y'], 10, ['v'], () => ERROR);
    const c = compareSummaries(a, b);
    expect(c.validators[0]).toMatchObject({ pValue: null, test: null, diff: null, direction: 'unchanged' });
    expect(c.untestable).toEqual(['v']);
    expect(c.regressions).toEqual([]);
  });

  it('with Holm, two borderline drops (p ≈ 0.037 each) no longer count as regressions', () => {
    // 45/50 → 37/50: pooled 0.82, se = sqrt(0.82·0.18·0.04) = 0.076837, z = −0.16/0.076837 = −2.0823, p = 0.03731
    const a = make(['x'], 50, ['v', 'w'], (_i, j) => (j < 45 ? PASS : FAIL));
    const b = make(['x'], 50, ['v', 'w'], (_i, j) => (j < 37 ? PASS : FAIL));
    const plain = compareSummaries(a, b);
    expect(plain.validators[0].pValue).toBeCloseTo(0.03731, 4);
    expect(plain.regressions).toEqual(['v', 'w']);
    const holm = compareSummaries(a, b, { adjust: 'holm' });
    // Holm: 2·0.03731 = 0.07462 for the smaller, max(0.07462, 1·0.03731) for the other.
    expect(holm.validators.map((v) => v.adjustedP)).toEqual([expect.closeTo(0.07462, 4), expect.closeTo(0.07462, 4)]);
    expect(holm.validators[0].pValue).toBeCloseTo(0.03731, 4);
    expect(holm.regressions).toEqual([]);
    expect(holm.adjust).toBe('holm');
  });

  it('rejects a level outside (0, 1) and a summary that does not match its inputs', () => {
    const a = make(['x'], 2, ['v'], () => PASS);
    expect(() => compareSummaries(a, a, { level: 95 })).toThrow(/level/);
    expect(() => compareSummaries({ inputs: ['x', 'y'], summary: a.summary }, a)).toThrow(/N differs/);
  });
});

describe('holmAdjust', () => {
  it("matches R's p.adjust(c(0.01, 0.04, 0.03, 0.005), 'holm')", () => {
    // R: 0.03 0.06 0.06 0.02
    const adj = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((want, idx) => expect(adj[idx]).toBeCloseTo(want, 12));
  });

  it('passes nulls through, counts only tested values and caps at 1', () => {
    // m = 2: 0.3·2 = 0.6, then max(0.6, 0.8) = 0.8
    expect(holmAdjust([null, 0.8, 0.3])).toEqual([null, 0.8, expect.closeTo(0.6, 12)]);
    expect(holmAdjust([0.7, 0.9])).toEqual([1, 1]);
    expect(holmAdjust([])).toEqual([]);
  });
});

describe('compareSummaries: the input population, paired by input (issue 29)', () => {
  const ten = Array.from({ length: 10 }, (_, i) => `q${i}`);
  it('one input of ten breaks: worse on the inputs run, not shown worse for the population; the gate follows the estimand', () => {
    const a = make(ten, 50, ['v'], () => PASS);
    const b = make(ten, 50, ['v'], (i) => (i === 0 ? FAIL : PASS));
    const byInputs = compareSummaries(a, b);
    expect(byInputs.estimand).toBe('inputs');
    expect(byInputs.regressions).toEqual(['v']);
    const p = byInputs.validators[0].population!;
    // d = (−1, 0 × 9): mean −0.1, s = 0.3162, t_9 = 2.2622 → −0.1 ± 0.2262 (scipy.stats.t.ppf reference).
    expect(p).toMatchObject({ method: 'paired-t', inputs: 10, direction: 'unchanged' });
    expect(p.diff).toBeCloseTo(-0.1, 12);
    expect(p.low).toBeCloseTo(-0.3262, 4);
    expect(p.high).toBeCloseTo(0.1262, 4);
    expect(compareSummaries(a, b, { estimand: 'population' }).regressions).toEqual([]);
  });

  it('every input drops: worse for the population too; runs decided on the population are compared on it by default', () => {
    const a = make(ten, 20, ['v'], (i, j) => (j < 18 - (i % 3) ? PASS : FAIL));
    const b = make(ten, 20, ['v'], (i, j) => (j < 12 - (i % 4) ? PASS : FAIL));
    const c = compareSummaries(a, b, { estimand: 'population' });
    expect(c.validators[0].population!.direction).toBe('worse');
    expect(c.regressions).toEqual(['v']);
    const onPopulation = (r: ComparedRun): ComparedRun => ({ ...r, summary: { ...r.summary, options: { ...r.summary.options, estimand: 'population' } } });
    expect(compareSummaries(onPopulation(a), onPopulation(b)).estimand).toBe('population');
    expect(compareSummaries(onPopulation(a), b).estimand).toBe('inputs');
    expect(() => compareSummaries(a, b, { estimand: 'all' as never })).toThrow(/estimand must be inputs or population/);
  });
});
