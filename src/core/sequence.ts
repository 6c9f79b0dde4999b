import { ArgumentError } from '../errors.js';
/**
 * An anytime-valid confidence sequence for a success rate, and the sequential verdict it gives against a
 * threshold m (minSuccess). Optional stopping — looking after every sample and stopping once decided —
 * keeps its error rate, which re-checking an ordinary interval does not (docs/verdicts.md, bench:sequential).
 *
 * Construction (Robbins' method of mixtures, as in Howard et al. 2021, "Time-uniform, nonparametric,
 * nonasymptotic confidence sequences", with a discrete mixing distribution): for each candidate rate m,
 *
 *   E⁺ₙ(m) = Σⱼ wⱼ · Lₙ(θⱼ⁺(m)) / Lₙ(m),   θⱼ⁺(m) = σ(logit m + dⱼ),   Lₙ(θ) = θ^S (1 − θ)^F,
 *
 * a mixture of likelihood ratios of alternatives above m (dⱼ > 0 on the log-odds scale), is a non-negative
 * martingale with mean ≤ 1 while the true rate is ≤ m, so by Ville's inequality it ever reaches 2/α with
 * probability ≤ α/2. E⁻ₙ(m) mirrors it below m. The sequence at level 1 − α is
 *
 *   Cₙ = { m : E⁺ₙ(m) < 2/α and E⁻ₙ(m) < 2/α } = (low, high),
 *
 * each side holding α/2 at all times at once, as a two-sided interval of the same level does at one n.
 * Every term of E⁺ₙ(m) falls as m rises (d/dm of its log is negative for S, F ≥ 0), so {m : E⁺ₙ(m) ≥ 2/α}
 * is an interval [0, low) and bisection finds low exactly; the same holds for high.
 *
 * With a planned rate `expect` (what the user expects the rate to be), a share EXPECT_WEIGHT of the
 * mixture sits on θ = expect, on its side of m: the sequence then decides fastest near it (the sequential
 * design of `assay plan --expect`). The guarantee does not depend on it; only the cost does.
 *
 * Several outputs per round (one per input, iteration-major): with per-input rates pᵢ averaging to p̄ ≤ m,
 * a full round multiplies each likelihood ratio by Πᵢ (1 + (pᵢ − m)c) ≤ (1 + (p̄ − m)c)^N ≤ 1 in mean
 * (AM–GM), so E⁺ stays a supermartingale at round ends: the sequential verdict is checked only there.
 */

/** Log-odds offsets dⱼ of the mixture's alternatives on each side of m (equal weights). */
export const LOG_ODDS_GRID: readonly number[] = [0.125, 0.25, 0.5, 1, 2, 4];
/** Share of the mixture placed on the planned rate, when one is given. */
export const EXPECT_WEIGHT = 0.7;

/** ln(1 + eˣ) without overflow. */
function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

function logSumExp(values: number[]): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (const v of values) sum += Math.exp(v - max);
  return max + Math.log(sum);
}

/** ln Lₙ(θ)/Lₙ(m) for S successes and F failures, θ and m in (0, 1). */
function logLikelihoodRatio(S: number, F: number, theta: number, m: number): number {
  return (S === 0 ? 0 : S * (Math.log(theta) - Math.log(m))) + (F === 0 ? 0 : F * (Math.log1p(-theta) - Math.log1p(-m)));
}

/** The same for θ = σ(logit m + d), computed on the log-odds scale (exact near 0 and 1). */
function logRatioLogOdds(S: number, F: number, u: number, d: number): number {
  // ln σ(x) = −softplus(−x), ln(1 − σ(x)) = −softplus(x)
  return (S === 0 ? 0 : S * (softplus(-u) - softplus(-(u + d)))) + (F === 0 ? 0 : F * (softplus(u) - softplus(u + d)));
}

function checkCounts(S: number, F: number): void {
  if (!(Number.isFinite(S) && Number.isFinite(F) && S >= 0 && F >= 0))
    throw new ArgumentError(`sequence: counts must be finite and ≥ 0, got S=${S}, F=${F}`, { key: Number.isFinite(S) && S >= 0 ? 'F' : 'S' });
}

function checkExpect(expect: number | undefined): void {
  if (expect !== undefined && !(expect > 0 && expect < 1)) throw new ArgumentError(`sequence: expect must be in (0, 1), got ${expect}`, { key: 'expect' });
}

/**
 * ln E⁺(m): the evidence that the rate is above m from S successes and F failures (a mixture likelihood
 * ratio; see the file comment). −Infinity … ∞; ≥ ln(2/α) rejects "rate ≤ m" at level α/2, at any time.
 */
export function logEvidenceAbove(S: number, F: number, m: number, expect?: number): number {
  checkCounts(S, F);
  checkExpect(expect);
  if (m <= 0) return S > 0 ? Infinity : 0;
  if (m >= 1) return F > 0 ? -Infinity : 0;
  const u = Math.log(m) - Math.log1p(-m);
  const planned = expect !== undefined && expect > m;
  const wGrid = Math.log((planned ? 1 - EXPECT_WEIGHT : 1) / LOG_ODDS_GRID.length);
  const terms = LOG_ODDS_GRID.map((d) => wGrid + logRatioLogOdds(S, F, u, d));
  if (planned) terms.push(Math.log(EXPECT_WEIGHT) + logLikelihoodRatio(S, F, expect, m));
  return logSumExp(terms);
}

/** ln E⁻(m): the evidence that the rate is below m (mirror of {@link logEvidenceAbove}). */
export function logEvidenceBelow(S: number, F: number, m: number, expect?: number): number {
  checkExpect(expect);
  return logEvidenceAbove(F, S, 1 - m, expect === undefined ? undefined : 1 - expect);
}

/** ln(2/α) for a two-sided level 1 − α: the evidence either side must reach. */
export function evidenceThreshold(level: number): number {
  if (!(level > 0 && level < 1)) throw new ArgumentError(`sequence: level must be in (0, 1), got ${level}`, { key: 'level' });
  return Math.log(2 / (1 - level));
}

/** Largest m in [lo, hi] with f(m) true, f true then false along [lo, hi] (bisection to ~1e-12). */
function lastTrue(f: (m: number) => boolean, lo: number, hi: number): number {
  for (let i = 0; i < 60 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The confidence sequence's bounds at S successes and F failures: valid at every n at once. */
export function sequenceBounds(S: number, F: number, level: number, expect?: number): { low: number; high: number } | null {
  checkCounts(S, F);
  const n = S + F;
  if (n === 0) return null;
  const threshold = evidenceThreshold(level);
  const p = S / n;
  // E⁺ falls with m and is < 1 from m = p on: {m : E⁺ ≥ 2/α} = [0, low).
  const low = S === 0 || logEvidenceAbove(S, F, 1e-300, expect) < threshold ? 0 : lastTrue((m) => logEvidenceAbove(S, F, m, expect) >= threshold, 0, p);
  const high =
    F === 0 || logEvidenceBelow(S, F, 1 - 1e-16, expect) < threshold ? 1 : 1 - lastTrue((m) => logEvidenceBelow(S, F, 1 - m, expect) >= threshold, 0, 1 - p);
  return { low, high };
}

export type SequentialDecision = 'pass' | 'fail' | 'undecided';

/**
 * The sequential verdict on counts so far. Errors are missing data: "pass" needs the evidence with every
 * error counted as a failure, "fail" the evidence with every error counted as a pass, so the verdict holds
 * however they would have resolved.
 */
export function sequentialVerdict(c: { pass: number; fail: number; error: number }, minSuccess: number, level: number, expect?: number): SequentialDecision {
  const threshold = evidenceThreshold(level);
  // rate ≥ 0 holds whatever is seen; the evidence is defined for m in (0, 1].
  if (minSuccess <= 0) return c.pass + c.fail + c.error > 0 ? 'pass' : 'undecided';
  if (logEvidenceAbove(c.pass, c.fail + c.error, minSuccess, expect) >= threshold) return 'pass';
  if (logEvidenceBelow(c.pass + c.error, c.fail, minSuccess, expect) >= threshold) return 'fail';
  return 'undecided';
}
