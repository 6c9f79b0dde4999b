import { independenceCheck, type ErrorPolicy, type IndependenceCheck } from './independence.js';
import { interval } from './intervals.js';
import { Outcome } from './outcome.js';
import { assertConfidence, expectedAttempts, minAttempts, mixtureMinAttempts, planFromPPass, planFromRates, pSuccessWithin, type RatePlan } from './retry.js';
import type { Interval, IntervalMethod } from './rate-types.js';
import type { ReliabilityTensor } from './tensor.js';
import { maxOf } from './arrays.js';

/**
 * The retry planner over a stored run's tensor (white paper §4.2.3): per-input P_pass,i = mean over j of
 * Π_k R[i][j][k], E[attempts]_i and m_i with intervals, the global figures, and the independence check.
 * Pure: no I/O.
 */

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

/** What a guard facing the run's inputs equally often should expect: mixtures over the per-input P_pass,i. */
export interface MixturePlan {
  /** Mean of P_pass,i: the chance that one attempt on a random input passes. */
  p_pass: number;
  /** Mean of 1/P_pass,i (not 1/mean: inputs that rarely pass dominate the cost); null if an input never passed. */
  expected_attempts: number | null;
  expected_retries: number | null;
  /** Smallest m whose mean success share over inputs reaches the confidence; null when unreachable. */
  m: number | null;
  p_success_within_m: number | null;
  /** Largest m_i; null if an input never passed. */
  max_m: number | null;
  /** Inputs with decided samples (the mixture's components). */
  inputs: number;
  /** Inputs that never passed every validator: their attempts are unbounded. */
  unreachable_inputs: number;
}

export type JointPlan = RatePlan & {
  samples: number;
  all_pass: number;
  p_pass_ci: Interval | null;
  expected_attempts_ci: Bounds | null;
  m_ci: Bounds | null;
  /** What a guard capped at this m would really accept over the run's inputs (mean of 1 − (1 − P_pass,i)^m). */
  per_input_success_within_m: number | null;
};

export interface TensorRetryPlan {
  N: number;
  M: number;
  K: number;
  confidence: number;
  level: number;
  errors: ErrorPolicy;
  /**
   * The headline figures are the per-input mixture's: with inputs of unequal difficulty, the pooled rate's
   * 1/P_pass underestimates the attempts and its m falls short of the confidence (Jensen's inequality).
   */
  source: 'per_input';
  p_pass: number | null;
  expected_attempts: number | null;
  expected_retries: number | null;
  m: number | null;
  p_success_within_m: number | null;
  validators: { k: number; name: string; rate: number | null; ci: Interval | null; pass: number; fail: number; error: number }[];
  /** The paper's formula: P_pass = Π p_k from the marginal rates. null if a validator has no decided cell. */
  product: RatePlan | null;
  /** The pooled empirical joint rate: share of samples passing every validator at once. */
  joint: JointPlan | null;
  per_input: MixturePlan | null;
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
  // 'exclude' is a complete-case analysis: a sample with any error cell is left out, even when another cell
  // failed. Keeping the failed ones but not the passed ones would bias the joint pass rate downwards.
  if (error) return errors === 'fail' ? 'fail' : 'error';
  return fail ? 'fail' : 'pass';
}

/** Derived figures move opposite to P_pass: bounds come from the other end of its interval. */
function boundsFrom(ci: Interval | null, f: (p: number) => number | null): Bounds | null {
  return ci ? { low: f(ci.high), high: f(ci.low) } : null;
}

function validatorRates(
  t: ReliabilityTensor,
  errors: ErrorPolicy,
  ci: (x: number, n: number) => Interval | null,
  name: (k: number) => string,
): TensorRetryPlan['validators'] {
  return Array.from({ length: t.K }, (_, k) => {
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
    const n = pass + fail + (errors === 'fail' ? error : 0);
    return { k, name: name(k), rate: n > 0 ? pass / n : null, ci: ci(pass, n), pass, fail, error };
  });
}

function mixture(ps: readonly number[], confidence: number, ms: readonly (number | null)[]): MixturePlan | null {
  if (ps.length === 0) return null;
  const unreachable = ps.filter((p) => p === 0).length;
  const m = mixtureMinAttempts(ps, confidence);
  const e = unreachable > 0 ? null : ps.reduce((s, p) => s + 1 / p, 0) / ps.length;
  return {
    p_pass: ps.reduce((s, p) => s + p, 0) / ps.length,
    expected_attempts: e,
    expected_retries: e === null ? null : e - 1,
    m,
    p_success_within_m: m === null ? null : ps.reduce((s, p) => s + pSuccessWithin(p, m), 0) / ps.length,
    max_m: unreachable > 0 ? null : maxOf(ms.filter((x): x is number => x !== null)),
    inputs: ps.length,
    unreachable_inputs: unreachable,
  };
}

/** The planner over a stored run's tensor (§4.2.3): per-input figures, global figures, independence check. */
export function planFromTensor(t: ReliabilityTensor, opts: TensorPlanOptions): TensorRetryPlan {
  assertConfidence(opts.confidence);
  const level = opts.level ?? 0.95;
  const method = opts.method ?? 'clopper-pearson';
  const ci = (x: number, n: number) => interval(method, x, n, level);
  const errors = opts.errors ?? 'exclude';
  const name = (k: number) => opts.names?.[k] ?? `validator ${k + 1}`;
  const mOf = (q: number) => minAttempts(q, opts.confidence);

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
    const pci = ci(counts.pass, n);
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
      m: p === null ? null : mOf(p),
      m_ci: boundsFrom(pci, mOf),
    });
  }

  const validators = validatorRates(t, errors, ci, name);
  const rates = validators.map((v) => v.rate);
  const product = rates.every((r): r is number => r !== null) ? planFromRates(rates, opts.confidence) : null;

  let joint: JointPlan | null = null;
  if (totalSamples > 0) {
    const pci = ci(totalAllPass, totalSamples);
    joint = {
      ...planFromPPass(totalAllPass / totalSamples, opts.confidence),
      samples: totalSamples,
      all_pass: totalAllPass,
      p_pass_ci: pci,
      expected_attempts_ci: boundsFrom(pci, expectedAttempts),
      m_ci: boundsFrom(pci, mOf),
      per_input_success_within_m: null,
    };
  }

  const decided = inputs.filter((x) => x.p_pass !== null);
  const perInput = mixture(
    decided.map((x) => x.p_pass!),
    opts.confidence,
    decided.map((x) => x.m),
  );
  if (joint?.m != null) {
    const m = joint.m;
    joint.per_input_success_within_m = decided.reduce((s, x) => s + pSuccessWithin(x.p_pass!, m), 0) / decided.length;
  }

  return {
    source: 'per_input',
    p_pass: perInput?.p_pass ?? null,
    expected_attempts: perInput?.expected_attempts ?? null,
    expected_retries: perInput?.expected_retries ?? null,
    m: perInput?.m ?? null,
    p_success_within_m: perInput?.p_success_within_m ?? null,
    confidence: opts.confidence,
    N: t.N,
    M: t.M,
    K: t.K,
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
