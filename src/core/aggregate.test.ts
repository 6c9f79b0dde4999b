import { describe, expect, it } from 'vitest';
import { aggregateRates, aggregateTensor, minMarginal, pickAggregate } from './aggregate.js';
import { ReliabilityTensor } from './tensor.js';
import { HAND, tensorOf } from './testing/fixtures.js';
import { tensorViews } from './views.js';
import { argumentErrorOf } from '../testing/errors.js';

describe('§3.3 aggregation over validator rates', () => {
  it('mean, weighted mean, minimum', () => {
    // rates [0.8, 0.6]: mean 0.7; weights [3, 1]: (2.4 + 0.6) / 4 = 0.75; min 0.6
    const r = aggregateRates([0.8, 0.6], [3, 1]);
    expect(r.mean).toBeCloseTo(0.7, 15);
    expect(r.weighted).toBeCloseTo(0.75, 15);
    expect(r.min).toBe(0.6);
    // weights default to 1: weighted = mean
    const a = aggregateRates([0.9, 0.5, 1]);
    expect(a.mean).toBeCloseTo(0.8, 15);
    expect(a.weighted).toBeCloseTo(0.8, 15);
    expect(a.min).toBe(0.5);
  });

  it('validators with nothing decided are left out; none at all gives null', () => {
    // [0.8, null, 0.4] with weights [1, 5, 3]: mean 0.6; weighted (0.8 + 1.2) / 4 = 0.5; min 0.4
    const a = aggregateRates([0.8, null, 0.4], [1, 5, 3]);
    expect(a.mean).toBeCloseTo(0.6, 15);
    expect(a.weighted).toBeCloseTo(0.5, 15);
    expect(a.min).toBe(0.4);
    expect(aggregateRates([null, null])).toEqual({ mean: null, weighted: null, min: null });
    expect(aggregateRates([0.5], [0])).toEqual({ mean: 0.5, weighted: null, min: 0.5 });
  });

  it('checks weights', () => {
    expect(argumentErrorOf(() => aggregateRates([0.5, 0.5], [1])).where).toEqual({ key: 'weights' });
    expect(() => aggregateRates([0.5], [-1])).toThrow(/weight/);
    expect(pickAggregate('weighted', { mean: 1, weighted: 2, min: 3 })).toBe(2);
    expect(argumentErrorOf(() => pickAggregate('max' as never, { mean: 1, weighted: 2, min: 3 })).where).toEqual({ key: 'method' });
  });
});

describe('§3.6.7 aggregation over the hand-built 2×3×2 tensor', () => {
  //   input 0: j0 [P, P]  j1 [P, F]  j2 [E, P]
  //   input 1: j0 [F, P]  j1 [P, F]  j2 [P, _]
  const t = HAND();

  it('mean over decided cells: 7 pass / 10 decided = 0.7 (the error and the pending cell are excluded)', () => {
    expect(aggregateTensor(t).mean).toBe(0.7);
  });

  it('weighted by validator weight [3, 1]: (3·4 + 1·3) / (3·5 + 1·5) = 15/20 = 0.75', () => {
    expect(aggregateTensor(t, [3, 1]).weighted).toBe(0.75);
    // default weights 1: the mean
    expect(aggregateTensor(t).weighted).toBe(0.7);
  });

  it('weighted by a per-cell W: input 1 weighs 2 → (4 + 2·3) / (5 + 2·5) = 10/15', () => {
    const W = new Float64Array(12);
    for (let p = 6; p < 12; p++) W[p] = 2;
    for (let p = 0; p < 6; p++) W[p] = 1;
    expect(aggregateTensor(t, W).weighted).toBeCloseTo(2 / 3, 15);
    expect(aggregateTensor(t, (i) => (i === 1 ? 2 : 1)).weighted).toBeCloseTo(2 / 3, 15);
    // W on an error or pending cell does not matter
    W[4] = 1000; // (0, 2, 0) is ERROR
    W[11] = 1000; // (1, 2, 1) is PENDING
    expect(aggregateTensor(t, W).weighted).toBeCloseTo(2 / 3, 15);
    expect(() => aggregateTensor(t, [1, 2, 3])).toThrow(/expected 2 \(per validator\) or 12 \(per cell\)/);
  });

  it('minimum over the IRP, ORP and VRP marginals: min(0.8, 0.6 | 0.75, 0.5, 1 | 0.8, 0.6) = 0.5', () => {
    expect(aggregateTensor(t).min).toBe(0.5);
    expect(minMarginal(tensorViews(t))).toBe(0.5);
    // The paper's literal min over cells would be 0 here (one failing cell suffices): not what we report.
    expect(aggregateTensor(t).min).not.toBe(0);
  });

  it('an all-pass tensor aggregates to 1; an undecided one to null', () => {
    expect(aggregateTensor(tensorOf([['PP', 'PP']]))).toEqual({ mean: 1, weighted: 1, min: 1 });
    expect(aggregateTensor(new ReliabilityTensor(2, 2, 2))).toEqual({ mean: null, weighted: null, min: null });
  });
});
