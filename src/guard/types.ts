import type { InputValue, Validator } from '../core/validator.js';
import type { Judge } from '../judge/types.js';
import type { TokenUsage } from '../providers/types.js';
import type { RetryOptions } from '../providers/retry.js';
import type { Store } from '../store/types.js';

/** Prices per 1,000 tokens, in whatever currency the caller uses. */
export interface TokenPrices {
  promptPer1k: number;
  completionPer1k: number;
}

/** Where attempts are persisted: the Store (see attempt-log.ts), or anything else that takes them. */
export interface AttemptSink {
  recordAttempt(callId: string, systemId: string, attempt: Attempt): void | Promise<void>;
  recordResult(systemId: string, originalInput: InputValue, result: GuardResult): void | Promise<void>;
  close(): void | Promise<void>;
}

export interface GuardOptions {
  /** Rules every output must pass (§4.2: validator-driven retry). */
  validators?: readonly Validator[];
  /** An LLM judge (§4.1: verifier-driven retry): a Judge, or a verifier Validator (from verifierFromConfig). */
  verifier?: Judge | Validator;
  /** m: maximum attempts including the first. */
  maxAttempts: number;
  /** Overall time limit for the whole loop in ms; no limit when absent. */
  timeoutMs?: number;
  /**
   * What the next attempt is told about the last rejection: true (default) feeds back the verifier's reasons and
   * the messages of failed validators; 'verifier' feeds back the verifier's reasons only; false regenerates
   * from the unchanged input (the paper's §4.2 loop).
   */
  feedback?: boolean | 'verifier';
  /** How reasons augment the input; `{input}` and `{reasons}` are replaced. Default FEEDBACK_TEMPLATE. */
  template?: string;
  /** For object inputs: the field the template rewrites (default: the first string field of prompt, input, question, query). */
  feedbackField?: string;
  /** Run the verifier even when a validator already failed (costs a judge call; default false). */
  verifyAlways?: boolean;
  /** Persist attempts: a Store, an AttemptSink, or a store location (a SQLite path or postgres:// URL, opened for the call). */
  store?: AttemptSink | Store | string;
  prices?: { system?: TokenPrices; verifier?: TokenPrices };
  /** Time limit of one generation in ms; a timed-out call is retried with backoff within `timeoutMs` (without it, only as `retry.timeoutRetries` says). */
  callTimeoutMs?: number;
  /** Time limit of a rule in ms when the validator sets none (evaluateValidator's default otherwise: 5 s). */
  validatorTimeoutMs?: number;
  /** Time limit of one LLM judgement in ms (the verifier, or a verifier column that sets none); default 60 s. */
  verifierTimeoutMs?: number;
  /** Backoff for retryable generation errors within one attempt (429, 5xx, timeouts, resets). */
  retry?: RetryOptions;
  /** Cancellation by the caller. */
  signal?: AbortSignal;
  /** Passed to the system as inputIndex (simulated and replay systems use it). */
  inputIndex?: number;
  /** Id of this guarded call in the attempt log; default a random UUID. */
  callId?: string;
}

export interface CheckRecord {
  name: string;
  outcome: 'pass' | 'fail' | 'error';
  error?: string;
}

export interface Attempt {
  /** 1-based attempt number. */
  n: number;
  /** The input as sent to the system (augmented with reasons after a rejection, when feedback is on). */
  input: InputValue;
  output?: string;
  generationError?: string;
  validators: CheckRecord[];
  /** Absent without a verifier; 'skipped' when a validator had already failed. */
  verifier?: { outcome: 'pass' | 'fail' | 'error' | 'skipped'; reasons: string[]; error?: string };
  /** accepted: passed everything; rejected: a check failed; error: no check failed but one could not decide. */
  status: 'accepted' | 'rejected' | 'error' | 'timeout';
  /** The reasons this attempt produced (what feedback would send next). */
  reasons: string[];
  latencyMs: number;
  usage: { system: TokenUsage; verifier: TokenUsage };
  startedAt: string;
}

export type GuardReason = 'accepted' | 'exhausted' | 'timeout' | 'error';

export interface GuardResult {
  callId: string;
  accepted: boolean;
  /** The accepted output; absent when nothing passed (publish nothing). */
  output?: string;
  attempts: Attempt[];
  reason: GuardReason;
  /** Why the loop ended in error or timeout, in words. */
  detail?: string;
  usage: { system: TokenUsage; verifier: TokenUsage; total: TokenUsage };
  /** From `prices`; null when no prices were given. */
  cost: { system: number; verifier: number; total: number } | null;
  latencyMs: number;
  /** Set when the attempt log could not be written (the loop itself was not affected). */
  logError?: string;
}
