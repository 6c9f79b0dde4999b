/**
 * The input-population rate (issue 29, docs/verdicts.md#two-claims-the-inputs-run-and-the-input-population): what
 * a rule's rate says about the inputs you will meet, not only the N inputs you ran.
 *
 * A run is N inputs × M samples. Its rate's usual interval (Clopper–Pearson over the N·M outputs) is about the
 * inputs run: the inputs are fixed and each output is a trial. Read as a claim about the population the inputs
 * were drawn from, it is far too narrow: outputs of one input are correlated (one input may always fail), so
 * the N·M outputs are worth between N and N·M independent trials — and more samples per input narrow it while
 * the between-input spread stays. For that claim the input is the unit (Miller, "Adding Error Bars to Evals",
 * 2024: cluster the standard errors by input).
 *
 * Estimand: μ = E[p_I], the success rate of an input drawn at random from the population, each input weighted
 * alike. Estimate: μ̂ = the mean of each input's rate p̂_i = pass_i / (pass_i + fail_i) (inputs with no decided
 * output are left out, and counted); each p̂_i is unbiased for its p_i and lies in [0, 1].
 *
 * Interval (`cluster-cp`): Clopper–Pearson on an effective number of inputs-worth of trials (Korn & Graubard,
 * "Confidence intervals for proportions with small expected number of positive counts estimated from survey
 * data", Survey Methodology 1998), with the input as the cluster:
 *
 *   V = s²(p̂_1 … p̂_N) / N          (the cluster-robust variance of μ̂ — Miller's clustered SE, squared)
 *   n* = μ̂(1 − μ̂) / V · (z_{1−α/2} / t_{d−1, 1−α/2})²,   kept in [N, Σ n_i]
 *   interval = Clopper–Pearson at μ̂·n* successes of n*
 *
 * with d the number of inputs that show the rarer outcome (inputs with a pass, or with a failure, whichever is
 * fewer) as the degrees of freedom: the spread of a rare outcome is only as well known as the inputs that show it.
 * Why this holds at small N, where a normal interval (μ̂ ± t·√V) does not:
 *
 * - n* ≥ N always: any [0, 1] variable with mean μ has variance ≤ μ(1 − μ), so Var(μ̂) ≤ μ(1 − μ)/N — the
 *   variance of N Bernoulli trials. At the floor (the data cannot show a spread: every input passes every
 *   sample, one input shows every failure, or N inputs that are each all-pass or all-fail) the interval is
 *   Clopper–Pearson over the N inputs, exact for all-or-nothing inputs and never collapsing: 10 inputs that
 *   pass every sample give [69.2%, 100%], not [100%, 100%].
 * - Σ n_i at most: never narrower than the inputs-run interval.
 * - Coverage is measured by simulation over Beta-distributed, U-shaped and all-or-nothing per-input rates,
 *   N 5 … 500, M 1 … 100 (`npm run -s bench:population`; docs/verdicts.md gives the figures).
 *
 * `betting` (for comparison, and for the pass^k figures of core/pass-k.ts): Waudby-Smith & Ramdas's betting
 * interval for the mean of the p̂_i — valid at every N by construction, but wider (8 of 10 inputs all-pass:
 * [37%, 100%] against Clopper–Pearson's [44%, 97.5%]).
 *
 * The design effect (Kish): deff = Var(μ̂) / (μ(1 − μ)/Σ n_i), how many outputs one input's worth of information
 * costs; with the intra-input correlation ρ (the share of the variance of one output that is between inputs),
 * deff = 1 + (M − 1)ρ for M samples per input. `assay plan --inputs-vs-samples` uses ρ to weigh inputs against
 * samples (core/sample-size.ts).
 */
import { bettingInterval } from './betting.js';
import { tCritical } from './cluster.js';
import { clopperPearson, zCritical } from './intervals.js';
import type { Counts, VerdictMode } from './rate-types.js';
import { formatRate } from './show.js';
import { checkVerdictArguments, DEFAULT_MAX_ERROR_SHARE, pctBeside, type VerdictResult } from './verdict.js';
import { ArgumentError } from '../errors.js';

export type PopulationMethod = 'cluster-cp' | 'betting';
export const POPULATION_METHODS: readonly PopulationMethod[] = ['cluster-cp', 'betting'];

/** The input-population rate of one rule: an input drawn at random from the population the inputs came from. */
export interface PopulationRate {
  /** The mean over inputs of each input's rate. */
  rate: number;
  low: number;
  high: number;
  method: PopulationMethod;
  level: number;
  /** Inputs with a decided output: the units. */
  inputs: number;
  /** Inputs left out: no decided output (every cell an error, or none checked). */
  leftOut: number;
  /** The effective number of trials the interval rests on (cluster-cp), between `inputs` and the decided outputs. */
  effectiveN: number | null;
  /**
   * Intra-input correlation ρ: the share of one output's variance that lies between inputs (0: inputs alike; 1:
   * each input always passes or always fails); null when the data cannot tell (a rate of 0 or 1, or one input).
   */
  icc: number | null;
  /** Kish's design effect of the pooled rate: its variance over that of Σ n_i independent outputs; null as icc. */
  designEffect: number | null;
}

/** A mean of per-input rates with its interval; the rates are taken in input order. */
interface MeanInterval {
  rate: number;
  low: number;
  high: number;
  effectiveN: number | null;
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new ArgumentError(`populationRate: level must be in (0, 1), got ${level}`, { key: 'level' });
}

/**
 * The cluster-cp interval of the mean of `rates` (each input's p̂_i) over inputs with `decided` outputs each,
 * `withPass` and `withFail` of them showing a pass and a failure. Needs at least two rates.
 */
function clusterCp(rates: readonly number[], decided: number, withPass: number, withFail: number, level: number): MeanInterval {
  const N = rates.length;
  const mean = rates.reduce((a, x) => a + x, 0) / N;
  const floor = (): MeanInterval => {
    const ci = clopperPearson(mean * N, N, level)!;
    return { rate: mean, low: ci.low, high: ci.high, effectiveN: N };
  };
  const df = Math.min(withPass, withFail) - 1;
  if (mean <= 0 || mean >= 1 || df < 1) return floor();
  const s2 = rates.reduce((a, x) => a + (x - mean) ** 2, 0) / (N - 1);
  const v = s2 / N;
  const raw = v > 0 ? (mean * (1 - mean)) / v : Infinity;
  const nStar = Math.min(Math.max(decided, N), Math.max(N, raw * (zCritical(level) / tCritical(level, df)) ** 2));
  const ci = clopperPearson(Math.min(nStar, mean * nStar), nStar, level)!;
  return { rate: mean, low: ci.low, high: ci.high, effectiveN: nStar };
}

function meanInterval(rates: readonly number[], decided: number, withPass: number, withFail: number, level: number, method: PopulationMethod): MeanInterval {
  if (method === 'betting') {
    const b = bettingInterval(rates, level)!;
    return { rate: b.mean, low: b.low, high: b.high, effectiveN: null };
  }
  return clusterCp(rates, decided, withPass, withFail, level);
}

/** Between-input variance over the total, and the design effect at the run's mean number of decided outputs per input. */
function designOf(perInput: readonly { pass: number; n: number }[]): { icc: number | null; designEffect: number | null } {
  const used = perInput.filter((c) => c.n > 0);
  const N = used.length;
  if (N < 2) return { icc: null, designEffect: null };
  const rates = used.map((c) => c.pass / c.n);
  const mean = rates.reduce((a, x) => a + x, 0) / N;
  const total = mean * (1 - mean);
  if (total <= 0) return { icc: null, designEffect: null };
  const s2 = rates.reduce((a, x) => a + (x - mean) ** 2, 0) / (N - 1);
  // E[p̂(1 − p̂)] = p(1 − p)(n − 1)/n, so p̂(1 − p̂)/(n − 1) is unbiased for the within-input variance of p̂_i.
  const within = used.reduce((a, c, i) => a + (c.n > 1 ? (rates[i] * (1 - rates[i])) / (c.n - 1) : total), 0) / N;
  const between = Math.max(0, s2 - within);
  const icc = Math.min(1, between / total);
  const mBar = used.reduce((a, c) => a + c.n, 0) / N;
  return { icc, designEffect: 1 + (mBar - 1) * icc };
}

/**
 * The input-population rate from each input's counts (errors are missing data: left out of each input's rate);
 * null with fewer than two inputs that decided anything (one input says nothing about a population).
 */
export function populationRate(perInput: readonly Counts[], level: number, method: PopulationMethod = 'cluster-cp'): PopulationRate | null {
  checkLevel(level);
  if (!POPULATION_METHODS.includes(method))
    throw new ArgumentError(`populationRate: method must be one of ${POPULATION_METHODS.join(', ')}, got ${JSON.stringify(method)}`, { key: 'method' });
  const used = perInput.filter((c) => c.pass + c.fail > 0);
  if (used.length < 2) return null;
  const rates = used.map((c) => c.pass / (c.pass + c.fail));
  const decided = used.reduce((a, c) => a + c.pass + c.fail, 0);
  const withPass = used.filter((c) => c.pass > 0).length;
  const withFail = used.filter((c) => c.fail > 0).length;
  const m = meanInterval(rates, decided, withPass, withFail, level, method);
  return {
    rate: m.rate,
    low: m.low,
    high: m.high,
    method,
    level,
    inputs: used.length,
    leftOut: perInput.length - used.length,
    effectiveN: m.effectiveN,
    ...designOf(used.map((c) => ({ pass: c.pass, n: c.pass + c.fail }))),
  };
}

/**
 * The population interval with every error counted as a failure (low) and as a pass (high), over the inputs with
 * a checked cell: what a confident verdict on the population decides on. null with fewer than two such inputs.
 */
export function populationErrorBounds(
  perInput: readonly Counts[],
  level: number,
  method: PopulationMethod = 'cluster-cp',
): { low: number; high: number } | null {
  checkLevel(level);
  const checked = perInput.filter((c) => c.pass + c.fail + c.error > 0);
  if (checked.length < 2) return null;
  const side = (asPass: boolean): MeanInterval => {
    const rows = checked.map((c) => ({ pass: c.pass + (asPass ? c.error : 0), n: c.pass + c.fail + c.error }));
    return meanInterval(
      rows.map((r) => r.pass / r.n),
      rows.reduce((a, r) => a + r.n, 0),
      rows.filter((r) => r.pass > 0).length,
      rows.filter((r) => r.pass < r.n).length,
      level,
      method,
    );
  };
  return { low: side(false).low, high: side(true).high };
}

export interface PopulationVerdictOptions {
  mode: VerdictMode;
  level: number;
  maxErrorShare?: number;
  method?: PopulationMethod;
}

/**
 * A rule's verdict about the input population (`estimand: population`), decided as core/verdict.ts decides the
 * inputs-run one: `confident` passes when the population lower bound with every error counted as a failure clears
 * minSuccess, fails when the upper bound with every error counted as a pass is below it, else `error` (too many
 * errors) or `inconclusive`; `point` compares the population rate. Fewer than two inputs: `inconclusive` (one
 * input says nothing about a population).
 */
export function populationVerdict(perInput: readonly Counts[], minSuccess: number, o: PopulationVerdictOptions): VerdictResult {
  const maxErrorShare = o.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE;
  checkVerdictArguments(minSuccess, maxErrorShare);
  const method = o.method ?? 'cluster-cp';
  const total = perInput.reduce((a, c) => ({ pass: a.pass + c.pass, fail: a.fail + c.fail, error: a.error + c.error }), { pass: 0, fail: 0, error: 0 });
  const n = total.pass + total.fail + total.error;
  if (n === 0) return { verdict: 'inconclusive', reason: 'nothing checked', errorBounds: null };
  if (total.pass + total.fail === 0) return { verdict: 'error', reason: `every checked cell is an error (${total.error})`, errorBounds: null };
  const p = populationRate(perInput, o.level, method);
  const bounds = populationErrorBounds(perInput, o.level, method);
  if (p === null || bounds === null)
    return {
      verdict: 'inconclusive',
      reason: 'population: fewer than 2 inputs decided anything (one input says nothing about the inputs you will meet)',
      errorBounds: null,
    };
  const share = total.error / n;
  const tooManyErrors = share > maxErrorShare;
  const errorReason = `error share ${formatRate(share)} > maxErrorShare ${formatRate(maxErrorShare)}: the errors could hide failures`;
  const over = `over ${p.inputs} inputs`;
  if (o.mode === 'point') {
    if (tooManyErrors) return { verdict: 'error', reason: errorReason, errorBounds: bounds };
    const ok = p.rate >= minSuccess;
    return {
      verdict: ok ? 'pass' : 'fail',
      reason: `population rate ${pctBeside(p.rate, minSuccess)} (${over}) ${ok ? '≥' : '<'} minSuccess ${formatRate(minSuccess)}`,
      errorBounds: bounds,
    };
  }
  if (bounds.low >= minSuccess)
    return {
      verdict: 'pass',
      reason: `population lower bound ${pctBeside(bounds.low, minSuccess)} (${over}) ≥ minSuccess ${formatRate(minSuccess)}${total.error ? ', errors counted as failures' : ''}`,
      errorBounds: bounds,
    };
  if (bounds.high < minSuccess)
    return {
      verdict: 'fail',
      reason: `population upper bound ${pctBeside(bounds.high, minSuccess)} (${over}) < minSuccess ${formatRate(minSuccess)}${total.error ? ', errors counted as passes' : ''}`,
      errorBounds: bounds,
    };
  const straddle = `population bounds [${formatRate(bounds.low)}, ${formatRate(bounds.high)}] (${over}) straddle minSuccess ${formatRate(minSuccess)}`;
  if (tooManyErrors) return { verdict: 'error', reason: `${errorReason}; ${straddle}`, errorBounds: bounds };
  return { verdict: 'inconclusive', reason: `${straddle}: more inputs, not more samples per input, narrow it`, errorBounds: bounds };
}

/** B's input-population rate minus A's, paired by input (docs/verdicts.md#comparing-two-runs). */
export interface PopulationDifference {
  /** Mean over matched inputs of (B's rate − A's rate) on that input. */
  diff: number;
  low: number;
  high: number;
  method: 'paired-t';
  level: number;
  /** Matched inputs with a decided output in both runs: the units. */
  inputs: number;
  direction: 'better' | 'worse' | 'unchanged';
}

/**
 * The population difference of two runs over inputs matched between them: d_i = p̂_B,i − p̂_A,i on each input with a
 * decided output in both, and the paired interval mean(d) ± t_{N−1} · s(d)/√N — Miller ("Adding Error Bars to
 * Evals", 2024, §4): paired differences, the standard error clustered by input; the between-input spread cancels,
 * which makes it sharper than two unpaired intervals. Where a regression gate needs it to hold — B the same system
 * as A — each d_i is symmetric about 0, where the t interval is close to exact even at a few inputs (measured in
 * src/core/population.test.ts: the false-regression rate at N = 5 … 30). `worse` when its upper bound is below 0,
 * `better` when its lower bound is above 0. null with fewer than 2 matched inputs.
 */
export function populationDifference(pairs: readonly (readonly [Counts, Counts])[], level: number): PopulationDifference | null {
  checkLevel(level);
  const d = pairs.filter(([a, b]) => a.pass + a.fail > 0 && b.pass + b.fail > 0).map(([a, b]) => b.pass / (b.pass + b.fail) - a.pass / (a.pass + a.fail));
  const N = d.length;
  if (N < 2) return null;
  const diff = d.reduce((a, x) => a + x, 0) / N;
  const se = Math.sqrt(d.reduce((a, x) => a + (x - diff) ** 2, 0) / (N - 1) / N);
  const half = tCritical(level, N - 1) * se;
  const low = Math.max(-1, diff - half);
  const high = Math.min(1, diff + half);
  return { diff, low, high, method: 'paired-t', level, inputs: N, direction: high < 0 ? 'worse' : low > 0 ? 'better' : 'unchanged' };
}

/** One design of a population plan: N inputs × M samples each, and what it costs. */
export interface PopulationDesign {
  samples: number;
  inputs: number;
  outputs: number;
  /** inputs × inputCost + outputs × sampleCost. */
  cost: number;
  /** The expected population interval's width at this design. */
  width: number;
}

export interface PopulationPlanOptions {
  /** The rate expected (a pilot's population rate). */
  rate: number;
  /** Intra-input correlation ρ (a pilot's `icc`); 0 when inputs are alike. */
  icc: number;
  /** Target width high − low of the population interval. */
  width: number;
  level: number;
  /** Cost of one more input (writing, curating, labelling it), in the unit of sampleCost; default 0. */
  inputCost?: number;
  /** Cost of one output (a model call and its checks); default 1. */
  sampleCost?: number;
  /** Samples per input to consider; default 1, 2, 3, 5, 10, 20, 50, 100. */
  samples?: readonly number[];
  /** Most inputs planned; default 100,000. */
  maxInputs?: number;
}

/** The expected cluster-cp width at N inputs × M samples for a rate and ICC (the design effect 1 + (M − 1)ρ). */
export function populationWidth(rate: number, icc: number, N: number, M: number, level: number): number {
  const deff = 1 + (M - 1) * icc;
  const df = Math.max(1, N - 1);
  const nStar = Math.min(N * M, Math.max(N, ((N * M) / deff) * (zCritical(level) / tCritical(level, df)) ** 2));
  const ci = clopperPearson(rate * nStar, nStar, level)!;
  return ci.high - ci.low;
}

/**
 * Inputs against samples per input (Miller 2024, §5: more inputs, not more repeats, once the between-input spread
 * dominates): for each M, the fewest inputs N whose expected population interval is at most `width` wide, with
 * its cost; sorted by M, the cheapest marked by the caller. Each N by bisection on populationWidth (which falls
 * as N grows). A design that cannot reach the width within maxInputs is left out.
 */
export function planPopulation(o: PopulationPlanOptions): PopulationDesign[] {
  if (!(o.rate >= 0 && o.rate <= 1)) throw new ArgumentError(`planPopulation: rate must be in [0, 1], got ${o.rate}`, { key: 'rate' });
  if (!(o.icc >= 0 && o.icc <= 1)) throw new ArgumentError(`planPopulation: icc must be in [0, 1], got ${o.icc}`, { key: 'icc' });
  if (!(o.width > 0 && o.width < 1)) throw new ArgumentError(`planPopulation: width must be in (0, 1), got ${o.width}`, { key: 'width' });
  checkLevel(o.level);
  const inputCost = o.inputCost ?? 0;
  const sampleCost = o.sampleCost ?? 1;
  if (!(inputCost >= 0) || !(sampleCost >= 0))
    throw new ArgumentError('planPopulation: costs must be ≥ 0', { key: inputCost >= 0 ? 'sampleCost' : 'inputCost' });
  const maxInputs = o.maxInputs ?? 100_000;
  const designs: PopulationDesign[] = [];
  for (const M of o.samples ?? [1, 2, 3, 5, 10, 20, 50, 100]) {
    if (!(Number.isInteger(M) && M >= 1)) throw new ArgumentError(`planPopulation: samples must be whole numbers ≥ 1, got ${M}`, { key: 'samples' });
    if (populationWidth(o.rate, o.icc, maxInputs, M, o.level) > o.width) continue;
    let lo = 2;
    let hi = maxInputs;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (populationWidth(o.rate, o.icc, mid, M, o.level) <= o.width) hi = mid;
      else lo = mid + 1;
    }
    designs.push({
      samples: M,
      inputs: lo,
      outputs: lo * M,
      cost: lo * inputCost + lo * M * sampleCost,
      width: populationWidth(o.rate, o.icc, lo, M, o.level),
    });
  }
  return designs;
}
