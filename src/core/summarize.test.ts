import { describe, expect, it } from 'vitest';
import { wilson } from './intervals.js';
import { overallVerdict, resolveSummaryOptions, summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import { HAND } from './testing/fixtures.js';
import type { ValidatorMeta } from './validator.js';

//   input 0: j0 [P, P]  j1 [P, F]  j2 [E, P]
//   input 1: j0 [F, P]  j1 [P, F]  j2 [P, _]
const meta = (minSuccess: [number, number]): ValidatorMeta[] => [
  { name: 'a', message: 'A failed', minSuccess: minSuccess[0], weight: 3, kind: 'validator' },
  { name: 'b', message: 'B failed', minSuccess: minSuccess[1], weight: 1, kind: 'verifier' },
];

describe('summarize on the hand-built 2×3×2 tensor', () => {
  it('defaults: Wilson 95%, point verdicts, mean aggregation', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]));
    expect(s.options).toEqual({ interval: 'wilson', level: 0.95, verdict: 'point', aggregate: 'mean' });
    expect([s.N, s.M, s.K]).toEqual([2, 3, 2]);
    // VRP: a = 4/5 = 0.8 ≥ 0.75 pass; b = 3/5 = 0.6 ≥ 0.5 pass
    expect(s.validators.map((v) => [v.name, v.kind, v.rate, v.verdict])).toEqual([
      ['a', 'validator', 0.8, 'pass'],
      ['b', 'verifier', 0.6, 'pass'],
    ]);
    expect(s.validators[0].counts).toEqual({ pass: 4, fail: 1, error: 1, pending: 0 });
    expect(s.validators[0].ci).toEqual(wilson(4, 5, 0.95)); // [0.3755, 0.9638]
    expect(s.validators[0].samplesToDecide).toBeUndefined();
    expect(s.verdict).toBe('pass');
  });

  it('IRP, ORP, rows, pooled and all-pass figures', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]));
    expect(s.inputs.map((r) => r.rate)).toEqual([0.8, 0.6]);
    expect(s.inputs[0].ci).toEqual(wilson(4, 5));
    expect(s.inputs[0].perValidator.map((r) => r.rate)).toEqual([1, 2 / 3]);
    expect(s.inputs[1].perValidator.map((r) => r.rate)).toEqual([2 / 3, 0.5]);
    expect(s.inputs.map((r) => r.allPass.rate)).toEqual([0.5, 0]);
    expect(s.inputs[1].allPass.counts).toEqual({ pass: 0, fail: 2, error: 0, pending: 1 });
    expect(s.iterations.map((r) => [r.j, r.rate])).toEqual([[0, 0.75], [1, 0.5], [2, 1]]);
    expect(s.allOutputs.rate).toBe(0.7);
    expect(s.allOutputs.ci).toEqual(wilson(7, 10)); // [0.3968, 0.8922]
    expect(s.allPass.rate).toBe(0.25);
    expect(s.allPass.ci).toEqual(wilson(1, 4));
  });

  it('overall: §3.3 over validator rates and §3.6.7 over the tensor', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { aggregate: 'weighted' });
    // rates [0.8, 0.6], weights [3, 1]: mean 0.7, weighted 0.75, min 0.6
    expect(s.overall.mean).toBeCloseTo(0.7, 15);
    expect(s.overall.weighted).toBeCloseTo(0.75, 15);
    expect(s.overall.min).toBe(0.6);
    expect(s.overall.method).toBe('weighted');
    expect(s.overall.value).toBe(s.overall.weighted);
    // tensor: 7/10 cells; (3·4 + 3) / (3·5 + 5) = 0.75; min of marginals 0.5 (ORP j1)
    expect(s.overall.tensor).toEqual({ mean: 0.7, weighted: 0.75, min: 0.5 });
  });

  it('point mode: one failing validator fails the run', () => {
    const s = summarize(HAND(), meta([0.75, 0.7]));
    expect(s.validators.map((v) => v.verdict)).toEqual(['pass', 'fail']);
    expect(s.verdict).toBe('fail');
  });

  it('confident mode: wide intervals are inconclusive, with samples to decide', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { verdict: 'confident' });
    // a: 4/5, Wilson [0.3755, 0.9638] straddles 0.75; holding 0.8, 284 more samples decide it
    // b: 3/5, Wilson [0.2307, 0.8824] straddles 0.5; holding 0.6, 92 more
    expect(s.validators.map((v) => [v.verdict, v.samplesToDecide])).toEqual([
      ['inconclusive', 284],
      ['inconclusive', 92],
    ]);
    expect(s.verdict).toBe('inconclusive');
    // The summary survives JSON (the store and reports serialise it).
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it('other interval methods and levels flow through', () => {
    const s = summarize(HAND(), meta([0.75, 0.5]), { interval: 'clopper-pearson', level: 0.9 });
    expect(s.validators[0].ci!.method).toBe('clopper-pearson');
    expect(s.inputs[1].ci!.level).toBe(0.9);
  });

  it('nothing decided: rates and intervals null, verdicts inconclusive', () => {
    const s = summarize(new ReliabilityTensor(2, 2, 2), meta([0.5, 0.5]));
    expect(s.validators.map((v) => [v.rate, v.ci, v.verdict])).toEqual([
      [null, null, 'inconclusive'],
      [null, null, 'inconclusive'],
    ]);
    expect(s.overall.value).toBeNull();
    expect(s.verdict).toBe('inconclusive');
  });

  it('checks its arguments', () => {
    expect(() => summarize(HAND(), meta([0.5, 0.5]).slice(1))).toThrow(/K = 2 .* 1 validators/);
    expect(() => resolveSummaryOptions({ level: 95 })).toThrow(/options.level/);
    expect(() => resolveSummaryOptions({ interval: 'agresti' as never })).toThrow(/options.interval/);
    expect(resolveSummaryOptions({ verdict: undefined }).verdict).toBe('point');
  });

  it('overall verdict rule', () => {
    expect(overallVerdict(['pass', 'inconclusive', 'fail'])).toBe('fail');
    expect(overallVerdict(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(overallVerdict(['pass', 'pass'])).toBe('pass');
  });
});
