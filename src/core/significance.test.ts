import { describe, expect, it } from 'vitest';
import { compareProportions, fisherExact, newcombeInterval, twoProportionZTest } from './significance.js';
import { argumentErrorOf } from '../testing/errors.js';

describe('two-proportion z-test (pooled, two-sided)', () => {
  it('by hand: 85/100 → 95/100', () => {
    // pooled p = 180/200 = 0.9; SE = √(0.9·0.1·(1/100 + 1/100)) = √0.0018 = 0.0424264;
    // z = (0.95 − 0.85) / 0.0424264 = 2.3570226; p = 2·(1 − Φ(2.3570)) = 0.0184221
    const r = twoProportionZTest({ pass: 85, n: 100 }, { pass: 95, n: 100 })!;
    expect(r.z).toBeCloseTo(2.3570226, 6);
    expect(r.pValue).toBeCloseTo(0.0184221, 6);
    // Swapping the runs flips the sign, not the p-value.
    const s = twoProportionZTest({ pass: 95, n: 100 }, { pass: 85, n: 100 })!;
    expect(s.z).toBeCloseTo(-2.3570226, 6);
    expect(s.pValue).toBeCloseTo(r.pValue, 12);
  });

  it('second case: 48/80 → 56/70 gives z = 2.6502, p = 0.008045', () => {
    const r = twoProportionZTest({ pass: 48, n: 80 }, { pass: 56, n: 70 })!;
    expect(r.z).toBeCloseTo(2.65017, 4);
    expect(r.pValue).toBeCloseTo(0.0080451, 6);
  });

  it('degenerate: no variance → z 0, p 1; an empty side → null', () => {
    expect(twoProportionZTest({ pass: 10, n: 10 }, { pass: 20, n: 20 })).toEqual({ z: 0, pValue: 1 });
    expect(twoProportionZTest({ pass: 0, n: 0 }, { pass: 2, n: 20 })).toBeNull();
    expect(argumentErrorOf(() => twoProportionZTest({ pass: 3, n: 2 }, { pass: 1, n: 2 })).where).toEqual({ key: 'a' });
  });
});

describe("Fisher's exact test (two-sided, as R's fisher.test)", () => {
  it('reference values (SciPy fisher_exact, which matches R)', () => {
    expect(fisherExact({ pass: 3, n: 4 }, { pass: 1, n: 4 })).toBeCloseTo(0.4857142857, 9); // [[3,1],[1,3]] = 34/70
    expect(fisherExact({ pass: 10, n: 12 }, { pass: 3, n: 18 })).toBeCloseTo(0.0005367241191, 12);
    expect(fisherExact({ pass: 0, n: 5 }, { pass: 5, n: 5 })).toBeCloseTo(0.0079365079365, 12); // 2/252
    expect(fisherExact({ pass: 50, n: 100 }, { pass: 30, n: 100 })).toBeCloseTo(0.005937341166, 11);
    expect(fisherExact({ pass: 1, n: 10 }, { pass: 11, n: 14 })).toBeCloseTo(0.00275945618522, 12);
    expect(fisherExact({ pass: 95, n: 100 }, { pass: 85, n: 100 })).toBeCloseTo(0.03172003908631, 11);
  });

  it('identical tables give p = 1; very unlikely tables give tiny p without overflow', () => {
    expect(fisherExact({ pass: 5, n: 10 }, { pass: 5, n: 10 })).toBeCloseTo(1, 12);
    const p = fisherExact({ pass: 0, n: 3000 }, { pass: 3000, n: 3000 });
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(1e-300);
  });
});

describe("Newcombe's hybrid score interval for pB − pA", () => {
  it("reproduces Newcombe (1998) method 10's published examples", () => {
    // Newcombe's examples are for p1 − p2; here a = the second proportion, b = the first.
    const cases: [number, number, number, number, number, number][] = [
      [56, 70, 48, 80, 0.0524, 0.3339],
      [9, 10, 3, 10, 0.1705, 0.809],
      [6, 7, 2, 7, 0.0582, 0.8062],
      [5, 56, 0, 29, -0.0381, 0.1926],
    ];
    for (const [x1, n1, x2, n2, low, high] of cases) {
      const ci = newcombeInterval({ pass: x2, n: n2 }, { pass: x1, n: n1 })!;
      expect(Number(ci.low.toFixed(4))).toBe(low);
      expect(Number(ci.high.toFixed(4))).toBe(high);
    }
  });

  it('is clipped to [−1, 1] and null for an empty side', () => {
    const ci = newcombeInterval({ pass: 0, n: 20 }, { pass: 10, n: 10 })!;
    expect(ci.low).toBeCloseTo(0.6790860371, 9);
    expect(ci.high).toBe(1);
    expect(newcombeInterval({ pass: 0, n: 0 }, { pass: 1, n: 1 })).toBeNull();
  });
});

describe('compareProportions', () => {
  it('large counts: the z-test decides; a significant drop is "worse"', () => {
    const r = compareProportions({ pass: 95, n: 100 }, { pass: 85, n: 100 });
    expect(r.diff).toBeCloseTo(-0.1, 15);
    expect(r.test).toBe('z'); // expected fail counts are 10 and 10, none below 5
    expect(r.pValue).toBeCloseTo(0.0184221, 6);
    expect(r.fisherP).toBeCloseTo(0.0317200391, 9);
    expect(r.significant).toBe(true);
    expect(r.direction).toBe('worse');
    expect(r.ci!.high).toBeLessThan(0);
  });

  it('small counts: Fisher decides (an expected count below 5)', () => {
    // [[3,1],[1,3]]: expected counts are all 2 → Fisher, p = 0.4857, not significant
    const r = compareProportions({ pass: 3, n: 4 }, { pass: 1, n: 4 });
    expect(r.test).toBe('fisher');
    expect(r.pValue).toBeCloseTo(0.4857142857, 9);
    // z = (0.25 − 0.75) / √(0.5·0.5·(1/4 + 1/4)) = −1.4142, p = 0.1573: the normal approximation is far too bold
    expect(r.z!.z).toBeCloseTo(-Math.SQRT2, 12);
    expect(r.z!.pValue).toBeCloseTo(0.1572992, 6);
    expect(r.significant).toBe(false);
    expect(r.direction).toBe('unchanged');
    // 40/50 → 48/50: pooled 0.88, SE = √(0.88·0.12·0.04) = 0.06499, z = 0.16 / 0.06499 = 2.4618, p = 0.013823;
    // expected fail counts are 6 and 6 → z-test; significant at 95%, not at 99%
    const s = compareProportions({ pass: 40, n: 50 }, { pass: 48, n: 50 }, 0.95);
    expect(s.test).toBe('z');
    expect(s.pValue).toBeCloseTo(0.013823, 6);
    expect(s.direction).toBe('better');
    expect(compareProportions({ pass: 40, n: 50 }, { pass: 48, n: 50 }, 0.99).significant).toBe(false);
  });

  it('an empty side: nothing to compare', () => {
    const r = compareProportions({ pass: 0, n: 0 }, { pass: 3, n: 4 });
    expect(r).toMatchObject({ diff: null, ci: null, pValue: null, test: null, significant: false, direction: 'unchanged' });
    expect(r.b.rate).toBe(0.75);
    expect(argumentErrorOf(() => compareProportions({ pass: 1, n: 2 }, { pass: 1, n: 2 }, 95)).where).toEqual({ key: 'level' });
  });
});
