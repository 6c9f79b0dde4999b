import { describe, expect, it } from 'vitest';
import { alignment, type GradedPair } from './alignment.js';

const repeat = (n: number, pair: GradedPair): GradedPair[] => Array.from({ length: n }, () => ({ ...pair }));
const pairs = (tp: number, fp: number, fn: number, tn: number, probs?: [number, number]): GradedPair[] => {
  const pr = (judge: boolean) => (probs ? { probability: judge ? probs[0] : probs[1] } : {});
  return [
    ...repeat(tp, { judge: true, person: true, ...pr(true) }),
    ...repeat(fp, { judge: true, person: false, ...pr(true) }),
    ...repeat(fn, { judge: false, person: true, ...pr(false) }),
    ...repeat(tn, { judge: false, person: false, ...pr(false) }),
  ];
};

describe('alignment: confusion matrix, exact rates and κ (reference values: SciPy beta.ppf, κ by hand)', () => {
  it('tp 40, fp 5, fn 3, tn 12 at 95%', () => {
    const a = alignment(pairs(40, 5, 3, 12), 0.95);
    expect({ n: a.n, tp: a.tp, fp: a.fp, fn: a.fn, tn: a.tn, weighted: a.weighted }).toEqual({ n: 60, tp: 40, fp: 5, fn: 3, tn: 12, weighted: false });
    expect(a.tpr!.rate).toBeCloseTo(40 / 43, 12);
    expect(a.tpr!.low).toBeCloseTo(0.8093927681142077, 9);
    expect(a.tpr!.high).toBeCloseTo(0.9853745030048677, 9);
    expect(a.tnr!.rate).toBeCloseTo(12 / 17, 12);
    expect(a.tnr!.low).toBeCloseTo(0.4404172812456629, 9);
    expect(a.tnr!.high).toBeCloseTo(0.89686448562968, 9);
    expect(a.agreement!.rate).toBeCloseTo(52 / 60, 12);
    expect(a.agreement!.low).toBeCloseTo(0.7540777788695802, 9);
    expect(a.agreement!.high).toBeCloseTo(0.9406355772946428, 9);
    // po = 52/60, pe = 45/60·43/60 + 15/60·17/60.
    expect(a.kappa).toBeCloseTo(0.6595744680851066, 12);
  });

  it('the level reaches the intervals', () => {
    const a = alignment(pairs(40, 5, 3, 12), 0.9);
    expect(a.tnr!.low).toBeCloseTo(0.47808230688636894, 9);
    expect(a.tnr!.high).toBeCloseTo(0.876229085230453, 9);
  });

  it('order of the pairs does not matter', () => {
    const p = pairs(7, 2, 1, 4);
    expect(alignment(p.slice().reverse(), 0.95)).toEqual(alignment(p, 0.95));
  });

  it('κ: 1 for perfect agreement, 0 for a judge that passes everything, negative for a contrary judge', () => {
    expect(alignment(pairs(10, 0, 0, 5), 0.95).kappa).toBeCloseTo(1, 12);
    expect(alignment(pairs(10, 5, 0, 0), 0.95).kappa).toBeCloseTo(0, 12);
    expect(alignment(pairs(0, 5, 10, 0), 0.95).kappa!).toBeLessThan(0);
  });

  it('undefined figures are null: no grades; no person-FAIL grade; both raters constant and equal', () => {
    const none = alignment([], 0.95);
    expect(none).toEqual({ n: 0, tp: 0, fp: 0, fn: 0, tn: 0, tpr: null, tnr: null, agreement: null, kappa: null, weighted: false });
    const allGood = alignment(pairs(20, 0, 0, 0), 0.95);
    expect(allGood.tnr).toBeNull();
    expect(allGood.tpr!.rate).toBe(1);
    expect(allGood.tpr!.high).toBe(1);
    expect(allGood.kappa).toBeNull(); // pe = 1: κ is 0/0
    const allBad = alignment(pairs(0, 0, 0, 6), 0.95);
    expect(allBad.tpr).toBeNull();
    expect(allBad.kappa).toBeNull();
  });

  it('unequal inclusion probabilities (the stratified design) weight the rates by 1/probability', () => {
    // Judge PASS drawn with probability 0.1 (weight 10), judge FAIL with 0.5 (weight 2).
    const a = alignment(pairs(8, 2, 3, 7, [0.1, 0.5]), 0.95);
    expect(a.weighted).toBe(true);
    expect({ tp: a.tp, fp: a.fp, fn: a.fn, tn: a.tn }).toEqual({ tp: 8, fp: 2, fn: 3, tn: 7 });
    // TPR = 80/86, Kish n_eff = 86²/(8·100 + 3·4); TNR = 14/34, n_eff = 34²/(2·100 + 7·4).
    expect(a.tpr!.rate).toBeCloseTo(80 / 86, 12);
    expect(a.tpr!.low).toBeCloseTo(0.5702986364077176, 8);
    expect(a.tpr!.high).toBeCloseTo(0.999725938655159, 8);
    expect(a.tnr!.rate).toBeCloseTo(14 / 34, 12);
    expect(a.tnr!.low).toBeCloseTo(0.05835327360408124, 8);
    expect(a.tnr!.high).toBeCloseTo(0.8577919072702842, 8);
    expect(a.kappa).toBeCloseTo(0.390625, 12);
    // The unweighted TPR would be 8/11: the oversampled FAIL verdicts would weigh too much.
    expect(a.tpr!.rate).toBeGreaterThan(8 / 11 + 0.1);
  });

  it('equal probabilities count plainly (exact intervals)', () => {
    expect(alignment(pairs(40, 5, 3, 12, [0.2, 0.2]), 0.95)).toEqual(alignment(pairs(40, 5, 3, 12), 0.95));
  });

  it('bad input is refused with the field named', () => {
    expect(() => alignment(pairs(1, 1, 1, 1), 1)).toThrow(/level must be in \(0, 1\)/);
    expect(() => alignment([{ judge: true, person: 'yes' as never }], 0.95)).toThrow(/pairs\[0\] must have boolean judge and person/);
    expect(() => alignment([{ judge: true, person: true, probability: 0 }], 0.95)).toThrow(/graded\[0\]\.probability must be in \(0, 1\]/);
    expect(() =>
      alignment(
        [
          { judge: true, person: true, probability: 0.5 },
          { judge: false, person: true, probability: 0.1 },
          { judge: true, person: true },
        ],
        0.95,
      ),
    ).toThrow(/every graded output carries its inclusion probability or none/);
  });
});

describe('alignment: weights at any scale (issue 30)', () => {
  it('probabilities of 1e-155 and 5e-324 give the same finite figures as the same ratios at ordinary scale', () => {
    const ordinary = alignment(pairs(8, 2, 3, 9, [0.5, 0.05]), 0.95);
    const tiny = alignment(pairs(8, 2, 3, 9, [1e-160, 1e-161]), 0.95);
    for (const key of ['tpr', 'tnr', 'agreement'] as const) {
      expect(tiny[key]!.rate).toBeCloseTo(ordinary[key]!.rate, 9);
      expect(tiny[key]!.low).toBeCloseTo(ordinary[key]!.low, 9);
      expect(tiny[key]!.high).toBeCloseTo(ordinary[key]!.high, 9);
    }
    expect(tiny.kappa).toBeCloseTo(ordinary.kappa!, 9);
    const subnormal = alignment(pairs(8, 2, 3, 9, [1, 5e-324]), 0.95);
    for (const v of [subnormal.tpr, subnormal.tnr, subnormal.agreement]) for (const x of Object.values(v!)) expect(Number.isFinite(x)).toBe(true);
  });
});
