import { describe, expect, it } from 'vitest';
import { interval } from './intervals.js';
import {
  fixedPower,
  fixedSampleSize,
  lowerClears,
  sequentialBoundaries,
  sequentialOperatingCharacteristics,
  sequentialSampleSize,
  upperBelow,
} from './sample-size.js';
import { mulberry32 } from './testing/prng.js';

// Reference values: exact binomial sums (fixed design) and a dynamic programme over the passes (sequential
// design), written out independently in Python.
describe('sample sizes: reference values', () => {
  it('fixed: the first n whose Clopper–Pearson verdict passes with probability ≥ 0.8 at 0.98 vs 0.95', () => {
    const f = fixedSampleSize({ minSuccess: 0.95, expect: 0.98, power: 0.8 })!;
    expect(f.n).toBe(312);
    expect(f.power).toBeCloseTo(0.8234794115315126, 10);
    // Power is saw-toothed in n: just before, it was below the target.
    expect(fixedPower(311, 0.98, 0.95)).toBeLessThan(0.8);
  });

  it('sequential: max_n and expected_n of the design planned for 0.98 (and for a failing 0.90)', () => {
    const s = sequentialSampleSize({ minSuccess: 0.95, expect: 0.98, power: 0.8 })!;
    expect(s.max_n).toBe(431);
    expect(s.expected_n).toBeCloseTo(276.0214473620315, 8);
    expect(s.power).toBeCloseTo(0.812220341808016, 10);
    const f = sequentialSampleSize({ minSuccess: 0.95, expect: 0.9, power: 0.975 })!;
    expect(f.max_n).toBe(605);
    expect(f.expected_n).toBeCloseTo(195.80851108829103, 8);
  });

  it('the Clopper–Pearson tail identity agrees with the interval itself', () => {
    for (const n of [1, 7, 40, 200])
      for (let x = 0; x <= n; x += Math.max(1, Math.floor(n / 13)))
        for (const m of [0.5, 0.9, 0.95, 0.99]) {
          const ci = interval('clopper-pearson', x, n, 0.95)!;
          expect(lowerClears('clopper-pearson', x, n, 0.95, m)).toBe(ci.low >= m);
          expect(upperBelow('clopper-pearson', x, n, 0.95, m)).toBe(ci.high < m);
        }
  });

  it('checks its arguments', () => {
    expect(() => fixedSampleSize({ minSuccess: 0.95, expect: 0.95, power: 0.8 })).toThrow(/differ/);
    expect(() => fixedSampleSize({ minSuccess: 0.95, expect: 1.2, power: 0.8 })).toThrow(/expect/);
    expect(() => sequentialSampleSize({ minSuccess: 0.95, expect: 0.98, power: 1 })).toThrow(/power/);
  });
});

describe('sequential operating characteristics (exact, and by seeded simulation)', () => {
  it('a simulated design run matches the exact figures', () => {
    const cap = 431;
    const exact = sequentialOperatingCharacteristics(0.98, 0.95, 0.95, cap, 0.98);
    const { passAt, failAt } = sequentialBoundaries(0.95, 0.95, cap, 0.98);
    const rand = mulberry32(9);
    const runs = 2000;
    let calls = 0;
    let passed = 0;
    for (let r = 0; r < runs; r++) {
      let S = 0;
      for (let t = 1; t <= cap; t++) {
        if (rand() < 0.98) S++;
        if (S >= passAt[t]) {
          passed++;
          calls += t;
          break;
        }
        if (S <= failAt[t] || t === cap) {
          calls += t;
          break;
        }
      }
    }
    expect(Math.abs(calls / runs - exact.expected_n)).toBeLessThan(5); // sd of min(T, 431) ≈ 90: se ≈ 2
    expect(Math.abs(passed / runs - exact.pass)).toBeLessThan(0.03);
    expect(exact.pass + exact.fail + exact.undecided).toBeCloseTo(1, 12);
  });

  it('at minSuccess itself each side of the sequence is crossed with probability ≤ α/2 over 20,000 checks (Ville)', () => {
    const oc = sequentialOperatingCharacteristics(0.95, 0.95, 0.95, 20_000);
    expect(oc.pass).toBeLessThanOrEqual(0.025);
    expect(oc.fail).toBeLessThanOrEqual(0.025);
  });
});
