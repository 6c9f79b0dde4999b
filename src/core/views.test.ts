import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from './outcome.js';
import type { Counts } from './rate-types.js';
import { ReliabilityTensor } from './tensor.js';
import { HAND } from './testing/fixtures.js';
import { mulberry32 } from './testing/prng.js';
import { rateOf, tensorViews } from './views.js';

const c = (pass: number, fail: number, error = 0, pending = 0): Counts => ({ pass, fail, error, pending });

describe('views of the hand-built 2×3×2 tensor', () => {
  //   input 0: j0 [P, P]  j1 [P, F]  j2 [E, P]
  //   input 1: j0 [F, P]  j1 [P, F]  j2 [P, _]
  const v = tensorViews(HAND());

  it('VRP: per validator, over inputs and samples', () => {
    // k0: P P E | F P P → 4 pass, 1 fail, 1 error → 4/5 = 0.8
    // k1: P F P | P F _ → 3 pass, 2 fail, 1 pending → 3/5 = 0.6
    expect(v.perValidator).toEqual([c(4, 1, 1, 0), c(3, 2, 0, 1)]);
    expect(v.perValidator.map(rateOf)).toEqual([0.8, 0.6]);
  });

  it('IRP: per input, over samples and validators', () => {
    // i0: PP PF EP → 4 pass, 1 fail, 1 error → 0.8; i1: FP PF P_ → 3 pass, 2 fail, 1 pending → 0.6
    expect(v.perInput).toEqual([c(4, 1, 1, 0), c(3, 2, 0, 1)]);
  });

  it('ORP: per iteration, over inputs and validators', () => {
    // j0: PP FP → 3/4; j1: PF PF → 2/4; j2: EP P_ → 2/2 (1 error, 1 pending)
    expect(v.perIteration).toEqual([c(3, 1), c(2, 2), c(2, 0, 1, 1)]);
    expect(v.perIteration.map(rateOf)).toEqual([0.75, 0.5, 1]);
  });

  it('rows view: input × validator, over samples', () => {
    // (0,0): P P E → 2/2; (0,1): P F P → 2/3; (1,0): F P P → 2/3; (1,1): P F _ → 1/2
    expect(v.rows).toEqual([
      [c(2, 0, 1, 0), c(2, 1)],
      [c(2, 1), c(1, 1, 0, 1)],
    ]);
  });

  it('all outputs pooled', () => {
    // 7 pass, 3 fail, 1 error, 1 pending → 0.7
    expect(v.all).toEqual(c(7, 3, 1, 1));
    expect(rateOf(v.all)).toBe(0.7);
  });

  it('passes every validator at once: complete cases only (any ERROR or PENDING leaves the sample out), then any FAIL fails', () => {
    // i0: PP pass, PF fail, EP error → 1/2; i1: FP fail, PF fail, P_ pending → 0/2
    expect(v.allPassPerInput).toEqual([c(1, 1, 1, 0), c(0, 2, 0, 1)]);
    expect(v.allPass).toEqual(c(1, 3, 1, 1));
    expect(rateOf(v.allPass)).toBe(0.25);
  });

  it('leaves a sample with an error out of the joint rate even when another cell failed (complete-case)', () => {
    // one validator column is all errors: the joint rate is unknown, not 0%
    const t = new ReliabilityTensor(1, 4, 2);
    for (let j = 0; j < 4; j++) {
      t.set(0, j, 0, j < 2 ? Outcome.PASS : Outcome.FAIL);
      t.set(0, j, 1, Outcome.ERROR);
    }
    expect(tensorViews(t).allPass).toEqual(c(0, 0, 4, 0));
    expect(rateOf(tensorViews(t).allPass)).toBeNull();
  });
});

describe('views on edge shapes and random tensors', () => {
  it('empty shapes and nothing decided', () => {
    const v = tensorViews(new ReliabilityTensor(2, 3, 0));
    expect(v.perValidator).toEqual([]);
    expect(v.perInput).toEqual([c(0, 0), c(0, 0)]);
    expect(v.allPass).toEqual(c(0, 0)); // no validators: no sample is counted
    expect(rateOf(tensorViews(new ReliabilityTensor(1, 2, 2)).all)).toBeNull();
  });

  it('rejects a cell that is not an outcome code', () => {
    const t = new ReliabilityTensor(1, 1, 1, Uint8Array.from([7]));
    expect(() => tensorViews(t)).toThrow(/not an outcome code/);
  });

  it('agree with a naive triple loop on a seeded random 23×7×4 tensor', () => {
    const rand = mulberry32(7);
    const t = new ReliabilityTensor(23, 7, 4);
    for (let p = 0; p < t.cells.length; p++) t.cells[p] = Math.floor(rand() * 4);
    const v = tensorViews(t);
    const names = ['pending', 'pass', 'fail', 'error'] as const;
    const zero = () => c(0, 0);
    const byK = Array.from({ length: 4 }, zero);
    const byI = Array.from({ length: 23 }, zero);
    const byJ = Array.from({ length: 7 }, zero);
    const joint = Array.from({ length: 23 }, zero);
    for (let i = 0; i < 23; i++) {
      for (let j = 0; j < 7; j++) {
        const codes: OutcomeCode[] = [];
        for (let k = 0; k < 4; k++) {
          const code = t.get(i, j, k);
          codes.push(code);
          for (const g of [byK[k], byI[i], byJ[j]]) g[names[code]]++;
        }
        const s = codes.includes(Outcome.PENDING) ? 'pending' : codes.includes(Outcome.ERROR) ? 'error' : codes.includes(Outcome.FAIL) ? 'fail' : 'pass';
        joint[i][s]++;
      }
    }
    expect(v.perValidator).toEqual(byK);
    expect(v.perInput).toEqual(byI);
    expect(v.perIteration).toEqual(byJ);
    expect(v.allPassPerInput).toEqual(joint);
  });

  it('counts every cell of a 10⁷-cell tensor in one pass (time reported)', () => {
    const t = new ReliabilityTensor(2000, 1000, 5);
    t.cells.fill(Outcome.PASS);
    const start = performance.now();
    const v = tensorViews(t);
    const ms = performance.now() - start;
    expect(v.all.pass).toBe(1e7);
    console.log(`tensorViews over 2000×1000×5 cells: ${ms.toFixed(0)} ms`);
  });
});
