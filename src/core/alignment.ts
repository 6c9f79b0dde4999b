/**
 * How well a rule (an LLM judge, or a code validator) agrees with people's grades (docs/judges.md,
 * "Alignment"). "Positive" is PASS:
 *   tp: judge PASS & person PASS   fp: judge PASS & person FAIL
 *   fn: judge FAIL & person PASS   tn: judge FAIL & person FAIL
 * TPR = tp/(tp+fn) (the share of good outputs the judge lets pass), TNR = tn/(tn+fp) (the share of bad
 * outputs it catches), agreement = (tp+tn)/n, each with an exact Clopper–Pearson interval, and Cohen's κ
 * (agreement beyond what two raters with these marginal shares reach by chance).
 *
 * Grades drawn with unequal probabilities (the design stratified by the judge's verdict oversamples its
 * rarer verdict) do not give the population's TPR/TNR by plain counting: the oversampled verdict would
 * weigh too much. When the pairs carry unequal inclusion probabilities, the rates and κ are weighted by
 * 1/probability (Horvitz–Thompson) and the intervals are Clopper–Pearson at Kish's effective sample size
 * (the Korn–Graubard interval core/cluster.ts uses too); `weighted` says so. The counts stay the graded ones.
 */
import { clopperPearson } from './intervals.js';
import { ArgumentError } from '../errors.js';

/** A rate with its interval (exact Clopper–Pearson at the requested level, or Korn–Graubard when weighted). */
export interface RateInterval {
  rate: number;
  low: number;
  high: number;
}

export interface Alignment {
  /** Graded outputs compared. */
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** P(judge PASS | person PASS); null without a person-PASS grade. */
  tpr: RateInterval | null;
  /** P(judge FAIL | person FAIL); null without a person-FAIL grade. */
  tnr: RateInterval | null;
  /** P(judge = person); null without grades. */
  agreement: RateInterval | null;
  /** Cohen's κ; null where undefined (no grades, or both raters gave one and the same verdict to everything). */
  kappa: number | null;
  /** True when the rates were weighted by unequal inclusion probabilities (see above). */
  weighted: boolean;
}

export interface GradedPair {
  judge: boolean;
  person: boolean;
  /** Inclusion probability of this output when it was drawn by a known design (core/grading-sample.ts). */
  probability?: number;
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new ArgumentError(`alignment: level must be in (0, 1), got ${level}`, { key: 'level' });
}

/** Inverse-probability weights (scaled to at most 1), or null when every pair has the same (or no) probability: plain counting is exact then. */
export function inclusionWeights(pairs: readonly { probability?: number }[], what: string): Float64Array | null {
  let min = Infinity;
  let max = -Infinity;
  let given = 0;
  pairs.forEach((p, i) => {
    if (p.probability === undefined) return;
    if (!(typeof p.probability === 'number' && p.probability > 0 && p.probability <= 1))
      throw new ArgumentError(`${what}: graded[${i}].probability must be in (0, 1], got ${String(p.probability)}`, { key: 'graded' });
    given++;
    min = Math.min(min, p.probability);
    max = Math.max(max, p.probability);
  });
  if (given === 0 || max <= min * (1 + 1e-9)) return null;
  if (given < pairs.length)
    throw new ArgumentError(`${what}: either every graded output carries its inclusion probability or none does (${given} of ${pairs.length} do)`, {
      key: 'graded',
    });
  // Scaled so the largest weight is 1: the ratios (all a Hájek mean and Kish's size use) are 1/p's, and no
  // square of a weight overflows, whatever probabilities are given.
  return Float64Array.from(pairs, (p) => min / p.probability!);
}

/** Clopper–Pearson at x of n; with weights, at Kish's effective size n_eff = (Σw)²/Σw² and x = rate·n_eff. */
function rateInterval(sumW: number, sumW2: number, hitW: number, level: number): RateInterval | null {
  if (sumW <= 0) return null;
  const rate = hitW / sumW;
  const nEff = (sumW * sumW) / sumW2;
  const ci = clopperPearson(Math.min(nEff, rate * nEff), nEff, level)!;
  return { rate, low: ci.low, high: ci.high };
}

export function alignment(pairs: readonly GradedPair[], level: number): Alignment {
  checkLevel(level);
  pairs.forEach((p, i) => {
    if (typeof p.judge !== 'boolean' || typeof p.person !== 'boolean')
      throw new ArgumentError(`alignment: pairs[${i}] must have boolean judge and person, got ${JSON.stringify(p)}`, { key: 'pairs' });
  });
  const w = inclusionWeights(pairs, 'alignment');
  const counts = { tp: 0, fp: 0, fn: 0, tn: 0 };
  // Weighted sums (w = 1 for plain counting): Σw and Σw² per cell.
  const sw = { tp: 0, fp: 0, fn: 0, tn: 0 };
  const sw2 = { tp: 0, fp: 0, fn: 0, tn: 0 };
  pairs.forEach((p, i) => {
    const cell = p.judge ? (p.person ? 'tp' : 'fp') : p.person ? 'fn' : 'tn';
    const wi = w ? w[i] : 1;
    counts[cell]++;
    sw[cell] += wi;
    sw2[cell] += wi * wi;
  });
  const n = pairs.length;
  const total = sw.tp + sw.fp + sw.fn + sw.tn;
  const total2 = sw2.tp + sw2.fp + sw2.fn + sw2.tn;
  const tpr = rateInterval(sw.tp + sw.fn, sw2.tp + sw2.fn, sw.tp, level);
  const tnr = rateInterval(sw.tn + sw.fp, sw2.tn + sw2.fp, sw.tn, level);
  const agreement = rateInterval(total, total2, sw.tp + sw.tn, level);
  let kappa: number | null = null;
  if (n > 0) {
    const po = (sw.tp + sw.tn) / total;
    const judgePass = (sw.tp + sw.fp) / total;
    const personPass = (sw.tp + sw.fn) / total;
    const pe = judgePass * personPass + (1 - judgePass) * (1 - personPass);
    // pe = 1 only when both raters gave the same single verdict to everything: κ is 0/0 there.
    if (pe < 1 - 1e-12) kappa = (po - pe) / (1 - pe);
  }
  return { n, ...counts, tpr, tnr, agreement, kappa, weighted: w !== null };
}
