import { describe, expect, it } from 'vitest';
import { binomialTest, independenceCheck, phiCoefficient } from './independence.js';
import { ReliabilityTensor } from './tensor.js';
import { tensorOf } from './testing/fixtures.js';
import { mulberry32 } from './testing/prng.js';

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
    expect(Math.abs(ind.within_input!.z)).toBeLessThan(2.58);
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
