import { describe, expect, it } from 'vitest';
import { meetsConfidence, minAttempts, mixtureMinAttempts, pFailAll, planFromRates, pPassFromRates, pSuccessWithin } from './retry.js';
import { argumentErrorOf } from '../testing/errors.js';

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
    expect(pSuccessWithin(plan.p_pass, 3)).toBeCloseTo(0.9796, 4);
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
    // Tiny rates: m beyond 2^53 is not representable exactly (m - 1 === m); answer null instead of looping forever.
    expect(minAttempts(1e-17, 0.99)).toBeNull();
    expect(minAttempts(1e-300, 0.99)).toBeNull();
    for (const p of [0.01, 0.1, 0.33, 0.72675, 0.97]) {
      for (const c of [0.5, 0.9, 0.95, 0.99, 0.999]) {
        const m = minAttempts(p, c)!;
        expect(pSuccessWithin(p, m)).toBeGreaterThanOrEqual(c - 1e-12);
        if (m > 1) expect(pSuccessWithin(p, m - 1)).toBeLessThan(c);
      }
    }
  });

  it('does not stop early for confidences very close to 1', () => {
    // 0.5^m ≤ 1e-15 needs m = 50; an absolute 1e-12 tolerance on the success side would stop at 40.
    expect(minAttempts(0.5, 1 - 1e-15)).toBe(50);
    expect(pFailAll(0.5, 50)).toBeLessThanOrEqual(1e-15 * (1 + 1e-9));
    expect(pFailAll(0.5, 49)).toBeGreaterThan(1e-15);
    expect(mixtureMinAttempts([0.5, 0.5], 1 - 1e-15)).toBe(50);
    expect(meetsConfidence(0.01, 0.99)).toBe(true);
    expect(meetsConfidence(0.0100001, 0.99)).toBe(false);
  });

  it('handles P_pass = 0 and the empty product, and rejects bad input', () => {
    const zero = planFromRates([0.9, 0], 0.99);
    expect(zero).toMatchObject({ p_pass: 0, expected_attempts: null, expected_retries: null, m: null, p_success_within_m: null });
    expect(pPassFromRates([])).toBe(1);
    expect(() => planFromRates([0.9, 1.2], 0.99)).toThrow(/rate 2 .*1\.2/);
    expect(argumentErrorOf(() => planFromRates([Number.NaN], 0.99)).where).toEqual({ key: 'rates' });
    expect(() => planFromRates([0.9], 1)).toThrow(/confidence/);
    expect(() => planFromRates([0.9], 0)).toThrow(/confidence/);
  });

  it('solves the mixture m over inputs, and knows when it is unreachable', () => {
    expect(mixtureMinAttempts([0.5], 0.99)).toBe(minAttempts(0.5, 0.99));
    expect(mixtureMinAttempts([1, 0], 0.9)).toBeNull();
    expect(mixtureMinAttempts([1, 1, 1, 1, 1, 1, 1, 1, 1, 1e-3], 0.9)).toBe(1);
    expect(mixtureMinAttempts([], 0.9)).toBeNull();
    const m = mixtureMinAttempts([0.9, 0.2], 0.95)!;
    const mean = (k: number) => (pSuccessWithin(0.9, k) + pSuccessWithin(0.2, k)) / 2;
    expect(mean(m)).toBeGreaterThanOrEqual(0.95);
    expect(mean(m - 1)).toBeLessThan(0.95);
    // A mixture needs more attempts than its mean rate suggests (Jensen): 0.9 and 0.2 average 0.55.
    expect(m).toBeGreaterThan(minAttempts(0.55, 0.95)!);
  });
});
