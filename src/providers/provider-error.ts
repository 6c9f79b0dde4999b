import type { CallErrorKind } from '../core/call.js';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/**
 * The one error type every model call throws (GUIDE: errors are data). Its kind says what went wrong and
 * `retryable` says, once and where the error is made, whether trying again may help; `callWithRetry`
 * (src/providers/retry.ts) reads it and nothing else re-derives it. A ProviderError is an infrastructure error:
 * it becomes an `error` outcome, never a FAIL.
 */

/** The kinds of provider failure (core/call.ts, where stored samples keep them). */
export type ProviderErrorKind = CallErrorKind;

const RETRYABLE: Record<ProviderErrorKind, boolean> = {
  rate_limit: true,
  server: true,
  timeout: true,
  connection: true,
  aborted: false,
  client: false,
  invalid_response: false,
};

const PROVIDER_ERROR = Symbol.for('assay.ProviderError');

export class ProviderError extends AssayError {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** From a Retry-After header, when the provider sent one. */
  readonly retryAfterMs?: number;
  /** `retryable` (whether another attempt may succeed) is decided here, from the kind unless the maker knows better. */
  constructor(kind: ProviderErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown; retryable?: boolean } = {}) {
    // Exit 3 should one ever reach the top: an infrastructure failure, not the user's mistake.
    super(message, ExitCode.INTERNAL, { cause: opts.cause, retryable: opts.retryable ?? RETRYABLE[kind] });
    this.name = 'ProviderError';
    setMarker(this, PROVIDER_ERROR);
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }

  static override isInstance(err: unknown): err is ProviderError {
    return hasMarker(err, PROVIDER_ERROR);
  }
}
