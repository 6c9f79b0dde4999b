import { describe, expect, it } from 'vitest';
import { interval } from './intervals.js';
import { confidentVerdict, pointVerdict, samplesToDecide, validatorVerdict, zeroFailureSamples } from './verdict.js';

const confident = { mode: 'confident', interval: 'wilson', level: 0.95 } as const;
const point = { mode: 'point', interval: 'wilson', level: 0.95 } as const;

describe('point mode (the paper: rate ≥ minSuccess)', () => {
  it('passes at or above the threshold, fails below', () => {
    expect(validatorVerdict(95, 100, 0.95, point)).toEqual({ verdict: 'pass' });
    expect(validatorVerdict(94, 100, 0.95, point)).toEqual({ verdict: 'fail' });
    expect(validatorVerdict(57, 60, 0.95, point)).toEqual({ verdict: 'pass' }); // 57/60 = 0.95 exactly
    expect(pointVerdict(null, 0.5)).toBe('inconclusive');
    expect(validatorVerdict(0, 0, 0.5, point)).toEqual({ verdict: 'inconclusive' });
  });
});

describe('confident mode (verdict on the interval bounds)', () => {
  it('pass when the lower bound clears minSuccess', () => {
    // Wilson 95% for 48/50 = [0.8654, 0.9890]: low ≥ 0.85.
    expect(validatorVerdict(48, 50, 0.85, confident)).toEqual({ verdict: 'pass' });
  });

  it('fail when the upper bound is below minSuccess', () => {
    // Wilson 95% for 180/200 = [0.8506, 0.9343]: high < 0.95.
    expect(validatorVerdict(180, 200, 0.95, confident)).toEqual({ verdict: 'fail' });
    // ... where point mode would also fail, and the same counts at 0.93 are inconclusive.
    expect(validatorVerdict(180, 200, 0.93, confident).verdict).toBe('inconclusive');
  });

  it('inconclusive with samplesToDecide (reference values by brute force in SciPy)', () => {
    // 48/50 = 0.96 vs 0.9: Wilson [0.8654, 0.9890] straddles 0.9; holding 0.96, 47 more samples
    // (48/50 → 93.12/97) lift the lower bound to ≥ 0.9.
    expect(validatorVerdict(48, 50, 0.9, confident)).toEqual({ verdict: 'inconclusive', samplesToDecide: 47 });
    // 45/50 = 0.90 vs 0.95: Wilson [0.7864, 0.9565]; 23 more push the upper bound below 0.95.
    expect(validatorVerdict(45, 50, 0.95, confident)).toEqual({ verdict: 'inconclusive', samplesToDecide: 23 });
    // Clopper–Pearson is wider: 49 more for 48/50 vs 0.9.
    expect(validatorVerdict(48, 50, 0.9, { ...confident, interval: 'clopper-pearson' }).samplesToDecide).toBe(49);
    // 20/20 straight passes vs 0.95: Wilson needs 53 more, Clopper–Pearson 52 more (72 in all, = ⌈ln 0.025 / ln 0.95⌉).
    expect(samplesToDecide(20, 20, 0.95, 'wilson', 0.95)).toBe(53);
    expect(samplesToDecide(20, 20, 0.95, 'clopper-pearson', 0.95)).toBe(52);
  });

  it('samplesToDecide is the smallest number that decides', () => {
    const m = samplesToDecide(48, 50, 0.9, 'wilson', 0.95)!;
    const p = 48 / 50;
    expect(interval('wilson', p * (50 + m), 50 + m)!.low).toBeGreaterThanOrEqual(0.9);
    expect(interval('wilson', p * (50 + m - 1), 50 + m - 1)!.low).toBeLessThan(0.9);
  });

  it('samplesToDecide edge cases', () => {
    // Observed rate equals minSuccess: no number of samples decides it under the rule.
    expect(validatorVerdict(45, 50, 0.9, confident)).toEqual({ verdict: 'inconclusive' });
    expect(samplesToDecide(45, 50, 0.9, 'wilson', 0.95)).toBeUndefined();
    expect(samplesToDecide(0, 0, 0.9, 'wilson', 0.95)).toBeUndefined();
    // Already decided: 0.
    expect(samplesToDecide(48, 50, 0.9, 'wald', 0.95)).toBe(0);
    // A hair above the threshold: beyond the planning cap.
    expect(samplesToDecide(900_001, 1_000_000, 0.9, 'wilson', 0.95)).toBe(Infinity);
    // No decided cells: inconclusive, no plan.
    expect(validatorVerdict(0, 0, 0.9, confident)).toEqual({ verdict: 'inconclusive' });
  });

  it('confidentVerdict on given bounds; minSuccess is checked', () => {
    expect(confidentVerdict({ low: 0.9, high: 0.99, method: 'wilson', level: 0.95 }, 0.9)).toBe('pass');
    expect(confidentVerdict({ low: 0.8, high: 0.8999, method: 'wilson', level: 0.95 }, 0.9)).toBe('fail');
    expect(confidentVerdict({ low: 0.8, high: 0.9, method: 'wilson', level: 0.95 }, 0.9)).toBe('inconclusive');
    expect(confidentVerdict(null, 0.9)).toBe('inconclusive');
    expect(() => validatorVerdict(1, 2, 1.5, point)).toThrow(RangeError);
  });
});

describe('zero-failure plan', () => {
  it('n = ⌈ln α / ln p0⌉', () => {
    expect(zeroFailureSamples(0.95, 0.95)).toBe(59); // ln 0.05 / ln 0.95 = 58.40
    expect(zeroFailureSamples(0.99, 0.95)).toBe(299); // 298.07
    expect(zeroFailureSamples(0.9, 0.99)).toBe(44); // ln 0.01 / ln 0.9 = 43.71
    expect(zeroFailureSamples(0.5, 0.75)).toBe(2); // ln 0.25 / ln 0.5 = 2 exactly
    expect(() => zeroFailureSamples(1, 0.95)).toThrow(RangeError);
    // The plan does what it says: p0ⁿ ≤ α, p0ⁿ⁻¹ > α.
    const n = zeroFailureSamples(0.97, 0.9);
    expect(0.97 ** n).toBeLessThanOrEqual(0.1);
    expect(0.97 ** (n - 1)).toBeGreaterThan(0.1);
  });
});
