import type { CallErrorKind } from '../core/call.js';
import { AssayError, ExitCode } from '../errors.js';

/**
 * The one error type every model call throws (GUIDE: errors are data). Its kind says what went wrong and
 * `isRetryable` says, once and where the error is made, whether trying again may help; `callWithRetry`
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

/** Marker shared by every copy of this module (src and dist, two installed versions), as the AI SDK does. */
const MARKER = Symbol.for('assay.ProviderError');

export class ProviderError extends AssayError {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  /** From a Retry-After header, when the provider sent one. */
  readonly retryAfterMs?: number;
  /** Whether another attempt may succeed; decided here, from the kind unless the maker knows better. */
  readonly isRetryable: boolean;
  constructor(kind: ProviderErrorKind, message: string, opts: { status?: number; retryAfterMs?: number; cause?: unknown; isRetryable?: boolean } = {}) {
    // Exit 3 should one ever reach the top: an infrastructure failure, not the user's mistake.
    super(message, ExitCode.INTERNAL, { cause: opts.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.isRetryable = opts.isRetryable ?? RETRYABLE[kind];
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** The same as `isRetryable` (the name earlier versions used). */
  get transient(): boolean {
    return this.isRetryable;
  }

  static override isInstance(err: unknown): err is ProviderError {
    return err instanceof ProviderError || (typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[MARKER] === true);
  }
}
