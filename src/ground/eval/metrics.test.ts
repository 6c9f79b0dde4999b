import { describe, expect, it } from 'vitest';
import { detectionMetrics, fitThreshold, wilson } from './metrics.js';

describe('metrics', () => {
  it('Wilson interval matches reference values', () => {
    const w = wilson(8, 10);
    expect(w.lo).toBeCloseTo(0.4902, 3);
    expect(w.hi).toBeCloseTo(0.9433, 3);
    expect(wilson(0, 20).lo).toBe(0);
    expect(wilson(0, 20).hi).toBeCloseTo(0.1611, 3);
  });

  it('computes BA, precision, recall, F1 for the positive (unsupported) class on a hand-counted case', () => {
    // scores < 0.5 predicted unsupported. gold: T T T F F F F F → tp 2, fn 1, fp 1, tn 4
    const scores = [0.1, 0.2, 0.9, 0.3, 0.6, 0.7, 0.8, 0.9];
    const gold = [true, true, true, false, false, false, false, false];
    const m = detectionMetrics(scores, gold, 0.5, 500, 3);
    expect(m.n).toBe(8);
    expect(m.recall.value).toBeCloseTo(2 / 3, 12);
    expect(m.precision.value).toBeCloseTo(2 / 3, 12);
    expect(m.balanced_accuracy.value).toBeCloseTo((2 / 3 + 4 / 5) / 2, 12);
    expect(m.f1.value).toBeCloseTo(2 / 3, 12);
    expect(m.balanced_accuracy.lo).toBeLessThanOrEqual(m.balanced_accuracy.value);
    expect(m.balanced_accuracy.hi).toBeGreaterThanOrEqual(m.balanced_accuracy.value);
  });

  it('fits the threshold that maximises balanced accuracy', () => {
    const scores = [0.1, 0.2, 0.3, 0.6, 0.7, 0.8, -Infinity];
    const gold = [true, true, true, false, false, false, true];
    const f = fitThreshold(scores, gold);
    expect(f.balanced_accuracy).toBe(1);
    expect(f.threshold).toBeGreaterThan(0.3);
    expect(f.threshold).toBeLessThanOrEqual(0.6);
  });
});
