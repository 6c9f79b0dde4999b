import { describe, expect, it } from 'vitest';
import { exactCoverage, wrongVerdictProbability } from './coverage.js';
import { clopperPearson, interval, wald, wilson } from './intervals.js';
import type { Interval } from './rate-types.js';
import { binomial, mulberry32 } from './testing/prng.js';
import { argumentErrorOf } from '../testing/errors.js';

const bounds = (ci: Interval | null, digits = 4) => {
  expect(ci).not.toBeNull();
  return [Number(ci!.low.toFixed(digits)), Number(ci!.high.toFixed(digits))];
};

describe('interval reference values (95%)', () => {
  it("the issue's three", () => {
    expect(bounds(clopperPearson(0, 10, 0.95))).toEqual([0, 0.3085]);
    expect(bounds(wilson(95, 100, 0.95))).toEqual([0.8882, 0.9785]);
    expect(bounds(wald(95, 100, 0.95))).toEqual([0.9073, 0.9927]);
  });

  it('more Clopper–Pearson values (SciPy beta.ppf)', () => {
    expect(bounds(clopperPearson(5, 10))).toEqual([0.1871, 0.8129]);
    expect(bounds(clopperPearson(10, 10))).toEqual([0.6915, 1]);
    expect(bounds(clopperPearson(95, 100))).toEqual([0.8872, 0.9836]);
    expect(bounds(clopperPearson(7, 30))).toEqual([0.0993, 0.4228]);
    expect(bounds(clopperPearson(0, 1))).toEqual([0, 0.975]);
    expect(bounds(clopperPearson(3, 20, 0.9))).toEqual([0.0422, 0.3437]);
    expect(bounds(clopperPearson(3, 20, 0.99))).toEqual([0.0176, 0.4495]);
    expect(clopperPearson(1, 1000)!.low).toBeCloseTo(2.5317487491294065e-5, 12);
  });

  it('more Wilson and Wald values', () => {
    expect(bounds(wilson(0, 10))).toEqual([0, 0.2775]);
    expect(bounds(wilson(10, 10))).toEqual([0.7225, 1]);
    expect(bounds(wilson(5, 10))).toEqual([0.2366, 0.7634]);
    expect(bounds(wilson(47, 50))).toEqual([0.8378, 0.9794]);
    expect(bounds(wald(5, 10))).toEqual([0.1901, 0.8099]);
    expect(bounds(wald(7, 30))).toEqual([0.082, 0.3847]);
  });

  it('Wald collapses at the edges and is clipped to [0, 1]; Wilson does not collapse', () => {
    expect(bounds(wald(10, 10))).toEqual([1, 1]);
    expect(bounds(wald(0, 10))).toEqual([0, 0]);
    expect(wald(47, 50)!.high).toBe(1); // unclipped: 1.0058
    expect(wald(1, 1000)!.low).toBe(0); // unclipped: −0.00096
    expect(wilson(10, 10)!.low).toBeLessThan(1);
  });

  it('n = 0 gives null; bad arguments throw; dispatch by method', () => {
    expect(wilson(0, 0)).toBeNull();
    expect(interval('clopper-pearson', 0, 0)).toBeNull();
    expect(argumentErrorOf(() => wilson(11, 10)).where).toEqual({ key: 'x' });
    expect(argumentErrorOf(() => wilson(1, 10, 1)).where).toEqual({ key: 'level' });
    expect(() => interval('bogus' as never, 1, 2)).toThrow(/unknown method/);
    expect(interval('wald', 95, 100)).toEqual(wald(95, 100));
    expect(interval('clopper-pearson', 5, 10, 0.9)).toEqual({ ...clopperPearson(5, 10, 0.9)!, method: 'clopper-pearson', level: 0.9 });
  });

  it('higher levels give wider intervals', () => {
    for (const method of ['wilson', 'clopper-pearson', 'wald'] as const) {
      const a = interval(method, 30, 50, 0.9)!;
      const b = interval(method, 30, 50, 0.99)!;
      expect(b.low).toBeLessThan(a.low);
      expect(b.high).toBeGreaterThan(a.high);
    }
  });
});

/** Share of `runs` seeded Binomial(n, p) experiments whose interval contains p. */
function coverage(method: 'wilson' | 'clopper-pearson' | 'wald', p: number, n: number, runs: number, seed: number): number {
  const rand = mulberry32(seed);
  let hits = 0;
  for (let r = 0; r < runs; r++) {
    const ci = interval(method, binomial(rand, n, p), n, 0.95)!;
    if (ci.low <= p && p <= ci.high) hits++;
  }
  return hits / runs;
}

describe('seeded coverage simulation (2,000 experiments)', () => {
  // Exact coverages (sum of binomial probabilities of the x whose interval holds p), for comparison:
  // p = 0.9, n = 50: Wilson 0.9703, Clopper–Pearson 0.9703; p = 0.98, n = 30: Wald 0.4542, Wilson 0.9783.
  // Wald's is that low because 0.98³⁰ = 0.545 of experiments see 30/30 and get the empty-width [1, 1].
  it('Wilson and Clopper–Pearson cover p = 0.9 at n = 50 in ≥ 93% of experiments', () => {
    const w = coverage('wilson', 0.9, 50, 2000, 1);
    const cp = coverage('clopper-pearson', 0.9, 50, 2000, 2);
    console.log(`coverage at p=0.9, n=50 (nominal 0.95): wilson=${w.toFixed(4)} clopper-pearson=${cp.toFixed(4)}`);
    expect(w).toBeGreaterThanOrEqual(0.93);
    expect(cp).toBeGreaterThanOrEqual(0.93);
  });

  it('Wald under-covers at p = 0.98, n = 30 (measured and reported)', () => {
    const wd = coverage('wald', 0.98, 30, 2000, 3);
    const w = coverage('wilson', 0.98, 30, 2000, 3);
    console.log(`coverage at p=0.98, n=30 (nominal 0.95): wald=${wd.toFixed(4)} wilson=${w.toFixed(4)}`);
    expect(wd).toBeLessThan(0.95);
    expect(wd).toBeLessThan(0.9);
    expect(Math.abs(wd - 0.4542)).toBeLessThan(0.04);
    expect(w).toBeGreaterThan(wd);
  });
});

// Exact coverages (Σ over x of the binomial probabilities of the x whose interval holds p), checked
// against an independent Python computation (mpmath bisection on exact binomial tails for Clopper–Pearson).
describe('exact coverage: why Clopper–Pearson is the default', () => {
  it('reference values at nominal 95%', () => {
    expect(exactCoverage('wilson', 0.95, 20)).toBeCloseTo(0.9245, 4);
    expect(exactCoverage('wilson', 0.99, 50)).toBeCloseTo(0.9106, 4);
    expect(exactCoverage('clopper-pearson', 0.95, 20)).toBeCloseTo(0.9841, 4);
    expect(exactCoverage('clopper-pearson', 0.99, 50)).toBeCloseTo(0.9862, 4);
    expect(exactCoverage('wald', 0.98, 30)).toBeCloseTo(0.4542, 4);
  });

  it("Wilson's confident verdict fails a validator at p = 0.99, n = 50, minSuccess 0.99 in 8.9% of runs; Clopper–Pearson's in 1.4%", () => {
    expect(wrongVerdictProbability('wilson', 0.99, 50, 0.99)).toBeCloseTo(0.089435313096, 9);
    expect(wrongVerdictProbability('clopper-pearson', 0.99, 50, 0.99)).toBeCloseTo(0.013817270831, 9);
  });

  it('Clopper–Pearson holds 95% for every p on a fine grid, n = 5 … 60; Wilson does not', () => {
    let cpMin = 1;
    let wilsonMin = 1;
    for (const n of [5, 10, 20, 30, 45, 60]) {
      for (let p = 0.002; p < 1; p += 0.002) {
        cpMin = Math.min(cpMin, exactCoverage('clopper-pearson', p, n));
        wilsonMin = Math.min(wilsonMin, exactCoverage('wilson', p, n));
      }
    }
    console.log(`minimum exact coverage over p, n = 5 … 60: clopper-pearson ${cpMin.toFixed(4)}, wilson ${wilsonMin.toFixed(4)}`);
    expect(cpMin).toBeGreaterThanOrEqual(0.95);
    expect(wilsonMin).toBeLessThan(0.9);
  });
});
