/**
 * Intervals for pooled rates whose cells come in clusters: the K cells of one output (IRP, ORP, all outputs
 * pooled) are not K independent trials. Validators that fail together make K cells worth about one, and an
 * interval counting them as K is too narrow (62%, 47% and 65% coverage at nominal 95% with 4 correlated
 * validators, measured before this module). The output is the unit.
 *
 * Method (Kish's design effect with Korn & Graubard's effective-sample-size interval, 1998): the pooled
 * rate p̂ = Σ x_c / Σ n_c over outputs c (x_c passes of n_c decided cells) has the cluster-robust variance
 *   V = C/(C − 1) · Σ_c (x_c − p̂·n_c)² / n²,
 * the effective sample size is n_eff = p̂(1 − p̂)/V, and the interval is the configured method (Clopper–Pearson
 * by default) at p̂·n_eff successes of n_eff. n_eff is kept in [C, n]: with equal cluster sizes the true
 * design effect lies between 1 (independent cells) and the cluster size (identical cells). Where the data
 * cannot tell — p̂ = 0 or 1, or a single output — n_eff = C, as if every output were one trial.
 */
import { betaQuantile } from './distributions.js';
import { interval, zCritical } from './intervals.js';
import type { Interval, IntervalMethod } from './rate-types.js';
import { ArgumentError } from '../errors.js';

/** Sums over the outputs of one pooled view. */
export interface ClusterSums {
  /** Outputs with at least one decided cell. */
  clusters: number;
  /** Outputs with at least one pass, and with at least one failure. */
  withPass: number;
  withFail: number;
  /** Σ x_c, Σ n_c, Σ x_c², Σ x_c·n_c, Σ n_c² over those outputs. */
  x: number;
  n: number;
  xx: number;
  xn: number;
  nn: number;
}

export const emptyClusterSums = (): ClusterSums => ({ clusters: 0, withPass: 0, withFail: 0, x: 0, n: 0, xx: 0, xn: 0, nn: 0 });

/** Adds one output with x passes of n decided cells. */
export function addCluster(s: ClusterSums, x: number, n: number): void {
  if (n === 0) return;
  s.clusters++;
  if (x > 0) s.withPass++;
  if (x < n) s.withFail++;
  s.x += x;
  s.n += n;
  s.xx += x * x;
  s.xn += x * n;
  s.nn += n * n;
}

// One quantile per (level, df): a summary's ORP asks for the same few thousands of times.
const tCache = new Map<string, number>();

/** Two-sided critical value of Student's t with ν degrees of freedom: P(|T| > t) = I_{ν/(ν+t²)}(ν/2, 1/2) = α. */
export function tCritical(level: number, df: number): number {
  if (!(df > 0)) throw new ArgumentError(`tCritical: degrees of freedom must be > 0, got ${df}`, { key: 'df' });
  const key = `${level} ${df}`;
  let t = tCache.get(key);
  if (t === undefined) {
    const x = betaQuantile(1 - level, df / 2, 0.5);
    t = Math.sqrt((df * (1 - x)) / x);
    if (tCache.size > 4096) tCache.clear();
    tCache.set(key, t);
  }
  return t;
}

/**
 * The effective number of independent cells (see the file comment); null when nothing was decided.
 * The variance of a rare outcome is only as well known as the outputs that show it: with d outputs holding
 * the minority outcome, n_eff is scaled by (z / t_{d−1})² (Korn & Graubard's degrees-of-freedom correction,
 * with those outputs as the degrees of freedom), so one or two isolated failures cannot pass for
 * independence.
 */
export function effectiveSampleSize(s: ClusterSums, level = 0.95): number | null {
  if (s.n === 0) return null;
  const p = s.x / s.n;
  const df = Math.min(s.withPass, s.withFail) - 1;
  if (p === 0 || p === 1 || s.clusters < 2 || df < 1) return s.clusters;
  const ss = Math.max(0, s.xx - 2 * p * s.xn + p * p * s.nn);
  const v = (s.clusters / (s.clusters - 1)) * (ss / (s.n * s.n));
  const raw = v > 0 ? (p * (1 - p)) / v : s.n;
  const adjusted = raw * (zCritical(level) / tCritical(level, df)) ** 2;
  return Math.min(s.n, Math.max(s.clusters, adjusted));
}

/** The pooled rate's interval with the output as the unit. */
export function clusteredInterval(s: ClusterSums, method: IntervalMethod, level: number): { ci: Interval | null; effectiveN: number | null } {
  const nEff = effectiveSampleSize(s, level);
  if (nEff === null) return { ci: null, effectiveN: null };
  const x = Math.min(nEff, Math.max(0, (s.x / s.n) * nEff));
  return { ci: interval(method, x, nEff, level), effectiveN: nEff };
}
