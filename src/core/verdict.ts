/**
 * Verdicts of one validator against its minimum success rate (white paper §2–3: "rate ≥ minSuccess"),
 * and sample-size planning.
 *
 * - `point` mode is the paper's: pass when the observed rate x/n ≥ minSuccess.
 * - `confident` mode uses the interval: pass when its lower bound ≥ minSuccess, fail when its upper
 *   bound < minSuccess, otherwise inconclusive — more samples are needed to tell.
 * With no decided cell (n = 0) the verdict is inconclusive in both modes: there is nothing to judge.
 */
import { interval } from './intervals.js';
import type { Interval, IntervalMethod, Verdict, VerdictMode } from './summary-types.js';

export interface VerdictOptions {
  mode: VerdictMode;
  interval: IntervalMethod;
  level: number;
}

export interface VerdictResult {
  verdict: Verdict;
  /** Confident mode, inconclusive only: see {@link samplesToDecide}. */
  samplesToDecide?: number;
}

/** The paper's verdict: rate ≥ minSuccess. */
export function pointVerdict(rate: number | null, minSuccess: number): Verdict {
  if (rate === null) return 'inconclusive';
  return rate >= minSuccess ? 'pass' : 'fail';
}

/** Verdict on the interval's bounds. */
export function confidentVerdict(ci: Interval | null, minSuccess: number): Verdict {
  if (ci === null) return 'inconclusive';
  if (ci.low >= minSuccess) return 'pass';
  if (ci.high < minSuccess) return 'fail';
  return 'inconclusive';
}

/** Beyond this many further samples the question is practically undecidable: Infinity is returned. */
export const MAX_PLANNED_SAMPLES = 1e9;

/**
 * Further samples that would likely decide a confident-mode verdict.
 *
 * Rule: assume the observed rate p̂ = x/n holds for the new samples (so x grows as p̂·(n + m), fractional
 * counts allowed), and return the smallest m ≥ 1 for which the interval at n + m excludes minSuccess
 * (lower bound ≥ minSuccess when p̂ > minSuccess; upper bound < minSuccess when p̂ < minSuccess).
 * It is a planning estimate, not a promise: the rate that comes may differ. Returns
 * - undefined when nothing was decided yet (n = 0) or p̂ = minSuccess (no number of samples decides it
 *   under this rule); use {@link zeroFailureSamples} to plan a run from scratch;
 * - 0 when the current interval already decides it;
 * - Infinity when more than {@link MAX_PLANNED_SAMPLES} would be needed.
 */
export function samplesToDecide(x: number, n: number, minSuccess: number, method: IntervalMethod, level: number): number | undefined {
  if (n === 0) return undefined;
  const p = x / n;
  if (p === minSuccess) return undefined;
  const above = p > minSuccess;
  const decided = (total: number): boolean => {
    const ci = interval(method, p * total, total, level) as Interval;
    return above ? ci.low >= minSuccess : ci.high < minSuccess;
  };
  if (decided(n)) return 0;
  // Interval width shrinks as n grows: double until decided, then bisect for the smallest m.
  let bad = 0;
  let good = 1;
  while (!decided(n + good)) {
    bad = good;
    good *= 2;
    if (good > MAX_PLANNED_SAMPLES) return Infinity;
  }
  while (good - bad > 1) {
    const mid = Math.floor((bad + good) / 2);
    if (decided(n + mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/**
 * A validator's verdict from its pass count x and decided count n (= pass + fail; errors and pending
 * cells are not in n). In confident mode an inconclusive verdict carries `samplesToDecide`.
 */
export function validatorVerdict(x: number, n: number, minSuccess: number, options: VerdictOptions): VerdictResult {
  if (!(minSuccess >= 0 && minSuccess <= 1)) throw new RangeError(`minSuccess must be in [0, 1], got ${minSuccess}`);
  if (options.mode === 'point') return { verdict: pointVerdict(n === 0 ? null : x / n, minSuccess) };
  const verdict = confidentVerdict(interval(options.interval, x, n, options.level), minSuccess);
  if (verdict !== 'inconclusive') return { verdict };
  const more = samplesToDecide(x, n, minSuccess, options.interval, options.level);
  return more === undefined ? { verdict } : { verdict, samplesToDecide: more };
}

/**
 * Zero-failure plan: the number n of consecutive passes (no failure) needed to show p ≥ p0 with
 * confidence `level` = 1 − α, from p0ⁿ ≤ α: n = ⌈ln α / ln p0⌉ (59 for p0 = 0.95 at 95%).
 * This is the one-sided bound; a two-sided 95% Clopper–Pearson lower bound needs α/2 instead (72 for 0.95).
 */
export function zeroFailureSamples(p0: number, level = 0.95): number {
  if (!(p0 > 0 && p0 < 1)) throw new RangeError(`zeroFailureSamples: p0 must be in (0, 1), got ${p0}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`zeroFailureSamples: level must be in (0, 1), got ${level}`);
  const exact = Math.log(1 - level) / Math.log(p0);
  // Guard against a ratio that is an integer in exact arithmetic landing a hair above it.
  return Math.max(1, Math.ceil(exact - 1e-9));
}
