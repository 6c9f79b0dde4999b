/**
 * Verdicts of one validator against its minimum success rate (white paper §2–3: "rate ≥ minSuccess").
 *
 * Errors are missing data: the rate leaves them out, but a verdict must hold however they would have
 * resolved. An error that tracks bad outputs (a parser throwing on non-JSON, a judge confused by a planted
 * verdict) would otherwise buy a pass. So, over the n = pass + fail + error checked cells:
 *
 * - `confident`: pass when the interval's lower bound with every error counted as a failure,
 *   low(pass, n), is ≥ minSuccess; fail when its upper bound with every error counted as a pass,
 *   high(pass + error, n), is < minSuccess. Otherwise undecided: `error` when the error share exceeds
 *   maxErrorShare (the errors are what keeps it open), else `inconclusive`, with how many more outputs
 *   decide it with a stated probability.
 * - `point` (the paper's): `error` when the error share exceeds maxErrorShare, else rate ≥ minSuccess.
 *
 * With no decided cell the verdict is `error` if cells errored, `inconclusive` if nothing was checked.
 */
import { interval } from './intervals.js';
import { toDecide } from './sample-size.js';
import type { IntervalMethod, Verdict, VerdictMode } from './rate-types.js';
import { ArgumentError } from '../errors.js';
import { formatRate } from './show.js';

export interface VerdictOptions {
  mode: VerdictMode;
  interval: IntervalMethod;
  level: number;
  /** Largest error share a verdict may rest on; default {@link DEFAULT_MAX_ERROR_SHARE}. */
  maxErrorShare?: number;
}

/**
 * The default verdict mode: `confident`. A point verdict passes one lucky output ("1 of 1, rate 100% ≥ 95%");
 * a confident one needs the interval to clear minSuccess, and is `inconclusive` until it does.
 */
export const DEFAULT_VERDICT_MODE: VerdictMode = 'confident';

/**
 * Why an interval method cannot decide confident verdicts, or undefined when it can. Wald's interval is
 * degenerate at 0 and n (zero width: one passing output gives [100%, 100%], a "lower bound 100%" PASS), so
 * confident verdicts on it do not hold their level; it stays available with `point`, for comparison.
 */
export function intervalProblem(method: IntervalMethod, mode: VerdictMode): string | undefined {
  if (method === 'wald' && mode === 'confident')
    return 'expected clopper-pearson or wilson with verdict: confident (the default), found "wald": Wald\'s bound is degenerate at 0 and n (one passing output gives the interval [100%, 100%], a "lower bound 100%" PASS); keep wald for comparison with verdict: point';
  return undefined;
}

/** Default maxErrorShare: a verdict may rest on at most 5% of its cells being errors. */
export const DEFAULT_MAX_ERROR_SHARE = 0.05;
/** The probability `toDecide` is stated at. */
export const TO_DECIDE_PROBABILITY = 0.8;

export interface VerdictCounts {
  pass: number;
  fail: number;
  error: number;
}

export interface VerdictResult {
  verdict: Verdict;
  /** One line: why. */
  reason: string;
  /** Bounds with errors as failures (low) and as passes (high); null when nothing was checked. */
  errorBounds: { low: number; high: number } | null;
  /** Confident mode, inconclusive: more outputs that decide it with `probability` if the shares hold. */
  toDecide?: { outputs: number; probability: number };
}

/** The paper's verdict: rate ≥ minSuccess; inconclusive without a rate. */
export function pointVerdict(rate: number | null, minSuccess: number): Verdict {
  if (rate === null) return 'inconclusive';
  return rate >= minSuccess ? 'pass' : 'fail';
}

/** A bound beside the threshold it is compared with, with enough digits (1 to 4) that the two read differently. */
export function pctBeside(x: number, threshold: number): string {
  let digits = 1;
  while (digits < 4 && formatRate(x, digits) === formatRate(threshold, digits)) digits++;
  return formatRate(x, digits);
}

/** The interval's lower bound with errors as failures and upper bound with errors as passes. */
export function errorBounds(c: VerdictCounts, method: IntervalMethod, level: number): { low: number; high: number } | null {
  const n = c.pass + c.fail + c.error;
  if (n === 0) return null;
  return { low: interval(method, c.pass, n, level)!.low, high: interval(method, c.pass + c.error, n, level)!.high };
}

/** Checks shared by the verdict functions. */
export function checkVerdictArguments(minSuccess: number, maxErrorShare: number): void {
  if (!(minSuccess >= 0 && minSuccess <= 1)) throw new ArgumentError(`minSuccess must be in [0, 1], got ${minSuccess}`, { key: 'minSuccess' });
  if (!(maxErrorShare >= 0 && maxErrorShare <= 1)) throw new ArgumentError(`maxErrorShare must be in [0, 1], got ${maxErrorShare}`, { key: 'maxErrorShare' });
}

/** A validator's verdict from its pass, fail and error counts (pending cells are not counted). */
export function validatorVerdict(c: VerdictCounts, minSuccess: number, options: VerdictOptions): VerdictResult {
  const maxErrorShare = options.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE;
  checkVerdictArguments(minSuccess, maxErrorShare);
  const n = c.pass + c.fail + c.error;
  const bounds = errorBounds(c, options.interval, options.level);
  if (n === 0) return { verdict: 'inconclusive', reason: 'nothing checked', errorBounds: null };
  if (c.pass + c.fail === 0) return { verdict: 'error', reason: `every checked cell is an error (${c.error})`, errorBounds: bounds };
  const share = c.error / n;
  const tooManyErrors = share > maxErrorShare;
  const errorReason = `error share ${formatRate(share)} > maxErrorShare ${formatRate(maxErrorShare)}: the errors could hide failures`;
  if (options.mode === 'point') {
    if (tooManyErrors) return { verdict: 'error', reason: errorReason, errorBounds: bounds };
    const rate = c.pass / (c.pass + c.fail);
    return {
      verdict: pointVerdict(rate, minSuccess),
      reason: `rate ${pctBeside(rate, minSuccess)} ${rate >= minSuccess ? '≥' : '<'} minSuccess ${formatRate(minSuccess)}`,
      errorBounds: bounds,
    };
  }
  const b = bounds!;
  const errorsNote = c.error > 0 ? ', errors counted as failures' : '';
  if (b.low >= minSuccess)
    return { verdict: 'pass', reason: `lower bound ${pctBeside(b.low, minSuccess)} ≥ minSuccess ${formatRate(minSuccess)}${errorsNote}`, errorBounds: b };
  if (b.high < minSuccess)
    return {
      verdict: 'fail',
      reason: `upper bound ${pctBeside(b.high, minSuccess)} < minSuccess ${formatRate(minSuccess)}${c.error > 0 ? ', errors counted as passes' : ''}`,
      errorBounds: b,
    };
  if (tooManyErrors)
    return { verdict: 'error', reason: `${errorReason}; bounds [${formatRate(b.low)}, ${formatRate(b.high)}] straddle minSuccess`, errorBounds: b };
  const more = toDecide(c, minSuccess, options.interval, options.level, TO_DECIDE_PROBABILITY);
  const result: VerdictResult = {
    verdict: 'inconclusive',
    reason: `bounds [${formatRate(b.low)}, ${formatRate(b.high)}] straddle minSuccess ${formatRate(minSuccess)}`,
    errorBounds: b,
  };
  if (more !== undefined) result.toDecide = { outputs: more, probability: TO_DECIDE_PROBABILITY };
  return result;
}

/**
 * Zero-failure plan: the number n of consecutive passes (no failure) needed to show p ≥ p0 with
 * confidence `level` = 1 − α, from p0ⁿ ≤ α: n = ⌈ln α / ln p0⌉ (59 for p0 = 0.95 at 95%).
 * This is the one-sided bound; a two-sided 95% Clopper–Pearson lower bound needs α/2 instead (72 for 0.95).
 */
export function zeroFailureSamples(p0: number, level = 0.95): number {
  if (!(p0 > 0 && p0 < 1)) throw new ArgumentError(`zeroFailureSamples: p0 must be in (0, 1), got ${p0}`, { key: 'p0' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`zeroFailureSamples: level must be in (0, 1), got ${level}`, { key: 'level' });
  const exact = Math.log(1 - level) / Math.log(p0);
  // Guard against a ratio that is an integer in exact arithmetic landing a hair above it.
  return Math.max(1, Math.ceil(exact - 1e-9));
}

/**
 * A graded rule's verdict on its corrected rate (core/ppi.ts). The corrected interval is over the outputs the
 * rule decided; errors are missing data as above: over all n checked outputs the rate lies in
 * [low·(1 − e), high·(1 − e) + e] for an error share e, whatever the errored outputs were. `confident` passes on
 * the first bound and fails on the second; `point` compares the corrected rate.
 */
export function correctedVerdict(
  c: VerdictCounts,
  corrected: { rate: number; low: number; high: number; grades: number },
  minSuccess: number,
  options: VerdictOptions,
): VerdictResult {
  const maxErrorShare = options.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE;
  checkVerdictArguments(minSuccess, maxErrorShare);
  const n = c.pass + c.fail + c.error;
  if (n === 0 || c.pass + c.fail === 0) return validatorVerdict(c, minSuccess, options);
  const share = c.error / n;
  const bounds = { low: corrected.low * (1 - share), high: corrected.high * (1 - share) + share };
  const by = `corrected by ${corrected.grades} grades`;
  const tooManyErrors = share > maxErrorShare;
  const errorReason = `error share ${formatRate(share)} > maxErrorShare ${formatRate(maxErrorShare)}: the errors could hide failures`;
  if (options.mode === 'point') {
    if (tooManyErrors) return { verdict: 'error', reason: errorReason, errorBounds: bounds };
    const ok = corrected.rate >= minSuccess;
    return {
      verdict: ok ? 'pass' : 'fail',
      reason: `rate ${pctBeside(corrected.rate, minSuccess)} (${by}) ${ok ? '≥' : '<'} minSuccess ${formatRate(minSuccess)}`,
      errorBounds: bounds,
    };
  }
  if (bounds.low >= minSuccess)
    return {
      verdict: 'pass',
      reason: `lower bound ${pctBeside(bounds.low, minSuccess)} (${by}) ≥ minSuccess ${formatRate(minSuccess)}${c.error ? ', errors counted as failures' : ''}`,
      errorBounds: bounds,
    };
  if (bounds.high < minSuccess)
    return {
      verdict: 'fail',
      reason: `upper bound ${pctBeside(bounds.high, minSuccess)} (${by}) < minSuccess ${formatRate(minSuccess)}${c.error ? ', errors counted as passes' : ''}`,
      errorBounds: bounds,
    };
  const straddle = `bounds [${formatRate(bounds.low)}, ${formatRate(bounds.high)}] (${by}) straddle minSuccess`;
  if (tooManyErrors) return { verdict: 'error', reason: `${errorReason}; ${straddle}`, errorBounds: bounds };
  return { verdict: 'inconclusive', reason: `${straddle} ${formatRate(minSuccess)}`, errorBounds: bounds };
}
