import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from './outcome.js';
import { sequenceBounds } from './sequence.js';
import { boundsWithErrors, sequentialStatus, undecidedValidators } from './stopping.js';
import { ReliabilityTensor } from './tensor.js';
import { argumentErrorOf } from '../testing/errors.js';

/** N × M × K tensor filled by f(i, j, k). */
function tensor(N: number, M: number, K: number, f: (i: number, j: number, k: number) => OutcomeCode): ReliabilityTensor {
  const t = new ReliabilityTensor(N, M, K);
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) for (let k = 0; k < K; k++) t.set(i, j, k, f(i, j, k));
  return t;
}

const o = { minSuccess: 0.95, level: 0.95 };

describe('sequential status from the tensor prefix', () => {
  it('an always-passing validator stops after 98 outputs, one failing every other output much sooner', () => {
    const t = tensor(1, 150, 2, (_i, j, k) => (k === 0 || j % 2 === 0 ? Outcome.PASS : Outcome.FAIL));
    const a = sequentialStatus(t, 0, o);
    expect(a).toMatchObject({ decision: 'pass', reason: 'lower-bound', rounds: 98, counts: { pass: 98, fail: 0, error: 0 } });
    expect(a.bounds!.low).toBeGreaterThanOrEqual(0.95);
    const b = sequentialStatus(t, 1, o);
    expect(b.decision).toBe('fail');
    expect(b.reason).toBe('upper-bound');
    expect(b.rounds).toBeLessThan(10);
    expect(b.bounds!.high).toBeLessThan(0.95);
    expect(undecidedValidators(t, [o, o])).toEqual([false, false]);
  });

  it('reads only complete rounds, in order: a pending cell ends the prefix', () => {
    const t = tensor(2, 100, 1, () => Outcome.PASS);
    t.set(1, 30, 0, Outcome.PENDING); // round 30 incomplete
    const s = sequentialStatus(t, 0, o);
    expect(s).toMatchObject({ decision: 'undecided', reason: 'running', rounds: 30, counts: { pass: 60, fail: 0, error: 0 } });
    // With two inputs, 49 rounds (98 outputs) decide it, checked at round ends.
    t.set(1, 30, 0, Outcome.PASS);
    expect(sequentialStatus(t, 0, o)).toMatchObject({ decision: 'pass', rounds: 49 });
    // Cells after the stop (never checked) do not matter.
    for (let j = 49; j < 100; j++) t.set(0, j, 0, Outcome.PENDING);
    expect(sequentialStatus(t, 0, o)).toMatchObject({ decision: 'pass', rounds: 49 });
  });

  it('errors count as failures for a pass: a validator erroring on 1 output in 10 never passes 0.95', () => {
    const t = tensor(1, 400, 1, (_i, j) => (j % 10 === 9 ? Outcome.ERROR : Outcome.PASS));
    const s = sequentialStatus(t, 0, o);
    expect(s).toMatchObject({ decision: 'undecided', reason: 'samples', rounds: 400, counts: { pass: 360, fail: 0, error: 40 } });
    expect(s.bounds).toEqual(boundsWithErrors(s.counts, 0.95));
    expect(s.bounds!.low).toBeCloseTo(sequenceBounds(360, 40, 0.95)!.low, 15);
    expect(undecidedValidators(t, [o])).toEqual([true]);
  });

  it('a planned rate moves the stop, not the verdict', () => {
    const t = tensor(1, 150, 1, () => Outcome.PASS);
    expect(sequentialStatus(t, 0, { ...o, expect: 0.99 })).toMatchObject({ decision: 'pass', rounds: 92 });
  });

  it('checks the column and handles an empty tensor', () => {
    expect(argumentErrorOf(() => sequentialStatus(new ReliabilityTensor(1, 1, 1), 1, o)).where).toEqual({ key: 'k' });
    expect(sequentialStatus(new ReliabilityTensor(0, 5, 1), 0, o)).toMatchObject({ decision: 'undecided', rounds: 0, bounds: null });
  });
});
