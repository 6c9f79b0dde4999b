import { describe, expect, it } from 'vitest';
import { betaCdf, betaQuantile, erfc, gammaQ, logChoose, logGamma, normalCdf, normalQuantile } from './distributions.js';
import { argumentErrorOf } from '../testing/errors.js';

// Reference values computed with SciPy 1.17 (scipy.stats.norm / beta, scipy.special).
const rel = (got: number, want: number, tol: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(tol * Math.abs(want) + 1e-300);

describe('special functions against SciPy', () => {
  it('normalQuantile', () => {
    const cases: [number, number][] = [
      [1e-300, -37.0470962993612],
      [1e-20, -9.262340089798409],
      [1e-10, -6.361340902404056],
      [0.001, -3.090232306167813],
      [0.025, -1.9599639845400545],
      [0.3, -0.5244005127080409],
      [0.8, 0.8416212335729143],
      [0.975, 1.959963984540054],
      [0.999999, 4.753424308817087],
    ];
    for (const [p, x] of cases) rel(normalQuantile(p), x, 1e-12);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(argumentErrorOf(() => normalQuantile(1.5)).where).toEqual({ key: 'p' });
  });

  it('normalCdf keeps relative precision in the lower tail', () => {
    const cases: [number, number][] = [
      [-37, 5.7255712225239266e-300],
      [-20, 2.7536241186061556e-89],
      [-5, 2.866515718791933e-7],
      [-1.96, 0.024997895148220435],
      [-0.5, 0.3085375387259869],
      [1, 0.8413447460685429],
      [3, 0.9986501019683699],
    ];
    for (const [x, p] of cases) rel(normalCdf(x), p, 1e-12);
    expect(normalCdf(0)).toBeCloseTo(0.5, 15);
    expect(erfc(0)).toBeCloseTo(1, 15);
  });

  it('logGamma, gammaQ, logChoose', () => {
    rel(logGamma(0.1), 2.252712651734206, 1e-13);
    rel(logGamma(5.5), 3.9578139676187165, 1e-13);
    rel(logGamma(100), 359.1342053695754, 1e-13);
    rel(logGamma(1e6), 12815504.569147611, 1e-13);
    expect(Math.abs(logGamma(1))).toBeLessThan(1e-14);
    rel(gammaQ(3, 2), 0.6766764161830634, 1e-12);
    rel(gammaQ(0.5, 10), 7.744216431044088e-6, 1e-12);
    rel(gammaQ(10, 3), 0.9988975118698845, 1e-12);
    expect(Math.exp(logChoose(10, 3))).toBeCloseTo(120, 9);
    expect(Math.exp(logChoose(2000, 1000) - logChoose(2000, 999))).toBeCloseTo(1001 / 1000, 10);
  });

  it('betaCdf and betaQuantile', () => {
    rel(betaCdf(0.3, 2.5, 7), 0.6412224629717214, 1e-12);
    rel(betaCdf(0.9, 50, 3), 0.09663328513725222, 1e-12);
    rel(betaCdf(0.01, 0.5, 0.5), 0.06376856085851985, 1e-12);
    rel(betaCdf(0.999, 300, 2), 0.9629191418029293, 1e-12);
    rel(betaQuantile(0.025, 3, 8), 0.06673951117773447, 1e-12);
    rel(betaQuantile(0.975, 48, 3), 0.9874514121646659, 1e-12);
    rel(betaQuantile(1e-6, 2, 1000), 1.4141727514271465e-6, 1e-10);
    rel(betaQuantile(0.5, 0.5, 0.5), 0.5, 1e-12);
    // Round trip on a closed-form edge (a = 1).
    rel(betaCdf(betaQuantile(0.3, 1, 9), 1, 9), 0.3, 1e-13);
    expect(argumentErrorOf(() => betaQuantile(0.5, 0, 1)).where).toEqual({ key: 'a' });
  });
});
