import { abortError, errorCode, excerpt, isConnectionError, messageOf, networkError, recordHeaders, statusError } from './errors.js';
import { ProviderError } from './types.js';

/**
 * The one reading of a thrown error, for every system: an assay provider's client (the openai package, the AI
 * SDK, ollama) and a function system (assay/vitest's, a TypeScript config's `system:`) alike. What it reads,
 * in this order (docs/providers.md#errors-and-retries lists the same):
 *
 * - an assay ProviderError, as it is; any error once the call's signal was aborted, as a timeout or a cancel;
 * - the AI SDK's errors by name: `AI_RetryError` by its `lastError`, `AI_APICallError` by `statusCode`,
 *   `isRetryable` and `responseHeaders`, parse and validation errors, missing settings;
 * - the openai and Anthropic clients' errors: `APIUserAbortError`, `APIConnectionTimeoutError`,
 *   `APIConnectionError` by class name, `APIError` (and its subclasses) by `status` and `headers`;
 * - any other error carrying an HTTP status: `status`, `statusCode`, `status_code` or `response.status`, with
 *   headers from `headers`, `responseHeaders` or `response.headers` (a `Headers` or a plain record):
 *   `Retry-After` and `retry-after-ms` set the wait, `x-should-retry` (true/false) overrides whether to retry;
 * - socket errors by their code anywhere in the cause chain (ECONNREFUSED, ECONNRESET, ETIMEDOUT, …) and a
 *   `TimeoutError`.
 *
 * Anything else is not recognised (`undefined`): a provider adapter then calls it an unreadable answer, and a
 * function system rethrows it as it is (an error cell with its message, not retried).
 */
export function readError(who: string, err: unknown, signal: AbortSignal): ProviderError | undefined {
  if (ProviderError.isInstance(err)) return err;
  if (signal.aborted) return abortError(signal, who, err);
  if (!err || typeof err !== 'object') return undefined;
  const e = err as Record<string, unknown>;
  const name = typeof e.name === 'string' ? e.name : '';
  const className = (err as { constructor?: { name?: unknown } }).constructor?.name;
  // The AI SDK gave up after its own retries (generateText's maxRetries): the last attempt says why.
  if (name === 'AI_RetryError' && e.lastError !== undefined) return readError(who, e.lastError, signal);
  if (name === 'AI_APICallError') return apiCallError(who, err, e, signal);
  // An optional provider package that is not installed: the message says how to install it; retrying cannot help.
  if (name === 'MissingPackageError') return new ProviderError('client', `${who}: ${messageOf(err)}`, { cause: err });
  if (AI_SDK_INVALID.has(name)) return new ProviderError('invalid_response', `${who}: ${messageOf(err)}`, { cause: err });
  if (AI_SDK_CLIENT.has(name)) return new ProviderError('client', `${who}: ${messageOf(err)}`, { cause: err });
  // The openai and Anthropic clients share these classes' names (both are generated from one template).
  if (className === 'APIUserAbortError') return new ProviderError('aborted', `${who}: aborted`, { cause: err });
  if (className === 'APIConnectionTimeoutError') return new ProviderError('timeout', `${who}: timed out`, { cause: err });
  if (className === 'APIConnectionError') {
    const mapped = networkError(who, e.cause ?? err, signal);
    // The client says "Connection error." for every network failure; the cause says which one.
    return mapped.kind === 'invalid_response' ? new ProviderError('connection', `${who}: ${messageOf(err)}`, { cause: err }) : mapped;
  }
  const status = httpStatus(e);
  if (status !== undefined && (status < 200 || status > 299)) {
    const headers = headersOf(e);
    return statusError(who, status, headers, messageOf(err), err, shouldRetry(headers));
  }
  if (name === 'TimeoutError') return new ProviderError('timeout', `${who}: ${messageOf(err)}`, { cause: err });
  if (errorCode(err) !== undefined || err instanceof TypeError) return isConnectionError(err) ? networkError(who, err, signal) : undefined;
  return undefined;
}

/** readError, with anything it does not recognise taken as an answer that could not be read (a provider adapter's last word). */
export function classifyError(who: string, err: unknown, signal: AbortSignal): ProviderError {
  return readError(who, err, signal) ?? networkError(who, err, signal);
}

/** The AI SDK's errors, for the adapters that call its models (ai-sdk.ts, embeddings.ts). */
export const mapAiSdkError = classifyError;

const AI_SDK_INVALID = new Set([
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_InvalidResponseDataError',
  'AI_EmptyResponseBodyError',
  'AI_NoContentGeneratedError',
]);
const AI_SDK_CLIENT = new Set([
  'AI_LoadAPIKeyError',
  'AI_LoadSettingError',
  'AI_InvalidArgumentError',
  'AI_InvalidPromptError',
  'AI_UnsupportedFunctionalityError',
  'AI_NoSuchModelError',
]);

/** APICallError: by its status (a 2xx status means the body could not be read), else by its network cause. */
function apiCallError(who: string, err: unknown, e: Record<string, unknown>, signal: AbortSignal): ProviderError {
  const status = e.statusCode;
  const retryable = typeof e.isRetryable === 'boolean' ? e.isRetryable : undefined;
  if (typeof status === 'number' && (status < 200 || status > 299)) {
    const headers = recordHeaders(e.responseHeaders as Record<string, string> | undefined);
    const detail = typeof e.message === 'string' ? e.message : String(e.responseBody ?? '');
    return statusError(who, status, headers, detail, err, retryable ?? shouldRetry(headers));
  }
  if (typeof status === 'number') {
    const body = typeof e.responseBody === 'string' ? `: ${excerpt(e.responseBody, 120)}` : '';
    return new ProviderError('invalid_response', `${who}: ${messageOf(err)}${body}`, { status, cause: err });
  }
  const mapped = networkError(who, e.cause ?? err, signal);
  return mapped.kind === 'invalid_response'
    ? new ProviderError('connection', `${who}: ${messageOf(err)}`, { cause: err, ...(retryable !== undefined ? { retryable } : {}) })
    : mapped;
}

/** An HTTP status (100–599) the error carries, by the names clients give it. */
function httpStatus(e: Record<string, unknown>): number | undefined {
  const response = e.response as Record<string, unknown> | undefined;
  for (const v of [e.status, e.statusCode, e.status_code, typeof response === 'object' && response !== null ? response.status : undefined]) {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599) return v;
  }
  return undefined;
}

type HeaderLookup = { get(name: string): string | null };

/** The answer's headers: a Headers (openai, Anthropic, fetch) or a plain record (the AI SDK, axios). */
function headersOf(e: Record<string, unknown>): HeaderLookup | undefined {
  const response = e.response as Record<string, unknown> | undefined;
  for (const h of [e.headers, e.responseHeaders, typeof response === 'object' && response !== null ? response.headers : undefined]) {
    if (!h || typeof h !== 'object') continue;
    if (typeof (h as HeaderLookup).get === 'function') {
      const g = h as HeaderLookup;
      return {
        get: (n) => {
          const v = g.get(n);
          return typeof v === 'string' ? v : null;
        },
      };
    }
    const record = Object.fromEntries(Object.entries(h).filter((kv): kv is [string, string] => typeof kv[1] === 'string'));
    return recordHeaders(record);
  }
  return undefined;
}

/** The server's own word on retrying (`x-should-retry`, as the openai and Anthropic clients read it). */
function shouldRetry(headers: HeaderLookup | undefined): boolean | undefined {
  const v = headers?.get('x-should-retry')?.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}
