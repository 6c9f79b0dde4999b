/**
 * A confidence interval for the mean of bounded variables by betting (Waudby-Smith & Ramdas, "Estimating means of
 * bounded random variables by betting", JRSS-B 2024): valid at every n, with no normal approximation, for
 * X_1 … X_n in [0, 1] with a common mean μ (i.i.d., or a martingale difference sequence around μ).
 *
 * For each candidate mean m, two gamblers bet that the mean is above m and below m:
 *
 *   K⁺(m) = Π (1 + λ⁺_t(m) (X_t − m)),   K⁻(m) = Π (1 − λ⁻_t(m) (X_t − m)),
 *
 * with predictable bets λ⁺_t(m) = min(λ̇_t, c / m), λ⁻_t(m) = min(λ̇_t, c / (1 − m)), c = 3/4 (their suggestion; the larger c lets an all-pass run clear a high bar with fewer inputs), and the plug-in
 * λ̇_t = √(2 log(2/α) / (n σ̂²_{t−1})) (their fixed-n choice, §5.1) from the running variance
 * σ̂²_t = (1/4 + Σ_{i≤t} (X_i − μ̂_i)²) / (t + 1), μ̂_t = (1/2 + Σ_{i≤t} X_i) / (t + 1). Under m = μ each capital is a
 * nonnegative martingale with K_0 = 1, so by Ville's inequality P(sup K ≥ 2/α) ≤ α/2: m is excluded when
 * either capital reaches 2/α (the hedged process max(K⁺, K⁻)/2 reaching 1/α). The bound m ↦ K⁺(m) is
 * non-increasing and m ↦ K⁻(m) non-decreasing (each factor is, with the bets as chosen), so the interval is
 * [L, U] with L, U found by bisection, each to 1e-9 and rounded outward.
 *
 * The bets depend on the order of the X_t; callers fix it before seeing the data (inputs in their order).
 */
import { ArgumentError } from '../errors.js';

export interface BettingInterval {
  low: number;
  high: number;
  /** The mean of the X_t. */
  mean: number;
}

const C = 0.75;
const STEPS = 40;

/** The predictable plug-in bets λ̇_1 … λ̇_n for a fixed n (they do not depend on m). */
function plugInBets(xs: readonly number[], alpha: number): Float64Array {
  const n = xs.length;
  const bets = new Float64Array(n);
  const logTerm = 2 * Math.log(2 / alpha);
  let sum = 0;
  let sq = 0.25;
  for (let t = 0; t < n; t++) {
    const variance = sq / (t + 1); // σ̂²_{t−1}, with σ̂²_0 = 1/4
    bets[t] = Math.sqrt(logTerm / (n * variance));
    sum += xs[t];
    const mu = (0.5 + sum) / (t + 2);
    sq += (xs[t] - mu) ** 2;
  }
  return bets;
}

/** log K⁺(m) or log K⁻(m). */
function logCapital(xs: readonly number[], bets: Float64Array, m: number, side: 1 | -1): number {
  const cap = side === 1 ? C / m : C / (1 - m);
  let log = 0;
  for (let t = 0; t < xs.length; t++) {
    const lambda = Math.min(bets[t], cap);
    log += Math.log1p(side * lambda * (xs[t] - m));
  }
  return log;
}

/**
 * The two-sided betting confidence interval at `level` for the mean of `xs` (each in [0, 1]); null for no data.
 */
export function bettingInterval(xs: readonly number[], level: number): BettingInterval | null {
  const n = xs.length;
  if (n === 0) return null;
  for (const x of xs) if (!(x >= 0 && x <= 1)) throw new ArgumentError(`bettingInterval: every value must be in [0, 1], found ${x}`, { key: 'xs' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`bettingInterval: level must be in (0, 1), found ${level}`, { key: 'level' });
  const alpha = 1 - level;
  const bets = plugInBets(xs, alpha);
  const threshold = Math.log(2 / alpha);
  const mean = xs.reduce((a, x) => a + x, 0) / n;
  // Lower bound: the m below which K⁺(m) ≥ 2/α. K⁺ falls as m rises; at m = 0 it is nowhere near (no bet below 0).
  let lo = 0;
  let hi = mean;
  for (let s = 0; s < STEPS; s++) {
    const mid = (lo + hi) / 2;
    if (mid > 0 && logCapital(xs, bets, mid, 1) >= threshold) lo = mid;
    else hi = mid;
  }
  const low = Math.max(0, lo - 1e-9);
  // Upper bound: the m above which K⁻(m) ≥ 2/α.
  lo = mean;
  hi = 1;
  for (let s = 0; s < STEPS; s++) {
    const mid = (lo + hi) / 2;
    if (mid < 1 && logCapital(xs, bets, mid, -1) >= threshold) hi = mid;
    else lo = mid;
  }
  const high = Math.min(1, hi + 1e-9);
  return { low, high, mean };
}
