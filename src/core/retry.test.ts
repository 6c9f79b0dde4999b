import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from './outcome.js';
import { wilson as wilsonInterval } from './intervals.js';
import {
  binomialTest,
  minAttempts,
  mixtureMinAttempts,
  phiCoefficient,
  planFromRates,
  planFromTensor,
  pPassFromRates,
  pSuccessWithin,
} from './retry.js';
import { ReliabilityTensor } from './tensor.js';

const { PASS: P, FAIL: F, ERROR: E } = Outcome;

function tensorOf(rows: OutcomeCode[][][]): ReliabilityTensor {
  const t = new ReliabilityTensor(rows.length, rows[0].length, rows[0][0].length);
  rows.forEach((samples, i) => samples.forEach((cells, j) => cells.forEach((c, k) => t.set(i, j, k, c))));
  return t;
}

describe('the geometric model from rates (§4.2.2)', () => {
  it("reproduces the paper's worked example and corrects its m", () => {
    const plan = planFromRates([0.95, 0.9, 0.85], 0.99);
    expect(plan.p_pass).toBeCloseTo(0.72675, 12);
    expect(plan.expected_attempts).toBeCloseTo(1.376, 3);
    expect(plan.expected_retries).toBeCloseTo(0.376, 3);
    // ln(0.01)/ln(0.27325) = 3.5496, not the paper's 2.74: four attempts are needed, not three.
    expect(Math.log(0.01) / Math.log(1 - plan.p_pass)).toBeCloseTo(3.5496, 4);
    expect(plan.m).toBe(4);
    expect(plan.p_success_within_m).toBeCloseTo(1 - 0.27325 ** 4, 12);
    expect(plan.p_success_within_m!).toBeGreaterThanOrEqual(0.99);
    // The paper's m = 3 falls short of 99%.
    expect(pSuccessWithin(plan.p_pass, 3)).toBeCloseTo(0.97960, 5);
    expect(pSuccessWithin(plan.p_pass, 3)).toBeLessThan(0.99);
  });

  it('finds the smallest m, including exact boundaries', () => {
    expect(minAttempts(0.9, 0.99)).toBe(2); // 1 − 0.1² = 0.99 exactly
    expect(minAttempts(0.5, 0.75)).toBe(2);
    expect(minAttempts(0.5, 0.99)).toBe(7);
    expect(minAttempts(1, 0.999)).toBe(1);
    expect(minAttempts(0.99, 0.5)).toBe(1);
    expect(minAttempts(0, 0.9)).toBeNull();
    expect(minAttempts(1e-6, 0.99)).toBe(Math.ceil(Math.log(0.01) / Math.log1p(-1e-6)));
    for (const p of [0.01, 0.1, 0.33, 0.72675, 0.97]) {
      for (const c of [0.5, 0.9, 0.95, 0.99, 0.999]) {
        const m = minAttempts(p, c)!;
        expect(pSuccessWithin(p, m)).toBeGreaterThanOrEqual(c - 1e-12);
        if (m > 1) expect(pSuccessWithin(p, m - 1)).toBeLessThan(c);
      }
    }
  });

  it('handles P_pass = 0 and the empty product, and rejects bad input', () => {
    const zero = planFromRates([0.9, 0], 0.99);
    expect(zero).toMatchObject({ p_pass: 0, expected_attempts: null, expected_retries: null, m: null, p_success_within_m: null });
    expect(pPassFromRates([])).toBe(1);
    expect(() => planFromRates([0.9, 1.2], 0.99)).toThrow(/rate 2 .*1\.2/);
    expect(() => planFromRates([Number.NaN], 0.99)).toThrow(RangeError);
    expect(() => planFromRates([0.9], 1)).toThrow(/confidence/);
    expect(() => planFromRates([0.9], 0)).toThrow(/confidence/);
  });
});

describe('tests used by the independence check, against reference values (scipy)', () => {
  it('exact binomial test', () => {
    expect(binomialTest(7, 20, 0.6)).toBeCloseTo(0.036990090267779406, 10);
    expect(binomialTest(45, 50, 0.72675)).toBeCloseTo(0.0040049676640193585, 10);
    expect(binomialTest(0, 10, 0.3)).toBeCloseTo(0.0388396033, 8);
    expect(binomialTest(3, 3, 1)).toBe(1);
    expect(binomialTest(2, 3, 1)).toBe(0);
  });
  it('phi coefficient', () => {
    expect(phiCoefficient(10, 0, 0, 10)).toBe(1);
    expect(phiCoefficient(5, 5, 5, 5)).toBe(0);
    expect(phiCoefficient(0, 0, 3, 4)).toBe(0);
    expect(phiCoefficient(10, 2, 3, 15)).toBeCloseTo((150 - 6) / Math.sqrt(12 * 18 * 13 * 17), 12);
  });
});

describe('the planner over a tensor (§4.2.3)', () => {
  // Input 0: (P,P) (P,F) (P,P) (E,P); input 1: (F,F) (P,P) (P,P) (P,P).
  const t = tensorOf([
    [[P, P], [P, F], [P, P], [E, P]],
    [[F, F], [P, P], [P, P], [P, P]],
  ]);

  it('gives per-input figures with intervals, excluding undecided samples', () => {
    const plan = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] });
    const [i0, i1] = plan.inputs;
    expect(i0).toMatchObject({ samples: 3, all_pass: 2, errors: 1, pending: 0, m: 5 });
    expect(i0.p_pass).toBeCloseTo(2 / 3, 12);
    expect(i0.expected_attempts).toBeCloseTo(1.5, 12);
    expect(i1).toMatchObject({ samples: 4, all_pass: 3, errors: 0, m: 4 });
    expect(i1.expected_attempts).toBeCloseTo(4 / 3, 12);
    // Intervals on P_pass,i propagate to E[attempts]_i and m_i (both decrease in P_pass).
    const w = wilsonInterval(2, 3, 0.95)!;
    expect(i0.p_pass_ci).toEqual(w);
    expect(i0.expected_attempts_ci!.low).toBeCloseTo(1 / w.high, 12);
    expect(i0.expected_attempts_ci!.high).toBeCloseTo(1 / w.low, 12);
    expect(i0.m_ci).toEqual({ low: minAttempts(w.high, 0.99), high: minAttempts(w.low, 0.99) });
    expect(i0.m_ci!.low!).toBeLessThanOrEqual(5);
    expect(i0.m_ci!.high!).toBeGreaterThanOrEqual(5);
  });

  it('gives the global product, joint and per-input mixture figures', () => {
    const plan = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] });
    expect(plan.validators.map((v) => v.rate)).toEqual([6 / 7, 6 / 8]);
    expect(plan.validators[0]).toMatchObject({ pass: 6, fail: 1, error: 1 });
    expect(plan.product!.p_pass).toBeCloseTo((6 / 7) * 0.75, 12);
    expect(plan.joint!).toMatchObject({ samples: 7, all_pass: 5 });
    expect(plan.joint!.p_pass).toBeCloseTo(5 / 7, 12);
    expect(plan.per_input!.expected_attempts).toBeCloseTo((1.5 + 4 / 3) / 2, 12);
    expect(plan.per_input!.m).toBe(4);
    expect(plan.per_input!.max_m).toBe(5);
    expect(plan.per_input!.p_success_within_m).toBeCloseTo((2 - 3 ** -4 - 4 ** -4) / 2, 12);
  });

  it("counts errors as failures under the 'fail' policy", () => {
    const plan = planFromTensor(t, { confidence: 0.99, errors: 'fail' });
    expect(plan.inputs[0]).toMatchObject({ samples: 4, all_pass: 2, errors: 0 });
    expect(plan.validators[0].rate).toBeCloseTo(6 / 8, 12);
  });

  it('runs the independence check on complete samples', () => {
    const ind = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] }).independence;
    expect(ind).toMatchObject({ samples: 7, observed_all_pass: 5 });
    expect(ind.product_rate).toBeCloseTo(30 / 49, 12);
    expect(ind.p_value).toBeCloseTo(0.7132910132603334, 9);
    expect(ind.independent).toBe(true);
    expect(ind.pairs).toHaveLength(1);
    expect(ind.pairs[0].table).toEqual([5, 1, 0, 1]);
    expect(ind.pairs[0].p_value).toBeCloseTo(0.2857142857142857, 10);
    expect(ind.flagged_validators).toEqual([]);
  });

  it('flags validators that fail together and leaves an independent one alone', () => {
    // 3 validators over 400 samples: a and b fail together 20% of the time; c fails on its own, 20%.
    let s = 7;
    const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
    const rows: OutcomeCode[][][] = [Array.from({ length: 400 }, () => {
      const ab = rnd() < 0.2 ? F : P;
      return [ab, ab, rnd() < 0.2 ? F : P];
    })];
    const ind = planFromTensor(tensorOf(rows), { confidence: 0.99, names: ['a', 'b', 'c'] }).independence;
    expect(ind.independent).toBe(false);
    expect(ind.ratio!).toBeGreaterThan(1.1);
    expect(ind.flagged_validators).toEqual(['a', 'b']);
    const ab = ind.pairs.find((p) => p.a === 0 && p.b === 1)!;
    expect(ab.phi).toBeCloseTo(1, 12);
    expect(ind.pairs.filter((p) => p.flagged)).toHaveLength(1);
  });

  it('reports pending samples and tolerates an empty run', () => {
    const partial = new ReliabilityTensor(1, 2, 1);
    partial.set(0, 0, 0, P);
    const plan = planFromTensor(partial, { confidence: 0.9 });
    expect(plan.inputs[0]).toMatchObject({ samples: 1, pending: 1, p_pass: 1, m: 1 });
    const empty = planFromTensor(new ReliabilityTensor(1, 1, 1), { confidence: 0.9 });
    expect(empty.joint).toBeNull();
    expect(empty.product).toBeNull();
    expect(empty.inputs[0].p_pass).toBeNull();
  });

  it('solves the mixture m over inputs, and knows when it is unreachable', () => {
    expect(mixtureMinAttempts([0.5], 0.99)).toBe(minAttempts(0.5, 0.99));
    expect(mixtureMinAttempts([1, 0], 0.9)).toBeNull();
    expect(mixtureMinAttempts([1, 1, 1, 1, 1, 1, 1, 1, 1, 1e-3], 0.9)).toBe(1);
    const m = mixtureMinAttempts([0.9, 0.2], 0.95)!;
    const mean = (k: number) => (pSuccessWithin(0.9, k) + pSuccessWithin(0.2, k)) / 2;
    expect(mean(m)).toBeGreaterThanOrEqual(0.95);
    expect(mean(m - 1)).toBeLessThan(0.95);
  });
});
