import type { InputValue } from '../core/validator.js';
import { AssayError, ExitCode } from '../errors.js';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface Generation {
  text: string;
  usage?: TokenUsage;
  /** Wall time of the call that produced this text, in ms. */
  latencyMs: number;
}

export interface GenerateOptions {
  /** Aborted on per-call timeout or Ctrl-C; providers must stop promptly and reject. */
  signal: AbortSignal;
  /** Sample index j, for providers that need it (replay, simulated). */
  sample: number;
  /** Input index i, for providers that need it (replay, simulated). */
  inputIndex: number;
}

/** A system under test (an LLM-based system) behind the smallest interface the runner needs. */
export interface SystemUnderTest {
  /** e.g. "openai:gpt-4o-mini", "simulated", "command:./app" */
  readonly id: string;
  generate(input: InputValue, options: GenerateOptions): Promise<Generation>;
  close?(): Promise<void>;
}

export type ProviderErrorKind =
  | 'rate_limit' // HTTP 429
  | 'server' // HTTP 5xx
  | 'timeout'
  | 'connection' // reset, refused, DNS
  | 'aborted' // the run was cancelled
  | 'client' // HTTP 4xx other than 429: a bad request will not get better by retrying
  | 'invalid_response'; // the answer could not be read

/**
 * Every provider failure is thrown as a ProviderError so the runner can decide, in one place,
 * what to retry. A ProviderError is an infrastructure error: it becomes an `error` outcome, never a FAIL.
 */
export class ProviderError extends AssayError {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** From a Retry-After header, when the provider sent one. */
  readonly retryAfterMs?: number;

  constructor(kind: ProviderErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, ExitCode.INTERNAL, { cause: opts.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }

  /** Transient errors are worth retrying with backoff. */
  get transient(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'timeout' || this.kind === 'connection';
  }
}
