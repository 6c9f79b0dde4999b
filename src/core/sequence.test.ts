import { describe, expect, it } from 'vitest';
import { wilson } from './intervals.js';
import { sequentialBoundaries } from './sample-size.js';
import { evidenceThreshold, logEvidenceAbove, logEvidenceBelow, sequenceBounds, sequentialVerdict } from './sequence.js';
import { mulberry32 } from './testing/prng.js';
import { argumentErrorOf } from '../testing/errors.js';

// Reference values: the same mixture written out independently in Python with mpmath (40 digits), its
// bounds found by bisection on the evidence.
describe('confidence sequence: reference values', () => {
  it('bounds at 95%', () => {
    const cases: [number, number, number, number][] = [
      [95, 5, 0.8499645468389411, 0.9923618451961698],
      [100, 0, 0.9514101100232452, 1],
      [0, 10, 0, 0.3987428600144658],
      [5, 5, 0.09528151914865393, 0.9047184808513461],
      [950, 50, 0.9247959181093286, 0.9692198496079545],
    ];
    for (const [S, F, low, high] of cases) {
      const b = sequenceBounds(S, F, 0.95)!;
      expect(b.low).toBeCloseTo(low, 10);
      expect(b.high).toBeCloseTo(high, 10);
    }
    const planned = sequenceBounds(95, 5, 0.95, 0.98)!;
    expect(planned.low).toBeCloseTo(0.8478212889847767, 10);
    expect(planned.high).toBeCloseTo(0.992446705206526, 10);
    expect(sequenceBounds(0, 0, 0.95)).toBeNull();
  });

  it('is wider than a fixed-n interval: it holds at every n at once', () => {
    const cs = sequenceBounds(95, 5, 0.95)!;
    const w = wilson(95, 5 + 95)!;
    expect(cs.low).toBeLessThan(w.low);
    expect(cs.high).toBeGreaterThan(w.high);
  });

  it('straight passes needed to show 0.95: 98 (92 when 0.99 is expected; Clopper–Pearson at a fixed n: 72)', () => {
    const first = (expect?: number) => {
      let n = 1;
      while (sequentialVerdict({ pass: n, fail: 0, error: 0 }, 0.95, 0.95, expect) !== 'pass') n++;
      return n;
    };
    expect(first()).toBe(98);
    expect(first(0.99)).toBe(92);
  });

  it('evidence falls as m rises (so the bounds are found by bisection), and mirrors', () => {
    let prev = Infinity;
    for (let m = 0.01; m < 0.95; m += 0.0005) {
      const e = logEvidenceAbove(95, 5, m, 0.98);
      expect(e).toBeLessThanOrEqual(prev + 1e-12);
      prev = e;
    }
    expect(logEvidenceBelow(5, 95, 0.2)).toBeCloseTo(logEvidenceAbove(95, 5, 0.8), 12);
    expect(logEvidenceAbove(3, 0, 0)).toBe(Infinity);
    expect(logEvidenceAbove(3, 1, 1)).toBe(-Infinity);
    expect(evidenceThreshold(0.95)).toBeCloseTo(Math.log(40), 12);
    expect(argumentErrorOf(() => logEvidenceAbove(-1, 0, 0.5)).where).toEqual({ key: 'S' });
    expect(() => logEvidenceAbove(1, 0, 0.5, 1)).toThrow(/expect/);
  });

  it('a sequential verdict holds however the errors resolve', () => {
    expect(sequentialVerdict({ pass: 150, fail: 0, error: 0 }, 0.95, 0.95)).toBe('pass');
    // 10 errors count as failures for the pass: not enough evidence.
    expect(sequentialVerdict({ pass: 150, fail: 0, error: 10 }, 0.95, 0.95)).toBe('undecided');
    expect(sequentialVerdict({ pass: 60, fail: 40, error: 0 }, 0.95, 0.95)).toBe('fail');
    // ... and as passes for the fail.
    expect(sequentialVerdict({ pass: 60, fail: 5, error: 35 }, 0.95, 0.95)).toBe('undecided');
    expect(sequentialVerdict({ pass: 0, fail: 0, error: 0 }, 0.95, 0.95)).toBe('undecided');
    expect(sequentialVerdict({ pass: 1, fail: 0, error: 0 }, 0, 0.95)).toBe('pass');
    expect(sequentialVerdict({ pass: 500, fail: 1, error: 0 }, 1, 0.95)).toBe('fail');
  });
});

/** Share of seeded streams in which the rule ever wrongly excludes p when checked after every output (or round). */
function everWrong(p: number[], rounds: number, runs: number, seed: number, excludes: (S: number, F: number, truth: number) => boolean): number {
  const rand = mulberry32(seed);
  const truth = p.reduce((a, b) => a + b, 0) / p.length;
  let wrong = 0;
  for (let r = 0; r < runs; r++) {
    let S = 0;
    let F = 0;
    for (let t = 0; t < rounds; t++) {
      for (const pi of p)
        if (rand() < pi) S++;
        else F++;
      if (excludes(S, F, truth)) {
        wrong++;
        break;
      }
    }
  }
  return wrong / runs;
}

describe('optional stopping (seeded simulation, α = 0.05)', () => {
  // The sequence excludes m = 0.95 exactly when its test at 0.95 decides: S ≥ passAt[t] or S ≤ failAt[t].
  const { passAt, failAt } = sequentialBoundaries(0.95, 0.95, 1000);
  const csExcludes = (S: number, F: number) => S >= passAt[S + F] || S <= failAt[S + F];
  const wilsonExcludes = (S: number, F: number, m: number) => {
    const w = wilson(S, S + F)!;
    return w.low > m || w.high < m;
  };

  it('the sequence misses the true rate at some n ≤ 1,000 in at most α of streams; a re-checked Wilson interval does far more often', () => {
    const cs = everWrong([0.95], 1000, 1000, 5, csExcludes);
    const naive = everWrong([0.95], 1000, 1000, 5, wilsonExcludes);
    console.log(`ever excluded p = 0.95 within 1,000 outputs: confidence sequence ${cs.toFixed(3)}, Wilson re-checked ${naive.toFixed(3)} (nominal 0.05)`);
    expect(cs).toBeLessThanOrEqual(0.05);
    expect(naive).toBeGreaterThan(0.2);
  });

  it('inputs of unequal rates, checked at round ends, keep the guarantee', () => {
    const cs = everWrong([0.99, 0.97, 0.93, 0.91], 250, 1000, 6, csExcludes);
    console.log(`ever excluded the mean rate 0.95 of four inputs within 250 rounds: ${cs.toFixed(3)} (nominal 0.05)`);
    expect(cs).toBeLessThanOrEqual(0.05);
  });
});

describe('stopping boundaries', () => {
  it('agree with the evidence at every n', () => {
    const { passAt, failAt } = sequentialBoundaries(0.95, 0.95, 300);
    const threshold = evidenceThreshold(0.95);
    for (const t of [1, 50, 97, 98, 99, 150, 300]) {
      if (passAt[t] <= t) {
        expect(logEvidenceAbove(passAt[t], t - passAt[t], 0.95)).toBeGreaterThanOrEqual(threshold);
        expect(logEvidenceAbove(passAt[t] - 1, t - passAt[t] + 1, 0.95)).toBeLessThan(threshold);
      }
      if (failAt[t] >= 0) {
        expect(logEvidenceBelow(failAt[t], t - failAt[t], 0.95)).toBeGreaterThanOrEqual(threshold);
        expect(logEvidenceBelow(failAt[t] + 1, t - failAt[t] - 1, 0.95)).toBeLessThan(threshold);
      }
    }
    expect(passAt[97]).toBe(98); // cannot pass yet
    expect(passAt[98]).toBe(98);
  });
});
