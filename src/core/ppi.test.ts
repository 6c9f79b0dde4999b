import { describe, expect, it } from 'vitest';
import { clopperPearson } from './intervals.js';
import { CORRECTED_METHOD, correctedRate, ppiMeanCI } from './ppi.js';
import { simulateJudgeCell } from './testing/judges.js';

// Fixed data shared with the reference script: built from formulas, so both sides build the same arrays.
function dataA() {
  const Y = Array.from({ length: 40 }, (_, i) => ((i * 7) % 10 < 8 ? 1 : 0));
  const Yhat = Y.map((y, i) => (i % 9 === 0 ? 1 - y : y));
  const YhatUnlabeled = Array.from({ length: 300 }, (_, j) => ((j * 13) % 20 < 17 ? 1 : 0));
  return { Y, Yhat, YhatUnlabeled };
}
function dataB() {
  const Y = Array.from({ length: 25 }, (_, i) => Math.sin(i) * 2 + (i % 5) / 4);
  const Yhat = Y.map((y, i) => y + 0.3 * Math.cos(3 * i));
  const YhatUnlabeled = Array.from({ length: 120 }, (_, j) => Math.sin(j * 0.7) * 2 + (j % 5) / 4 + 0.3 * Math.cos(j));
  return { Y, Yhat, YhatUnlabeled };
}

/**
 * Reference numbers: ppi_py's own ppi_mean_ci (github.com/aangelopoulos/ppi_py at bd90caa), run with NumPy
 * and SciPy on the data above; its unused imports (numba, statsmodels, sklearn) were stubbed, and
 * statsmodels' _zconfint_generic — the only one ppi_mean_ci calls — written as statsmodels defines it
 * (mean ± Φ⁻¹(1 − α/2)·std). Numbers copied, not code.
 */
describe('ppiMeanCI reproduces ppi_py ppi_mean_ci', () => {
  const close = (r: { low: number; high: number }, [low, high]: [number, number]) => {
    expect(r.low).toBeCloseTo(low, 11);
    expect(r.high).toBeCloseTo(high, 11);
  };
  it('power-tuned λ (lam=None), binary data, α = 0.05 and the default 0.1', () => {
    const r = ppiMeanCI({ ...dataA(), alpha: 0.05 });
    close(r, [0.7963444096037741, 0.9954941215833485]);
    expect(r.lambda).toBeCloseTo(0.767354124748491, 12);
    expect(r.estimate).toBeCloseTo(0.8959192655935613, 12);
    close(ppiMeanCI(dataA()), [0.8123534121799804, 0.9794851190071422]);
  });
  it('continuous data, tuned and fixed λ', () => {
    const r = ppiMeanCI({ ...dataB(), alpha: 0.1 });
    close(r, [0.3180805708648786, 0.7377187923896236]);
    expect(r.lambda).toBeCloseTo(0.7968067625460326, 12);
    close(ppiMeanCI({ ...dataB(), alpha: 0.1, lambda: 0.5 }), [0.2538989058678393, 0.7855393575168588]);
  });
  it('λ = 1 (plain PPI) and λ = 0 (classical); a contrary judge clips λ to 0', () => {
    close(ppiMeanCI({ ...dataA(), alpha: 0.05, lambda: 1 }), [0.8105579899389912, 1.0394420100610087]);
    close(ppiMeanCI({ ...dataA(), alpha: 0.05, lambda: 0 }), [0.6760409935390878, 0.9239590064609123]);
    const a = dataA();
    const anti = ppiMeanCI({ ...a, Yhat: a.Yhat.map((y) => 1 - y), alpha: 0.05 });
    expect(anti.lambda).toBe(0);
    close(anti, [0.6760409935390878, 0.9239590064609123]);
  });
  it('sample weights', () => {
    const a = dataA();
    const w = a.Y.map((_, i) => 1 + (i % 3));
    const wUnlabeled = a.YhatUnlabeled.map((_, j) => 1 + (j % 4));
    close(ppiMeanCI({ ...a, alpha: 0.05, w, wUnlabeled }), [0.7731744914243791, 0.919263425548522]);
  });
  it('bad input', () => {
    expect(() => ppiMeanCI({ Y: [], Yhat: [], YhatUnlabeled: [1] })).toThrow(/at least one labelled/);
    expect(() => ppiMeanCI({ Y: [1], Yhat: [1, 0], YhatUnlabeled: [1] })).toThrow(/Y has 1 values but Yhat 2/);
    expect(() => ppiMeanCI({ ...dataA(), alpha: 1 })).toThrow(/alpha/);
    expect(() => ppiMeanCI({ ...dataA(), w: [1] })).toThrow(/w has 1 weights for 40 outputs/);
  });
});

/** Graded outputs with x of m person-PASS among the judge's PASS verdicts and y of k among its FAIL verdicts. */
function graded(x: number, m: number, y: number, k: number, probability?: [number, number]) {
  const out: { judge: boolean; person: boolean; probability?: number }[] = [];
  const pr = (judge: boolean) => (probability ? { probability: judge ? probability[0] : probability[1] } : {});
  for (let i = 0; i < m; i++) out.push({ judge: true, person: i < x, ...pr(true) });
  for (let i = 0; i < k; i++) out.push({ judge: false, person: i < y, ...pr(false) });
  return out;
}

/**
 * Reference values: an independent scalar implementation of the construction in docs/judges.md in Python
 * with SciPy's beta.ppf (not this code, not its special functions), at 95% and 90%.
 */
describe('correctedRate reference values', () => {
  const cases: [string, number, number, [number, number, number, number], [number, number, number], [number, number]][] = [
    // name, judged pass, judged n, graded (x, m, y, k), [rate, low, high] at 95%, [low, high] at 90%
    [
      'graders agree with the judge on all 30',
      1880,
      2000,
      [28, 28, 0, 2],
      [0.94, 0.8234564775633335, 0.9909517870797155],
      [0.8441844746482337, 0.9869271098375508],
    ],
    ['an imperfect judge', 1700, 2000, [45, 47, 3, 13], [0.8484451718494271, 0.7593685566150454, 0.9035377677775922], [0.7721199713529618, 0.8959170145528605]],
    ['no grade among the FAIL verdicts', 1880, 2000, [30, 30, 0, 0], [1, 0.830883749385509, 1], [0.8503869294244215, 1]],
    [
      'a stratified sample',
      1720,
      2000,
      [60, 62, 20, 38],
      [0.9059422750424448, 0.8376422666917381, 0.945315387152077],
      [0.8476816550853447, 0.9400887711043737],
    ],
  ];
  for (const [name, pass, n, [x, m, y, k], [rate, low, high], [low90, high90]] of cases)
    it(name, () => {
      const r = correctedRate({ judged: { pass, n }, graded: graded(x, m, y, k), level: 0.95 })!;
      expect(r.rate).toBeCloseTo(rate, 12);
      expect(r.low).toBeCloseTo(low, 7);
      expect(r.high).toBeCloseTo(high, 7);
      expect(r.grades).toBe(m + k);
      expect(r.method).toBe(CORRECTED_METHOD);
      const r90 = correctedRate({ judged: { pass, n }, graded: graded(x, m, y, k), level: 0.9 })!;
      expect(r90.low).toBeCloseTo(low90, 7);
      expect(r90.high).toBeCloseTo(high90, 7);
    });

  it('a judge that passed everything leaves one verdict: the interval is Clopper–Pearson on the grades', () => {
    const r = correctedRate({ judged: { pass: 2000, n: 2000 }, graded: graded(29, 30, 0, 0), level: 0.95 })!;
    const cp = clopperPearson(29, 30, 0.95)!;
    expect(r.rate).toBeCloseTo(29 / 30, 12);
    expect(r.low).toBeCloseTo(cp.low, 4); // 0.8278; the judged share's own uncertainty (2000 of 2000) adds a little
    expect(r.low).toBeLessThanOrEqual(cp.low);
    expect(r.high).toBeCloseTo(cp.high, 6);
  });
});

describe('correctedRate behaviour', () => {
  it('null without grades', () => {
    expect(correctedRate({ judged: { pass: 10, n: 20 }, graded: [], level: 0.95 })).toBeNull();
  });

  it('the estimate is post-stratified on the judge verdict: q̂·â + (1 − q̂)·b̂', () => {
    const r = correctedRate({ judged: { pass: 900, n: 1000 }, graded: graded(18, 20, 4, 10), level: 0.95 })!;
    expect(r.rate).toBeCloseTo(0.9 * 0.9 + 0.1 * 0.4, 12);
    expect(r.low).toBeLessThan(r.rate);
    expect(r.high).toBeGreaterThan(r.rate);
  });

  it('agreement on every grade does not shrink the interval to the judge’s own rate (the normal PPI interval does)', () => {
    // 30 grades all agreeing with a judge that passes 94%: ppi_py's interval is the judge's, ±0.01.
    const g = graded(28, 28, 0, 2);
    const normal = ppiMeanCI({
      Y: g.map((x) => +x.person),
      Yhat: g.map((x) => +x.judge),
      YhatUnlabeled: Array.from({ length: 1970 }, (_, i) => (i < 1852 ? 1 : 0)),
      alpha: 0.05,
    });
    expect(normal.high - normal.low).toBeLessThan(0.03);
    const r = correctedRate({ judged: { pass: 1880, n: 2000 }, graded: g, level: 0.95 })!;
    expect(r.high - r.low).toBeGreaterThan(0.15);
  });

  it('probabilities constant within each verdict change nothing (post-stratification needs none)', () => {
    const plain = correctedRate({ judged: { pass: 1700, n: 2000 }, graded: graded(45, 47, 3, 13), level: 0.95 })!;
    const stratified = correctedRate({ judged: { pass: 1700, n: 2000 }, graded: graded(45, 47, 3, 13, [47 / 1700, 13 / 300]), level: 0.95 })!;
    expect(stratified).toEqual(plain);
  });

  it('probabilities that differ within a verdict weight its grades (Hájek) and say so', () => {
    const g = graded(45, 47, 3, 13).map((x, i) => ({ ...x, probability: i % 2 ? 0.05 : 0.02 }));
    const r = correctedRate({ judged: { pass: 1700, n: 2000 }, graded: g, level: 0.95 })!;
    expect(r.method).toBe(`${CORRECTED_METHOD}-weighted`);
    // PASS verdicts: people-PASS on indices 0..44 of 47; weights 50 (even), 20 (odd).
    let sw = 0;
    let hit = 0;
    g.slice(0, 47).forEach((x) => {
      sw += 1 / x.probability;
      if (x.person) hit += 1 / x.probability;
    });
    let sw2 = 0;
    let hit2 = 0;
    g.slice(47).forEach((x) => {
      sw2 += 1 / x.probability;
      if (x.person) hit2 += 1 / x.probability;
    });
    expect(r.rate).toBeCloseTo(0.85 * (hit / sw) + 0.15 * (hit2 / sw2), 12);
  });

  it('bad input is refused, naming the field', () => {
    const ok = graded(5, 5, 1, 2);
    expect(() => correctedRate({ judged: { pass: 5, n: 4 }, graded: ok, level: 0.95 })).toThrow(/judged\.pass must be a whole number in \[0, 4\]/);
    expect(() => correctedRate({ judged: { pass: 1, n: 0 }, graded: ok, level: 0.95 })).toThrow(/judged\.n must be a whole number > 0/);
    expect(() => correctedRate({ judged: { pass: 4, n: 10 }, graded: ok, level: 0.95 })).toThrow(
      /5 graded outputs have judge verdict PASS but only 4 judged ones do/,
    );
    expect(() => correctedRate({ judged: { pass: 9, n: 10 }, graded: ok, level: 0.95 })).toThrow(/2 graded outputs have judge verdict FAIL but only 1/);
    expect(() => correctedRate({ judged: { pass: 5, n: 10 }, graded: ok, level: 0 })).toThrow(/level must be in \(0, 1\)/);
    expect(() => correctedRate({ judged: { pass: 5, n: 10 }, graded: [{ judge: true, person: null as never }], level: 0.95 })).toThrow(
      /graded\[0\] must have boolean/,
    );
  });
});

/**
 * Seeded coverage simulation (nothing timed): a few cells of bench:judges, 400 runs each, nominal 95%.
 * Tolerance: corrected coverage ≥ 0.925 — with 400 runs the standard error at 0.95 is 0.011, and the bench
 * measures these cells at 0.96–1.00 with 1,000 runs, so a value below 0.925 means the interval broke.
 */
describe('correctedRate holds its level where the judge alone and the normal PPI interval do not', () => {
  const cells = [
    { p: 0.99, fpr: 0.05, fnr: 0.05, grades: 30, design: 'uniform' as const, seed: 1 },
    { p: 0.95, fpr: 0.3, fnr: 0.1, grades: 100, design: 'stratified' as const, seed: 2 },
    { p: 0.8, fpr: 0.15, fnr: 0.05, grades: 300, design: 'uniform' as const, seed: 3 },
    { p: 0.9, fpr: 0, fnr: 0, grades: 30, design: 'stratified' as const, seed: 4 },
  ];
  for (const c of cells)
    it(`p ${c.p}, judge (${c.fpr}, ${c.fnr}), ${c.grades} grades, ${c.design}`, () => {
      const r = simulateJudgeCell({ ...c, judged: 2000, runs: 400 });
      expect(r.coverage_corrected).toBeGreaterThanOrEqual(0.925);
      if (c.fpr > 0) expect(r.coverage_judge_only).toBeLessThan(0.9);
      if (c.p === 0.99) expect(r.coverage_ppi_normal!).toBeLessThan(0.5); // measured 0.21 at 1,000 runs
    });

  it('the judge buys precision: narrower than the grades alone when it is right 95% of the time', () => {
    const r = simulateJudgeCell({ p: 0.9, fpr: 0.05, fnr: 0.05, grades: 100, judged: 2000, design: 'stratified', runs: 200, seed: 5 });
    expect(r.width_ratio).toBeLessThan(0.85); // bench: 0.65
  });
});
