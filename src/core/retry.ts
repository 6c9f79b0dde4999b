import { logChoose, normalSf } from './distributions.js';
import { interval } from './intervals.js';
import { Outcome } from './outcome.js';
import { fisherExact } from './significance.js';
import type { Interval, IntervalMethod } from './summary-types.js';
import type { ReliabilityTensor } from './tensor.js';

/**
 * The retry planner (white paper §4.2): the geometric model of validator-driven retry.
 * m is always the maximum number of attempts *including the first* (the paper mixes "attempts" and
 * "retries"; we do not). Pure: no I/O. Unbounded figures (P_pass = 0) are `null` so they survive JSON.
 */

// ---------------------------------------------------------------- the geometric model from rates

/** P_pass = Π p_k (§4.2.2), assuming independent validators. The empty product is 1. */
export function pPassFromRates(rates: readonly number[]): number {
  assertRates(rates);
  return rates.reduce((acc, p) => acc * p, 1);
}

/** E[attempts] = 1 / P_pass (the mean of a geometric distribution); null when P_pass = 0. */
export function expectedAttempts(pPass: number): number | null {
  return pPass > 0 ? 1 / pPass : null;
}

/** P(success within m attempts) = 1 − (1 − P_pass)^m, computed with log1p/expm1 to keep precision. */
export function pSuccessWithin(pPass: number, m: number): number {
  if (pPass >= 1) return m >= 1 ? 1 : 0;
  if (pPass <= 0) return 0;
  return -Math.expm1(m * Math.log1p(-pPass));
}

// Tolerance for the boundary case where the target is met exactly (p = 0.9, c = 0.99, m = 2).
const EPS = 1e-12;

/** The smallest m ≥ 1 with P(success within m) ≥ confidence; null when unreachable (P_pass = 0). */
export function minAttempts(pPass: number, confidence: number): number | null {
  assertConfidence(confidence);
  if (!(pPass >= 0 && pPass <= 1)) throw new RangeError(`P_pass must be in [0, 1], got ${pPass}`);
  if (pPass <= 0) return null;
  if (pPass >= 1) return 1;
  let m = Math.max(1, Math.ceil(Math.log1p(-confidence) / Math.log1p(-pPass)));
  // The closed form can be off by one in floating point: settle it against the definition.
  while (m > 1 && pSuccessWithin(pPass, m - 1) >= confidence - EPS) m--;
  while (pSuccessWithin(pPass, m) < confidence - EPS) m++;
  return m;
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
  const p = pPassFromRates(rates);
  return planFromPPass(p, confidence);
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
      throw new RangeError(`rate ${k + 1} must be a number in [0, 1], got ${String(p)}`);
    }
  });
}

function assertConfidence(c: number): void {
  if (!(c > 0 && c < 1)) throw new RangeError(`confidence must be in (0, 1), got ${c}`);
}

// ---------------------------------------------------------------- statistics helpers

/** Two-sided exact binomial test of x successes in n against p0 (sum of outcomes no likelier than x, as R's binom.test). */
export function binomialTest(x: number, n: number, p0: number): number {
  if (n === 0) return 1;
  if (p0 <= 0) return x === 0 ? 1 : 0;
  if (p0 >= 1) return x === n ? 1 : 0;
  const lp = (y: number) => logChoose(n, y) + y * Math.log(p0) + (n - y) * Math.log1p(-p0);
  const cut = lp(x) + 1e-7; // R's relative tolerance
  let sum = 0;
  for (let y = 0; y <= n; y++) {
    const l = lp(y);
    if (l <= cut) sum += Math.exp(l);
  }
  return Math.min(1, sum);
}

/** Fisher's exact test (two-sided) of the 2×2 table [[a, b], [c, d]]; 1 when a margin is empty. */
function fisher2x2(a: number, b: number, c: number, d: number): number {
  if (a + b === 0 || c + d === 0 || a + c === 0 || b + d === 0) return 1;
  return fisherExact({ pass: a, n: a + b }, { pass: c, n: c + d });
}

/** Phi coefficient of a 2×2 table; 0 when a margin is empty (no association can be seen). */
export function phiCoefficient(a: number, b: number, c: number, d: number): number {
  const den = Math.sqrt((a + b) * (c + d) * (a + c) * (b + d));
  return den > 0 ? (a * d - b * c) / den : 0;
}

// ---------------------------------------------------------------- the empirical model from a tensor

/**
 * How error cells count. 'exclude' (default): a sample with an ERROR cell and no FAIL cell is left out of
 * P_pass,i (its verdict is unknown; a FAIL anywhere already makes Π_k R = 0). 'fail': an ERROR cell counts as
 * not passing, as in the guard, which never accepts an output it could not check.
 */
export type ErrorPolicy = 'exclude' | 'fail';

export interface TensorPlanOptions {
  /** Target P(success within m), e.g. 0.99. */
  confidence: number;
  /** Level of the intervals, default 0.95. */
  level?: number;
  /** Interval method for P_pass,i and the marginals; default Wilson. */
  method?: IntervalMethod;
  errors?: ErrorPolicy;
  /** Significance level of the independence check, default 0.01. */
  alpha?: number;
  /** Validator names, for the report. */
  names?: readonly string[];
}

/** Bounds of a derived figure; `high: null` means unbounded (the lower bound of P_pass is 0). */
export interface Bounds {
  low: number | null;
  high: number | null;
}

export interface InputRetryPlan {
  i: number;
  /** Samples decided under the error policy (the denominator of P_pass,i). */
  samples: number;
  all_pass: number;
  /** Samples left out because of an error cell ('exclude' policy). */
  errors: number;
  pending: number;
  p_pass: number | null;
  p_pass_ci: Interval | null;
  expected_attempts: number | null;
  expected_attempts_ci: Bounds | null;
  m: number | null;
  m_ci: Bounds | null;
}

export interface PairAssociation {
  a: number;
  b: number;
  names: [string, string];
  n: number;
  /** [both pass, a passes only, b passes only, both fail] */
  table: [number, number, number, number];
  phi: number;
  p_value: number;
  /** Holm-adjusted over all pairs. */
  p_adjusted: number;
  flagged: boolean;
}

export interface IndependenceCheck {
  test: 'binomial-exact';
  /** Samples with every cell decided (the same samples for the joint rate and the marginals). */
  samples: number;
  observed_all_pass: number;
  observed_rate: number | null;
  /** Π_k p_k over the same samples. */
  product_rate: number | null;
  expected_all_pass: number | null;
  /** observed_rate / product_rate. */
  ratio: number | null;
  p_value: number;
  alpha: number;
  /** false: the product of marginals mispredicts the joint pass rate. */
  independent: boolean;
  /** Product of per-input marginals (separates validator correlation from input heterogeneity); approximate z test. */
  within_input: { expected_all_pass: number; z: number; p_value: number } | null;
  pairs: PairAssociation[];
  flagged_validators: string[];
}

export interface TensorRetryPlan {
  N: number;
  M: number;
  K: number;
  confidence: number;
  level: number;
  errors: ErrorPolicy;
  validators: { k: number; name: string; rate: number | null; ci: Interval | null; pass: number; fail: number; error: number }[];
  /** The paper's formula: P_pass = Π p_k from the marginal rates. null if a validator has no decided cell. */
  product: RatePlan | null;
  /** The pooled empirical joint rate: share of samples passing every validator at once. */
  joint: (RatePlan & { samples: number; all_pass: number; p_pass_ci: Interval | null; expected_attempts_ci: Bounds | null; m_ci: Bounds | null }) | null;
  /** What a guard facing these inputs equally often should expect: mixtures over the per-input P_pass,i. */
  per_input: { expected_attempts: number | null; m: number | null; p_success_within_m: number | null; max_m: number | null; unreachable_inputs: number } | null;
  inputs: InputRetryPlan[];
  independence: IndependenceCheck;
}

type SampleState = 'pass' | 'fail' | 'error' | 'pending';

function sampleState(t: ReliabilityTensor, i: number, j: number, errors: ErrorPolicy): SampleState {
  let fail = false;
  let error = false;
  for (let k = 0; k < t.K; k++) {
    const c = t.get(i, j, k);
    if (c === Outcome.PENDING) return 'pending';
    if (c === Outcome.FAIL) fail = true;
    else if (c === Outcome.ERROR) error = true;
  }
  if (fail) return 'fail';
  if (error) return errors === 'fail' ? 'fail' : 'error';
  return 'pass';
}

/** Derived figures move opposite to P_pass: bounds come from the other end of its interval. */
function boundsFrom(ci: Interval | null, f: (p: number) => number | null): Bounds | null {
  return ci ? { low: f(ci.high), high: f(ci.low) } : null;
}

/** Smallest m with the mean over inputs of 1 − (1 − P_i)^m ≥ c; null when unreachable. */
export function mixtureMinAttempts(ps: readonly number[], confidence: number): number | null {
  assertConfidence(confidence);
  if (ps.length === 0) return null;
  const mean = (m: number) => ps.reduce((s, p) => s + pSuccessWithin(p, m), 0) / ps.length;
  if (ps.filter((p) => p > 0).length / ps.length < confidence - EPS) return null;
  let hi = 1;
  while (mean(hi) < confidence - EPS) {
    if (hi > 2 ** 40) return null;
    hi *= 2;
  }
  let lo = Math.floor(hi / 2) + 1;
  if (hi === 1) return 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (mean(mid) >= confidence - EPS) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

/** The planner over a stored run's tensor (§4.2.3): per-input figures, global figures, independence check. */
export function planFromTensor(t: ReliabilityTensor, opts: TensorPlanOptions): TensorRetryPlan {
  assertConfidence(opts.confidence);
  const level = opts.level ?? 0.95;
  const method = opts.method ?? 'wilson';
  const ci = (x: number, n: number, lvl: number) => interval(method, x, n, lvl);
  const errors = opts.errors ?? 'exclude';
  const name = (k: number) => opts.names?.[k] ?? `validator ${k + 1}`;

  const validators = Array.from({ length: t.K }, (_, k) => {
    let pass = 0;
    let fail = 0;
    let error = 0;
    for (let i = 0; i < t.N; i++)
      for (let j = 0; j < t.M; j++) {
        const c = t.get(i, j, k);
        if (c === Outcome.PASS) pass++;
        else if (c === Outcome.FAIL) fail++;
        else if (c === Outcome.ERROR) error++;
      }
    if (errors === 'fail') fail += error;
    const n = pass + fail;
    return { k, name: name(k), rate: n > 0 ? pass / n : null, ci: ci(pass, n, level), pass, fail, error };
  });

  let totalSamples = 0;
  let totalAllPass = 0;
  const inputs: InputRetryPlan[] = [];
  for (let i = 0; i < t.N; i++) {
    const counts = { pass: 0, fail: 0, error: 0, pending: 0 };
    for (let j = 0; j < t.M; j++) counts[sampleState(t, i, j, errors)]++;
    const n = counts.pass + counts.fail;
    totalSamples += n;
    totalAllPass += counts.pass;
    const p = n > 0 ? counts.pass / n : null;
    const pci = ci(counts.pass, n, level);
    inputs.push({
      i,
      samples: n,
      all_pass: counts.pass,
      errors: counts.error,
      pending: counts.pending,
      p_pass: p,
      p_pass_ci: pci,
      expected_attempts: p === null ? null : expectedAttempts(p),
      expected_attempts_ci: boundsFrom(pci, expectedAttempts),
      m: p === null ? null : minAttempts(p, opts.confidence),
      m_ci: boundsFrom(pci, (q) => minAttempts(q, opts.confidence)),
    });
  }

  const rates = validators.map((v) => v.rate);
  const product = rates.every((r): r is number => r !== null) ? planFromRates(rates, opts.confidence) : null;

  let joint: TensorRetryPlan['joint'] = null;
  if (totalSamples > 0) {
    const p = totalAllPass / totalSamples;
    const pci = ci(totalAllPass, totalSamples, level);
    joint = {
      ...planFromPPass(p, opts.confidence),
      samples: totalSamples,
      all_pass: totalAllPass,
      p_pass_ci: pci,
      expected_attempts_ci: boundsFrom(pci, expectedAttempts),
      m_ci: boundsFrom(pci, (q) => minAttempts(q, opts.confidence)),
    };
  }

  const ps = inputs.flatMap((x) => (x.p_pass === null ? [] : [x.p_pass]));
  let perInput: TensorRetryPlan['per_input'] = null;
  if (ps.length > 0) {
    const unreachable = ps.filter((p) => p === 0).length;
    const m = mixtureMinAttempts(ps, opts.confidence);
    const ms = inputs.map((x) => x.m);
    perInput = {
      expected_attempts: unreachable > 0 ? null : ps.reduce((s, p) => s + 1 / p, 0) / ps.length,
      m,
      p_success_within_m: m === null ? null : ps.reduce((s, p) => s + pSuccessWithin(p, m), 0) / ps.length,
      max_m: unreachable > 0 ? null : Math.max(...ms.filter((x): x is number => x !== null)),
      unreachable_inputs: unreachable,
    };
  }

  return {
    N: t.N,
    M: t.M,
    K: t.K,
    confidence: opts.confidence,
    level,
    errors,
    validators,
    product,
    joint,
    per_input: perInput,
    inputs,
    independence: independenceCheck(t, errors, opts.alpha ?? 0.01, name),
  };
}

/**
 * Does Π_k p_k predict the joint pass rate? Exact binomial test of the observed all-pass count against the
 * product of the marginals (estimated from the same samples), and a Fisher exact test per validator pair
 * (Holm-adjusted) to name the validators whose association makes the product mispredict.
 */
export function independenceCheck(t: ReliabilityTensor, errors: ErrorPolicy, alpha: number, name: (k: number) => string): IndependenceCheck {
  const K = t.K;
  const pass = new Array<number>(K).fill(0);
  const both = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  const perInput: { n: number; x: number; pass: number[] }[] = [];
  let n = 0;
  let x = 0;
  const v = new Array<number>(K);
  for (let i = 0; i < t.N; i++) {
    const row = { n: 0, x: 0, pass: new Array<number>(K).fill(0) };
    sample: for (let j = 0; j < t.M; j++) {
      for (let k = 0; k < K; k++) {
        const c = t.get(i, j, k);
        if (c === Outcome.PENDING || (c === Outcome.ERROR && errors === 'exclude')) continue sample;
        v[k] = c === Outcome.PASS ? 1 : 0;
      }
      n++;
      row.n++;
      let all = 1;
      for (let k = 0; k < K; k++) {
        all &= v[k];
        pass[k] += v[k];
        row.pass[k] += v[k];
        for (let l = k + 1; l < K; l++) both[k][l] += v[k] & v[l];
      }
      x += all;
      row.x += all;
    }
    perInput.push(row);
  }

  const productRate = n > 0 ? pass.reduce((acc, p) => acc * (p / n), 1) : null;
  const pValue = K >= 2 && productRate !== null ? binomialTest(x, n, productRate) : 1;

  let withinInput: IndependenceCheck['within_input'] = null;
  if (K >= 2 && n > 0) {
    let e = 0;
    let variance = 0;
    for (const r of perInput) {
      if (r.n === 0) continue;
      const pi = r.pass.reduce((acc, p) => acc * (p / r.n), 1);
      e += r.n * pi;
      variance += r.n * pi * (1 - pi);
    }
    const z = variance > 0 ? (x - e) / Math.sqrt(variance) : 0;
    const p = variance > 0 ? Math.min(1, 2 * normalSf(Math.abs(z))) : Math.abs(x - e) < 1e-9 ? 1 : 0;
    withinInput = { expected_all_pass: e, z, p_value: p };
  }

  const pairs: PairAssociation[] = [];
  for (let a = 0; a < K; a++)
    for (let b = a + 1; b < K; b++) {
      const n11 = both[a][b];
      const n10 = pass[a] - n11;
      const n01 = pass[b] - n11;
      const n00 = n - n11 - n10 - n01;
      pairs.push({
        a,
        b,
        names: [name(a), name(b)],
        n,
        table: [n11, n10, n01, n00],
        phi: phiCoefficient(n11, n10, n01, n00),
        p_value: fisher2x2(n11, n10, n01, n00),
        p_adjusted: 1,
        flagged: false,
      });
    }
  // Holm step-down over the pairs.
  const order = pairs.map((_, idx) => idx).sort((p, q) => pairs[p].p_value - pairs[q].p_value);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (pairs.length - rank) * pairs[idx].p_value));
    pairs[idx].p_adjusted = running;
    pairs[idx].flagged = running < alpha;
  });
  const flagged = new Set<number>();
  for (const p of pairs) if (p.flagged) flagged.add(p.a).add(p.b);

  return {
    test: 'binomial-exact',
    samples: n,
    observed_all_pass: x,
    observed_rate: n > 0 ? x / n : null,
    product_rate: productRate,
    expected_all_pass: productRate === null ? null : n * productRate,
    ratio: productRate && n > 0 ? x / n / productRate : null,
    p_value: pValue,
    alpha,
    independent: pValue >= alpha,
    within_input: withinInput,
    pairs,
    flagged_validators: [...flagged].sort((p, q) => p - q).map(name),
  };
}
