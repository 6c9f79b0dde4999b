/**
 * Per-input floors (issue 19): "each input passes at least `minSuccess` of its repeats", decided input by
 * input, with the family-wise error held across the inputs.
 *
 * The rule, for one validator with floor p0 over inputs i = 1 … m (inputs with no checked cell are left out):
 *
 * - Errors are missing data (as core/verdict.ts errorBounds): over the n_i = pass + fail + error checked cells,
 *   an input is shown failing with every error counted as a pass, and shown passing with every error counted
 *   as a failure, so the verdict holds however the errors would have resolved.
 * - Failing: a one-sided exact binomial test of H0: p_i ≥ p0, p-value P(X ≤ pass + error | n_i, p0).
 *   Passing (confident verdicts only): a one-sided exact test of H0: p_i < p0, p-value P(X ≥ pass | n_i, p0).
 * - Holm's step-down over the m inputs, each direction apart, each at α/2 with α = 1 − confidence: the chance
 *   of naming any input failing whose true rate is ≥ p0 is at most α/2, of naming any input passing whose true
 *   rate is < p0 at most α/2, so of any wrong per-input call at most α. α/2 a side is the split the rule's own
 *   two-sided interval makes: with one input, the per-input verdict is exactly its Clopper–Pearson interval's
 *   (P(X ≥ x | p0) ≤ α/2 ⟺ the lower bound is ≥ p0), and Holm only ever asks more of each input.
 *
 * Verdict per input: `fail` when shown failing; `confident`: `pass` when shown passing; `point`: `pass` when
 * its rate is ≥ p0 (a point estimate, as the point verdict), so no input is failed without evidence nor
 * passed below its floor. Otherwise `error` when its errors exceed maxErrorShare (or it has only errors),
 * else `inconclusive`. The floors' verdict: fail if any input fails, else error, else inconclusive, else pass.
 *
 * The tests are exact for a fixed number of samples; they do not hold if the number of samples depends on the
 * data, which is why a rule with perInput cannot be run with stopping: sequential (floorUnderSequential below).
 */
import { holmAdjust } from './significance.js';
import { logChoose } from './distributions.js';
import { clopperPearson } from './intervals.js';
import type { Counts, StoppingRule, Verdict, VerdictMode } from './rate-types.js';
import { DEFAULT_MAX_ERROR_SHARE } from './verdict.js';
import { ArgumentError } from '../errors.js';
import { formatLevel, formatRate } from './show.js';

/** `perInput: { minSuccess }` on a rule: each input passes at least minSuccess of its repeats. */
export interface PerInputFloor {
  minSuccess: number;
}

/**
 * The one check of per-input floors against sequential stopping: the floors' exact tests need a number of
 * samples fixed in advance, and a sequential run stops when its data decide the rule, which would void them.
 * Returns the index of the first rule with a floor when `stopping` is sequential (the pair is refused), else
 * undefined. Config loading, the sequential stop rule and summarize all ask it; perInputWithSequential words it.
 */
export function floorUnderSequential(stopping: StoppingRule | undefined, rules: readonly { perInput?: unknown }[]): number | undefined {
  if (stopping !== 'sequential') return undefined;
  const k = rules.findIndex((r) => r.perInput !== undefined && r.perInput !== false);
  return k < 0 ? undefined : k;
}

/** The refusal of a floor under sequential stopping, in one wording; `floor` says where the floor is. */
export function perInputWithSequential(floor?: string): string {
  return `expected no perInput with stopping: sequential, found a per-input floor${floor ? ` (${floor})` : ''}: its exact per-input tests need a number of samples fixed in advance, and a sequential run stops when the data decide the rule (use stopping: fixed, or drop perInput)`;
}

export interface InputFloor {
  /** Input index i. */
  input: number;
  /** Decided outputs (pass + fail): the rate's denominator. */
  n: number;
  successes: number;
  /** Error outcomes: missing data, resolved against the verdict in each test. */
  errors: number;
  /** successes / n; null when nothing was decided. */
  rate: number | null;
  /** Its own exact (Clopper–Pearson) interval at the run's confidence, errors as failures (low) and as passes (high). */
  low: number | null;
  high: number | null;
  /** The one-sided exact p-value of "below its floor" (H0: p_i ≥ minSuccess, errors as passes); null when nothing was checked. */
  pValue: number | null;
  /** That p-value, Holm-adjusted over the inputs: it fails when this is ≤ alpha. */
  adjusted: number | null;
  /** Confident verdicts: the p-value of "at or above its floor" (H0: p_i < minSuccess, errors as failures), and Holm-adjusted. */
  passPValue?: number | null;
  passAdjusted?: number | null;
  verdict: Verdict;
}

export interface PerInputResult {
  minSuccess: number;
  method: 'holm';
  /** The run's confidence; each direction's family-wise error is held at alpha = (1 − level) / 2. */
  level: number;
  alpha: number;
  verdict: Verdict;
  /** One line: why. */
  reason: string;
  inputs: InputFloor[];
  /** Indices of the inputs shown below their floor, worst (smallest adjusted p-value) first. */
  failing: number[];
}

export interface PerInputOptions {
  mode: VerdictMode;
  level: number;
  maxErrorShare?: number;
}

/** log(e^a + e^b) without overflow. */
function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  const hi = Math.max(a, b);
  return hi + Math.log1p(Math.exp(Math.min(a, b) - hi));
}

function checkBinomial(x: number, n: number, p: number): void {
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(x) && x >= 0 && x <= n))
    throw new ArgumentError(`binomial: expected whole numbers 0 ≤ x ≤ n, got x=${x}, n=${n}`, { key: Number.isInteger(n) && n >= 0 ? 'x' : 'n' });
  if (!(p >= 0 && p <= 1)) throw new ArgumentError(`binomial: p must be in [0, 1], got ${p}`, { key: 'p' });
}

/**
 * log Σ P(X = k) for k = from … to, X ~ Binomial(n, p), 0 < p < 1: the first term from logChoose, the rest by
 * the ratio P(k + 1) / P(k) = (n − k) / (k + 1) · p / (1 − p), summed in log space (tiny tails keep their digits).
 */
function logTail(from: number, to: number, n: number, p: number): number {
  const odds = Math.log(p) - Math.log1p(-p);
  let term = logChoose(n, from) + from * Math.log(p) + (n - from) * Math.log1p(-p);
  let s = term;
  for (let k = from; k < to; k++) {
    term += Math.log((n - k) / (k + 1)) + odds;
    s = logAdd(s, term);
  }
  return s;
}

/** P(X ≤ x) for X ~ Binomial(n, p), exact to rounding. */
export function binomialCdf(x: number, n: number, p: number): number {
  checkBinomial(x, n, p);
  if (x === n || p === 0) return 1;
  if (p === 1) return 0;
  return Math.min(1, Math.exp(logTail(0, x, n, p)));
}

/** P(X ≥ x) for X ~ Binomial(n, p), exact to rounding. */
export function binomialSf(x: number, n: number, p: number): number {
  checkBinomial(x, n, p);
  if (x === 0 || p === 1) return 1;
  if (p === 0) return 0;
  return Math.min(1, Math.exp(logTail(x, n, n, p)));
}

/**
 * The per-input verdicts of one rule: `perInput[i]` are input i's counts for the rule (pending cells are not
 * counted). Pure; the one function that decides whether an input meets its floor.
 */
export function perInputFloors(perInput: readonly Counts[], floor: PerInputFloor, options: PerInputOptions): PerInputResult {
  const p0 = floor.minSuccess;
  if (!(p0 > 0 && p0 < 1)) throw new ArgumentError(`perInput.minSuccess must be strictly between 0 and 1, got ${p0}`, { key: 'perInput.minSuccess' });
  if (!(options.level > 0 && options.level < 1)) throw new ArgumentError(`level must be in (0, 1), got ${options.level}`, { key: 'level' });
  const maxErrorShare = options.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE;
  const alpha = (1 - options.level) / 2;
  const confident = options.mode === 'confident';

  const checked = perInput.map((c) => c.pass + c.fail + c.error);
  const failP = perInput.map((c, i) => (checked[i] ? binomialCdf(c.pass + c.error, checked[i], p0) : null));
  const passP = perInput.map((c, i) => (checked[i] ? binomialSf(c.pass, checked[i], p0) : null));
  const failAdj = holmAdjust(failP);
  const passAdj = holmAdjust(passP);

  const inputs: InputFloor[] = perInput.map((c, i) => {
    const n = c.pass + c.fail;
    const all = checked[i];
    const rate = n ? c.pass / n : null;
    const verdict = ((): Verdict => {
      if (!all) return 'inconclusive';
      if (failAdj[i]! <= alpha) return 'fail';
      if (confident ? passAdj[i]! <= alpha : rate !== null && rate >= p0 && c.error / all <= maxErrorShare) return 'pass';
      if (n === 0 || c.error / all > maxErrorShare) return 'error';
      return 'inconclusive';
    })();
    return {
      input: i,
      n,
      successes: c.pass,
      errors: c.error,
      rate,
      low: all ? clopperPearson(c.pass, all, options.level)!.low : null,
      high: all ? clopperPearson(c.pass + c.error, all, options.level)!.high : null,
      pValue: failP[i],
      adjusted: failAdj[i],
      ...(confident ? { passPValue: passP[i], passAdjusted: passAdj[i] } : {}),
      verdict,
    };
  });
  const failing = inputs
    .filter((x) => x.verdict === 'fail')
    .sort((a, b) => a.adjusted! - b.adjusted! || a.input - b.input)
    .map((x) => x.input);
  const count = (v: Verdict) => inputs.filter((x) => x.verdict === v).length;
  const verdict: Verdict = failing.length ? 'fail' : count('error') ? 'error' : count('inconclusive') ? 'inconclusive' : 'pass';
  const family = `Holm, family-wise ${formatLevel(options.level)}`;
  const floorText = `floor ${formatRate(p0)}`;
  const reason =
    verdict === 'fail'
      ? `${failing.length} of ${inputs.length} inputs below their ${floorText} (${family})`
      : verdict === 'pass'
        ? confident
          ? `every input at or above its ${floorText} (${family})`
          : `every input's rate ≥ its ${floorText}, none shown below it (${family})`
        : verdict === 'error'
          ? `${count('error')} of ${inputs.length} inputs undecided with too many errors (maxErrorShare ${formatRate(maxErrorShare)}) against their ${floorText}`
          : `${count('inconclusive')} of ${inputs.length} inputs neither shown at nor below their ${floorText} (${family})`;
  return { minSuccess: p0, method: 'holm', level: options.level, alpha, verdict, reason, inputs, failing };
}

/**
 * A rule's verdict with per-input floors: fail if its aggregate fails or any input fails its floor; pass only
 * if both pass; otherwise the undecided one (`error` before `inconclusive`), as the run's overall verdict.
 */
export function combinePerInput(aggregate: Verdict, floors: Verdict): Verdict {
  for (const v of ['fail', 'error', 'inconclusive'] as const) if (aggregate === v || floors === v) return v;
  return 'pass';
}
