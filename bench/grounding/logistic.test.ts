import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/prng.js';
import { fitLogistic, groupFolds, predictLogistic, sigmoid } from './logistic.js';

// Ten rows fixed by hand. Reference coefficients (intercept, w1, w2 on the raw features) computed independently
// with Python: scipy 1.17 optimize.minimize(BFGS, gtol 1e-12) on the same objective (weighted log-loss on
// standardised features + lambda/2 · ‖w‖², intercept unpenalised), mapped back to raw units; plain numpy
// gradient descent (200,000 steps) gave the same to 7 digits.
const X = [
  [0.1, 2.0],
  [0.4, 1.0],
  [0.35, 3.5],
  [0.8, 0.5],
  [0.9, 2.5],
  [0.2, 0.3],
  [0.65, 1.7],
  [0.5, 2.2],
  [0.05, 1.1],
  [0.75, 3.0],
];
const y = [1, 1, 0, 0, 0, 1, 0, 1, 1, 0].map(Boolean);

describe('fitLogistic', () => {
  it('matches scipy on a weighted fit (lambda 0.5)', () => {
    const m = fitLogistic(X, y, 0.5, [1, 1, 1, 1, 1, 2, 2, 2, 0.5, 0.5]);
    [4.63559967, -6.54723854, -0.69638251].forEach((c, j) => expect(m.coef[j]).toBeCloseTo(c, 6));
  });

  it('matches scipy on an unweighted fit (lambda 2)', () => {
    const m = fitLogistic(X, y, 2);
    [2.24542784, -3.07420004, -0.44374201].forEach((c, j) => expect(m.coef[j]).toBeCloseTo(c, 6));
  });

  it('shrinks weights as lambda grows and predicts with a dot product and a sigmoid', () => {
    const small = fitLogistic(X, y, 0.1);
    const large = fitLogistic(X, y, 100);
    expect(Math.abs(large.coef[1])).toBeLessThan(Math.abs(small.coef[1]));
    const z = small.coef[0] + small.coef[1] * 0.3 + small.coef[2] * 1.5;
    expect(predictLogistic(small, [0.3, 1.5])).toBeCloseTo(1 / (1 + Math.exp(-z)), 12);
    expect(sigmoid(-800)).toBe(0);
    expect(sigmoid(800)).toBe(1);
  });

  it('gives a constant feature no weight', () => {
    const m = fitLogistic(
      X.map((r) => [...r, 7]),
      y,
      0.5,
    );
    expect(m.coef[3]).toBe(0);
  });
});

describe('groupFolds', () => {
  it('keeps every group within one fold and spreads groups evenly', () => {
    const rnd = mulberry32(3);
    const groups = Array.from({ length: 200 }, () => `g${Math.floor(rnd() * 37)}`);
    const folds = groupFolds(groups, 5, mulberry32(1));
    const seen = new Map<string, number>();
    groups.forEach((g, i) => {
      if (seen.has(g)) expect(folds[i]).toBe(seen.get(g));
      seen.set(g, folds[i]);
    });
    const perFold = [0, 1, 2, 3, 4].map((f) => [...seen.values()].filter((x) => x === f).length);
    expect(Math.max(...perFold) - Math.min(...perFold)).toBeLessThanOrEqual(1);
    expect(groupFolds(groups, 5, mulberry32(1))).toEqual(folds);
  });
});
