import { ProviderError } from './types.js';

/**
 * The one place that retries model calls (the runner's generations, judges, SPADE's steps, embedders).
 * Retry with exponential backoff and "full jitter" (delay drawn uniformly from [0, min(max, base·2^n)]),
 * which spreads a burst of clients that were rate-limited together instead of having them retry in step.
 * Only ProviderErrors whose `retryable` says so are retried (429, 5xx, timeouts, connection resets: the
 * decision is made where the error is made); a bad request, an unreadable answer, any other exception, or
 * a cancelled run is rethrown at once. A `timeout` is retried only `timeoutRetries` times (default none): a
 * call that hung for its whole limit is likely to hang again, and retrying it like a 429 multiplied the limit
 * the user set (a hanging system took 5 × timeoutMs plus backoff per call, issue 30). Callers whose signal is
 * an overall budget (a judge, the guard) allow more, since the budget bounds them. With `attemptTimeoutMs`,
 * each attempt gets its own deadline inside the caller's budget (the signal): an attempt that runs out is a
 * `timeout`.
 */

export interface RetryInfo {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  error: ProviderError;
  /** How long we wait before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Further attempts after the first (0 = no retry). Default 4. */
  retries?: number;
  /** Of those, how many may follow a timeout. Default 0: a call that hung is not tried again. */
  timeoutRetries?: number;
  /** First backoff ceiling in ms. Default 500. */
  baseMs?: number;
  /** Largest backoff ceiling in ms. Default 30 000. */
  maxMs?: number;
  /** Longest Retry-After we honour in ms; a server asking for longer gets no retry. Default 120 000. */
  maxRetryAfterMs?: number;
  /** The run's signal: once aborted, nothing is retried and a pending wait ends at once. */
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /** Uniform [0, 1) source; pass a seeded one (see `seededRandom`) for reproducible tests. */
  random?: () => number;
  /** Limit of one attempt in ms; the attempt's signal (fn's second argument) fires with a timeout ProviderError. */
  attemptTimeoutMs?: number;
}

export const DEFAULT_RETRY = { retries: 4, timeoutRetries: 0, baseMs: 500, maxMs: 30_000, maxRetryAfterMs: 120_000 } as const;

/** Seeded uniform source for deterministic jitter in tests and simulations. */
export { mulberry32 as seededRandom } from '../core/prng.js';

/** Backoff before attempt `attempt + 1` after `attempt` failures (attempt is 1-based). */
export function backoffDelay(attempt: number, error: ProviderError, opts: RetryOptions = {}): number {
  const baseMs = opts.baseMs ?? DEFAULT_RETRY.baseMs;
  const maxMs = opts.maxMs ?? DEFAULT_RETRY.maxMs;
  const random = opts.random ?? Math.random;
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  const jittered = Math.floor(random() * ceiling);
  // The server knows its own rate window: never come back sooner than it asked.
  return error.retryAfterMs !== undefined ? Math.max(error.retryAfterMs, jittered) : jittered;
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why a wait ended early: the signal's reason as a ProviderError (`aborted` unless it already is one). */
export function abortReason(signal: AbortSignal): ProviderError {
  const r: unknown = signal.reason;
  return ProviderError.isInstance(r) ? r : new ProviderError('aborted', 'the run was cancelled', { cause: r });
}

const NEVER = new AbortController().signal;

/**
 * One attempt with its own deadline: the signal handed to `fn` fires on the deadline (reason: a timeout
 * ProviderError) or with the caller's signal; the race makes the deadline hold even for a callee that
 * ignores its signal.
 */
async function withDeadline<T>(fn: (signal: AbortSignal) => Promise<T>, ms: number, outer: AbortSignal | undefined): Promise<T> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new ProviderError('timeout', `no answer within ${ms} ms`)), ms);
  const onOuter = () => ac.abort(outer!.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(ac.signal));
    ac.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fn(ac.signal), aborted]);
  } catch (err) {
    throw ac.signal.aborted ? abortReason(ac.signal) : err;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
    if (onAbort) ac.signal.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

/**
 * Call `fn` until it succeeds, an error that is not retryable occurs, the run is aborted or the retries are used up.
 * `fn` receives the 1-based attempt number and the attempt's signal. The last error is rethrown unchanged.
 */
export async function callWithRetry<T>(fn: (attempt: number, signal: AbortSignal) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const retries = opts.retries ?? DEFAULT_RETRY.retries;
  const timeoutRetries = opts.timeoutRetries ?? DEFAULT_RETRY.timeoutRetries;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs;
  let timeouts = 0;
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    try {
      return opts.attemptTimeoutMs !== undefined
        ? await withDeadline((signal) => fn(attempt, signal), opts.attemptTimeoutMs, opts.signal)
        : await fn(attempt, opts.signal ?? NEVER);
    } catch (err) {
      if (opts.signal?.aborted || !(ProviderError.isInstance(err) && err.retryable) || attempt > retries) throw err;
      if (err.kind === 'timeout' && ++timeouts > timeoutRetries) throw err;
      if (err.retryAfterMs !== undefined && err.retryAfterMs > maxRetryAfterMs) throw err;
      const delayMs = backoffDelay(attempt, err, opts);
      opts.onRetry?.({ attempt, error: err, delayMs });
      try {
        await sleep(delayMs, opts.signal);
      } catch {
        throw err; // aborted while waiting: report the failure we had, not the abort
      }
    }
  }
}
