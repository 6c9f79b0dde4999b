import { ProviderError, type ProviderErrorKind } from './types.js';
import { thrownMessage } from '../errors.js';

/**
 * One place that turns the outside world's failures (HTTP statuses, socket errors, aborts) into
 * ProviderError kinds, so every provider classifies them the same way and the runner retries uniformly.
 */

/** Why a signal was aborted: a per-call timeout (AbortSignal.timeout, or a reason named TimeoutError) or a cancel. */
export function abortKind(signal: AbortSignal): 'timeout' | 'aborted' {
  const reason: unknown = signal.reason;
  if (ProviderError.isInstance(reason) && reason.kind === 'timeout') return 'timeout';
  if (reason && typeof reason === 'object' && (reason as { name?: unknown }).name === 'TimeoutError') return 'timeout';
  return 'aborted';
}

/** The ProviderError for an aborted signal. */
export function abortError(signal: AbortSignal, who: string, cause?: unknown): ProviderError {
  const kind = abortKind(signal);
  return new ProviderError(kind, `${who}: ${kind === 'timeout' ? 'timed out' : 'aborted'}`, { cause: cause ?? signal.reason });
}

/** Parses Retry-After (delta-seconds or an HTTP date) and OpenAI's retry-after-ms; undefined when absent or unreadable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date names its weekday and month; anything else (e.g. "-3") is unreadable, not a date.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Status → kind: 429 rate_limit, 5xx server, 408 timeout, other 4xx client. */
export function statusKind(status: number): ProviderErrorKind {
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'client';
}

/** The ProviderError for a non-2xx HTTP answer. `detail` is a short excerpt of the body. */
export function statusError(
  who: string,
  status: number,
  headers: { get(name: string): string | null } | undefined,
  detail?: string,
  cause?: unknown,
  /** The server's or client's own word on retrying (the AI SDK's isRetryable, x-should-retry), when it gave one. */
  retryable?: boolean,
): ProviderError {
  const kind = statusKind(status);
  const retryAfterMs = kind === 'rate_limit' || kind === 'server' ? parseRetryAfter(headers) : undefined;
  const tail = detail ? `: ${excerpt(detail)}` : '';
  // 501 and 505: the server says it will never do this, however often it is asked.
  const never = status === 501 || status === 505 ? false : undefined;
  return new ProviderError(kind, `${who}: HTTP ${status}${tail}`, { status, retryAfterMs, cause, retryable: retryable ?? never });
}

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The error code of an error or of any error in its cause chain (undici wraps socket errors in TypeError('fetch failed')). */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Whether an error comes from the network rather than from reading the answer. */
export function isConnectionError(err: unknown): boolean {
  const code = errorCode(err);
  if (code && CONNECTION_CODES.has(code)) return true;
  return err instanceof TypeError && /fetch failed|terminated|socket/i.test(err.message);
}

/** Maps a thrown fetch/socket error, given the call's signal, to a ProviderError. */
export function networkError(who: string, err: unknown, signal: AbortSignal): ProviderError {
  if (ProviderError.isInstance(err)) return err;
  if (signal.aborted) return abortError(signal, who, err);
  if (isConnectionError(err)) {
    const code = errorCode(err);
    const kind = code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' ? 'timeout' : 'connection';
    return new ProviderError(kind, `${who}: ${code ?? 'connection failed'} (${messageOf(err)})`, { cause: err });
  }
  return new ProviderError('invalid_response', `${who}: ${messageOf(err)}`, { cause: err });
}

export function messageOf(err: unknown): string {
  return thrownMessage(err);
}

/**
 * Marks the start of a quoted answer in an error message (`…: outputPath x is not in the answer (…); answer: {…}`):
 * shown in full, left out of the error group's key, since it changes with every output while the cause does not.
 */
export const ANSWER = '; answer: ';

/** A short single-line excerpt for messages. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Sleeps `ms`, rejecting with the abort's ProviderError as soon as the signal fires. */
export function abortableSleep(ms: number, signal: AbortSignal, who: string): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal, who));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal, who));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A header lookup over a plain record (the AI SDK hands response headers over as one). */
export function recordHeaders(h: Record<string, string> | undefined): { get(name: string): string | null } | undefined {
  if (!h) return undefined;
  const lower = new Map(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name) => lower.get(name.toLowerCase()) ?? null };
}
