import { describe, expect, it } from 'vitest';
import { binomialTest, independenceCheck, phiCoefficient } from './independence.js';
import { convolve, intersectionDistribution, twoSidedPValue } from './intersection.js';
import { ReliabilityTensor } from './tensor.js';
import { tensorOf } from './testing/fixtures.js';
import { mulberry32 } from './testing/prng.js';
import { argumentErrorOf } from '../testing/errors.js';

const P = 'P';
const F = 'F';
/** Simulated samples as the fixture's strings: one letter per validator. */
const cells = (rows: string[][][]) => rows.map((samples) => samples.map((c) => c.join('')));

const names = (k: number) => ['a', 'b', 'c'][k];

describe('tests used by the independence check, against reference values (R / scipy)', () => {
  it('exact binomial test', () => {
    expect(binomialTest(7, 20, 0.6)).toBeCloseTo(0.036990090267779406, 10);
    expect(binomialTest(45, 50, 0.72675)).toBeCloseTo(0.0040049676640193585, 10);
    expect(binomialTest(0, 10, 0.3)).toBeCloseTo(0.0388396033, 8);
    expect(binomialTest(3, 3, 1)).toBe(1);
    expect(binomialTest(2, 3, 1)).toBe(0);
    expect(binomialTest(0, 0, 0.5)).toBe(1);
  });
  it('phi coefficient', () => {
    expect(phiCoefficient(10, 0, 0, 10)).toBe(1);
    expect(phiCoefficient(5, 5, 5, 5)).toBe(0);
    expect(phiCoefficient(0, 0, 3, 4)).toBe(0);
    expect(phiCoefficient(10, 2, 3, 15)).toBeCloseTo((150 - 6) / Math.sqrt(12 * 18 * 13 * 17), 12);
  });
});

describe('independenceCheck', () => {
  it('flags validators that fail together and leaves an independent one alone', () => {
    // 3 validators over 400 samples: a and b fail together 20% of the time; c fails on its own, 20%.
    const rnd = mulberry32(7);
    const rows = [
      Array.from({ length: 400 }, () => {
        const ab = rnd() < 0.2 ? F : P;
        return [ab, ab, rnd() < 0.2 ? F : P];
      }),
    ];
    const ind = independenceCheck(tensorOf(cells(rows)), 'exclude', 0.01, names);
    expect(ind.independent).toBe(false);
    expect(ind.ratio!).toBeGreaterThan(1.1);
    expect(ind.within_input!.p_value).toBeLessThan(0.01);
    expect(ind.flagged_validators).toEqual(['a', 'b']);
    const ab = ind.pairs.find((p) => p.a === 0 && p.b === 1)!;
    expect(ab.phi).toBeCloseTo(1, 12);
    expect(ind.pairs.filter((p) => p.flagged)).toHaveLength(1);
  });

  it('tells inputs of unequal difficulty apart from validators failing together', () => {
    // Within each input the three validators are independent, but input 0 passes each 99% of the time and
    // input 1 only 30%: pooled, the product of marginals mispredicts; per input, it does not.
    const rnd = mulberry32(11);
    const rows = [0.99, 0.3].map((p) => Array.from({ length: 300 }, () => [0, 1, 2].map(() => (rnd() < p ? P : F))));
    const ind = independenceCheck(tensorOf(cells(rows)), 'exclude', 0.01, names);
    expect(ind.independent).toBe(false);
    expect(ind.p_value).toBeLessThan(1e-6);
    expect(ind.within_input!.p_value).toBeGreaterThan(0.01);
    expect(ind.within_input!.independent).toBe(true);
  });

  it('does not fire on independent validators', () => {
    const rnd = mulberry32(3);
    const rows = [Array.from({ length: 500 }, () => [0.9, 0.8, 0.7].map((p) => (rnd() < p ? P : F)))];
    const ind = independenceCheck(tensorOf(cells(rows)), 'exclude', 0.01, names);
    expect(ind.independent).toBe(true);
    expect(ind.flagged_validators).toEqual([]);
    expect(ind.ratio!).toBeGreaterThan(0.9);
    expect(ind.ratio!).toBeLessThan(1.1);
  });

  it('has nothing to test with one validator or no decided sample', () => {
    const one = independenceCheck(tensorOf([['P', 'F']]), 'exclude', 0.01, names);
    expect(one).toMatchObject({ p_value: 1, independent: true, within_input: null, pairs: [] });
    const empty = independenceCheck(new ReliabilityTensor(1, 2, 2), 'exclude', 0.01, names);
    expect(empty).toMatchObject({ samples: 0, observed_rate: null, product_rate: null, ratio: null, within_input: null });
  });
});

describe('the exact null distribution of the all-pass count (reference: brute force over every placement, exact fractions)', () => {
  it('n = 6 with 4, 3 and 5 passes; n = 7 with 5, 4, 6 and 3 passes', () => {
    const a = intersectionDistribution(6, [4, 3, 5]);
    expect(a.offset).toBe(0);
    [1 / 30, 11 / 30, 1 / 2, 1 / 10].forEach((p, t) => expect(a.probs[t]).toBeCloseTo(p, 14));
    const b = intersectionDistribution(7, [5, 4, 6, 3]);
    [383 / 1715, 128 / 245, 404 / 1715, 32 / 1715].forEach((p, t) => expect(b.probs[t - b.offset] ?? 0).toBeCloseTo(p, 14));
    // Two-sided p-values: P(X = 3) = 1/10 → 1/30 + 1/10 = 2/15; P(X = 1) = 11/30 → 1/2.
    expect(twoSidedPValue(a, 3)).toBeCloseTo(2 / 15, 14);
    expect(twoSidedPValue(a, 1)).toBeCloseTo(1 / 2, 14);
    expect(twoSidedPValue(a, 9)).toBe(0);
  });

  it("two columns are Fisher's hypergeometric; sums convolve", () => {
    const d = intersectionDistribution(20, [12, 9]);
    expect(d.probs.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    const mean = d.probs.reduce((m, p, i) => m + p * (d.offset + i), 0);
    expect(mean).toBeCloseTo((12 * 9) / 20, 12);
    const c = convolve({ offset: 1, probs: Float64Array.of(0.5, 0.5) }, { offset: 0, probs: Float64Array.of(0.25, 0.75) });
    expect(c).toEqual({ offset: 1, probs: Float64Array.of(0.125, 0.5, 0.375) });
    expect(argumentErrorOf(() => intersectionDistribution(5, [6])).where).toEqual({ key: 'passes' });
  });
});

/**
 * Seeded simulation of the design: 500-sample tensors, three validators passing 0.95/0.90/0.85, α = 0.01.
 * ρ = share of samples in which all validators share one uniform draw (ρ = 0: independent).
 */
function rejectionRates(N: number, M: number, rho: number, runs: number, seed: number, spread = 0) {
  const rand = mulberry32(seed);
  const rates = [0.95, 0.9, 0.85];
  let joint = 0;
  let within = 0;
  let oldBinomial = 0;
  for (let r = 0; r < runs; r++) {
    const t = new ReliabilityTensor(N, M, 3);
    for (let i = 0; i < N; i++) {
      const shift = (rand() - 0.5) * spread;
      for (let j = 0; j < M; j++) {
        const shared = rand() < rho;
        const u = rand();
        for (let k = 0; k < 3; k++) t.set(i, j, k, (shared ? u : rand()) < Math.min(0.999, rates[k] + shift) ? 1 : 2);
      }
    }
    const c = independenceCheck(t, 'exclude', 0.01, names);
    if (!c.independent) joint++;
    if (!c.within_input!.independent) within++;
    if (binomialTest(c.observed_all_pass, c.samples, c.product_rate!) < 0.01) oldBinomial++;
  }
  return { joint: joint / runs, within: within / runs, oldBinomial: oldBinomial / runs };
}

describe('calibrated and powerful (seeded simulation, α = 0.01)', () => {
  it('size ≈ α on independent tensors; the within-input test also across inputs of unequal difficulty', () => {
    const one = rejectionRates(1, 500, 0, 1500, 21);
    const many = rejectionRates(10, 50, 0, 600, 22, 0.2);
    console.log(
      `size at α = 0.01: joint ${one.joint.toFixed(4)} (old binomial test ${one.oldBinomial.toFixed(4)}); within-input over 10 inputs of unequal difficulty ${many.within.toFixed(4)} (joint there ${many.joint.toFixed(4)})`,
    );
    // 1,500 runs: a binomial standard error of 0.0026 around 0.01.
    expect(one.joint).toBeLessThanOrEqual(0.018);
    expect(one.joint).toBeGreaterThanOrEqual(0.003);
    expect(many.within).toBeLessThanOrEqual(0.02);
    // Pooled over unequal inputs, the product of marginals really does mispredict: the joint test says so.
    expect(many.joint).toBeGreaterThan(0.03);
  });

  it('power ≥ 70% at ρ = 0.2, where the old binomial test almost never fired', () => {
    const one = rejectionRates(1, 500, 0.2, 500, 23);
    const many = rejectionRates(10, 50, 0.2, 500, 24);
    console.log(
      `power at ρ = 0.2: joint ${one.joint.toFixed(3)} (old binomial ${one.oldBinomial.toFixed(3)}); within-input, 10 × 50: ${many.within.toFixed(3)}`,
    );
    expect(one.joint).toBeGreaterThanOrEqual(0.7);
    expect(many.within).toBeGreaterThanOrEqual(0.7);
    expect(one.oldBinomial).toBeLessThan(0.1);
  });
});
