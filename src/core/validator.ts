import type { Trajectory } from './trajectory.js';

/** An input to the system under test: a plain prompt, or an object whose fields a provider or predicate may use. */
export type InputValue = string | Record<string, unknown>;

/**
 * A validator's rule (white paper §2): the one-argument form `(output) => boolean` or the
 * two-argument form `(output, input) => boolean`. May be async. Throwing is an `error` outcome.
 * An agent's output also brings its steps (core/trajectory.ts) as the third argument; undefined for text.
 */
export type Predicate = (output: string, input: InputValue, trajectory?: Trajectory) => boolean | Promise<boolean>;

/**
 * One claim of an output as a grounding check decided it (issue 27): its 1-based position among the output's
 * claims, its text, the detector's status and the evidence it read. Kept with the sample so people can grade the
 * check per claim (`assay audits import --run`).
 */
export interface CheckedClaim {
  claim: number;
  text: string;
  status: 'STRONG' | 'WEAK' | 'UNSUPPORTED' | 'CONTRADICTED';
  evidence?: string;
}

/** Result of a check that can say more than a boolean (verifiers give reasons). */
export interface CheckResult {
  outcome: 'pass' | 'fail' | 'error';
  /** A verifier's reasons for its verdict. */
  reasons?: string[];
  /** Why the outcome is `error`. */
  error?: string;
  /** Tokens an LLM check (a verifier) spent; the runner adds them to the sample's usage. */
  usage?: { promptTokens: number; completionTokens: number };
  /** USD those tokens cost at the configured prices, when the judge's model has a price. */
  costUsd?: number;
  /** A grounding check's decided claims (claims it could not decide left out); the runner stores them with the sample. */
  claims?: CheckedClaim[];
}

export interface Validator {
  name: string;
  /** Shown when the rule fails. */
  message: string;
  predicate: Predicate;
  /** Minimum success rate required for the validator's verdict to be `pass` (0..1). */
  minSuccess: number;
  /** Weight in the weighted aggregation (§3.3.2); default 1. */
  weight?: number;
  /** Per-evaluation time limit for the predicate in ms. */
  timeoutMs?: number;
  /** 'verifier' for an LLM judge column; default 'validator'. */
  kind?: 'validator' | 'verifier';
  /**
   * When present, used instead of `predicate`: verifiers return PASS/FAIL with reasons. Must honour
   * the signal (per-call timeout, Ctrl-C) and return `error` rather than throw for infrastructure problems.
   */
  evaluate?: (output: string, input: InputValue, signal: AbortSignal, trajectory?: Trajectory) => Promise<CheckResult>;
  /** Human-readable description of the rule (predicate source or built-in check), for reports. */
  source?: string;
  /**
   * 'fail': the predicate throwing (or rejecting) means the output failed the rule — e.g. a JSON parse of an
   * output that is not JSON. Default 'error'. Timeouts, aborts and non-boolean results stay errors.
   */
  onError?: 'error' | 'fail';
  /** Largest error share this validator's verdict may rest on (overrides the run's maxErrorShare). */
  maxErrorShare?: number;
  /** The success rate expected; a sequential run decides fastest near it (core/sequence.ts). */
  expect?: number;
  /** Each input must pass at least this share of its repeats, Holm over the inputs (core/per-input.ts). */
  perInput?: { minSuccess: number };
  /** pass^k and pass@k at k, per input and over inputs; with minSuccess, the rule also needs pass^k ≥ it (core/pass-k.ts). */
  passK?: { k: number; minSuccess?: number };
}

/** What a report needs to know about a validator, without its (non-serialisable) predicate. */
export interface ValidatorMeta {
  name: string;
  message: string;
  minSuccess: number;
  weight: number;
  /** 'validator' (a rule) or 'verifier' (an LLM judge, one more column k of the tensor). */
  kind: 'validator' | 'verifier';
  /** Human-readable description of the rule: the predicate source, or the built-in check. */
  source?: string;
  /** 'fail' when a throwing predicate counts as a failure (see Validator.onError). */
  onError?: 'error' | 'fail';
  /** This validator's own maxErrorShare, if set. */
  maxErrorShare?: number;
  /** The rate it is expected to have, if set (sequential design). */
  expect?: number;
  /** Its per-input floor, if set (core/per-input.ts). */
  perInput?: { minSuccess: number };
  /** Its pass^k report and gate, if set (core/pass-k.ts). */
  passK?: { k: number; minSuccess?: number };
}
