import { ArgumentError } from '../errors.js';
/**
 * The retry planner (white paper §4.2.2): the geometric model of validator-driven retry, from rates.
 * m is always the maximum number of attempts *including the first* (the paper mixes "attempts" and
 * "retries"; we do not). Pure: no I/O. Unbounded figures (P_pass = 0) are `null` so they survive JSON.
 * The planner over a stored run's tensor is in retry-tensor.ts, the independence check in independence.ts.
 */

/** P_pass = Π p_k (§4.2.2), assuming independent validators. The empty product is 1. */
export function pPassFromRates(rates: readonly number[]): number {
  assertRates(rates);
  return rates.reduce((acc, p) => acc * p, 1);
}

/** E[attempts] = 1 / P_pass (the mean of a geometric distribution); null when P_pass = 0. */
export function expectedAttempts(pPass: number): number | null {
  return pPass > 0 ? 1 / pPass : null;
}

/** (1 − P_pass)^m, the chance that m attempts all fail, in the log domain so tiny values keep their precision. */
export function pFailAll(pPass: number, m: number): number {
  if (m <= 0 || pPass <= 0) return 1;
  if (pPass >= 1) return 0;
  return Math.exp(m * Math.log1p(-pPass));
}

/** P(success within m attempts) = 1 − (1 − P_pass)^m, computed with log1p/expm1 to keep precision. */
export function pSuccessWithin(pPass: number, m: number): number {
  if (pPass >= 1) return m >= 1 ? 1 : 0;
  if (pPass <= 0) return 0;
  return -Math.expm1(m * Math.log1p(-pPass));
}

/**
 * Does a chance of failing every attempt `fail` meet the target confidence c, i.e. fail ≤ 1 − c?
 * The comparison is on the failure side with a relative tolerance: the boundary case (P_pass = 0.9,
 * c = 0.99, m = 2, where 0.1² is 0.01 up to rounding) counts as met, and a target such as c = 1 − 1e-15
 * is not met early, as an absolute tolerance on the success side would let happen.
 */
export function meetsConfidence(fail: number, confidence: number): boolean {
  return fail <= (1 - confidence) * (1 + 1e-9);
}

/** The smallest m ≥ 1 with P(success within m) ≥ confidence; null when unreachable (P_pass = 0). */
export function minAttempts(pPass: number, confidence: number): number | null {
  assertConfidence(confidence);
  if (!(pPass >= 0 && pPass <= 1)) throw new ArgumentError(`P_pass must be in [0, 1], got ${pPass}`, { key: 'pPass' });
  if (pPass <= 0) return null;
  if (pPass >= 1) return 1;
  let m = Math.max(1, Math.ceil(Math.log1p(-confidence) / Math.log1p(-pPass)));
  // P_pass so small that no exactly representable m reaches the target (beyond 2^53, m - 1 === m in floating point).
  if (!Number.isFinite(m) || m > Number.MAX_SAFE_INTEGER) return null;
  // The closed form can be off by one in floating point: settle it against the definition.
  while (m > 1 && meetsConfidence(pFailAll(pPass, m - 1), confidence)) m--;
  while (!meetsConfidence(pFailAll(pPass, m), confidence)) m++;
  return m;
}

/**
 * Smallest m with the mean over inputs of 1 − (1 − P_i)^m ≥ c: the m a guard facing these inputs equally
 * often needs. null when unreachable (the inputs that never pass are more than 1 − c of them).
 */
export function mixtureMinAttempts(ps: readonly number[], confidence: number): number | null {
  assertConfidence(confidence);
  if (ps.length === 0) return null;
  const meets = (m: number) => meetsConfidence(ps.reduce((s, p) => s + pFailAll(p, m), 0) / ps.length, confidence);
  if (!meetsConfidence(ps.filter((p) => p <= 0).length / ps.length, confidence)) return null;
  let hi = 1;
  while (!meets(hi)) {
    if (hi > 2 ** 40) return null;
    hi *= 2;
  }
  if (hi === 1) return 1;
  let lo = hi / 2 + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (meets(mid)) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

export interface RatePlan {
  p_pass: number;
  expected_attempts: number | null;
  expected_retries: number | null;
  /** Maximum attempts, including the first, that reach the target confidence. */
  m: number | null;
  p_success_within_m: number | null;
  confidence: number;
}

/** Everything §4.2.2 derives from validator rates (given, or read from a run). */
export function planFromRates(rates: readonly number[], confidence: number): RatePlan {
  return planFromPPass(pPassFromRates(rates), confidence);
}

export function planFromPPass(p: number, confidence: number): RatePlan {
  const e = expectedAttempts(p);
  const m = minAttempts(p, confidence);
  return {
    p_pass: p,
    expected_attempts: e,
    expected_retries: e === null ? null : e - 1,
    m,
    p_success_within_m: m === null ? null : pSuccessWithin(p, m),
    confidence,
  };
}

export function assertRates(rates: readonly number[]): void {
  rates.forEach((p, k) => {
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new ArgumentError(`rate ${k + 1} must be a number in [0, 1], got ${String(p)}`, { key: 'rates' });
    }
  });
}

export function assertConfidence(c: number): void {
  if (!(c > 0 && c < 1)) throw new ArgumentError(`confidence must be in (0, 1), got ${c}`, { key: 'confidence' });
}
