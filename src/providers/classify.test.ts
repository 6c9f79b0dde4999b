import { APICallError } from '@ai-sdk/provider';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyError, readError } from './classify.js';
import { ProviderError } from './types.js';

// One reading of a thrown error for every system (issue 26, item 3): the clients' real error classes, and
// errors shaped like them, become the same ProviderError kinds, statuses, waits and retry decisions.

const signal = new AbortController().signal;
const apiCall = (statusCode: number | undefined, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
  new APICallError({ message: statusCode === 401 ? 'Unauthorized' : 'Too Many Requests', url: 'https://x/v1', requestBodyValues: {}, statusCode, ...extra });

/** The Anthropic client's errors: the same template as openai's (status, headers as a Headers), its own classes. */
class AnthropicAPIError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    message: string,
  ) {
    super(message);
  }
}
class RateLimitError extends AnthropicAPIError {}

describe('readError: what every system throws', () => {
  it("reads the AI SDK's APICallError: statusCode, isRetryable and the Retry-After header", () => {
    const rl = readError('system function', apiCall(429, { responseHeaders: { 'retry-after': '2' } }), signal)!;
    expect([rl.kind, rl.status, rl.retryable, rl.retryAfterMs]).toEqual(['rate_limit', 429, true, 2000]);
    expect(rl.message).toBe('system function: HTTP 429: Too Many Requests');
    const auth = readError('system function', apiCall(401), signal)!;
    expect([auth.kind, auth.status, auth.retryable]).toEqual(['client', 401, false]);
    // isRetryable is the SDK's own word: its 409 is retryable, and a maker may say a 503 is not.
    expect(readError('s', apiCall(409), signal)!.retryable).toBe(true);
    expect(readError('s', apiCall(503, { isRetryable: false }), signal)!.retryable).toBe(false);
  });

  it("reads the AI SDK's RetryError by its last error", () => {
    const retry = Object.assign(new Error('Failed after 3 attempts. Last error: Unauthorized'), {
      name: 'AI_RetryError',
      reason: 'maxRetriesExceeded',
      lastError: apiCall(429),
    });
    expect(readError('s', retry, signal)).toMatchObject({ kind: 'rate_limit', status: 429, retryable: true });
  });

  it("reads openai's APIError subclasses by status and headers (Retry-After, retry-after-ms, x-should-retry)", () => {
    const rl = APIError.generate(429, { error: { message: 'Rate limit reached' } }, undefined, new Headers({ 'retry-after-ms': '1500' }));
    expect(rl.constructor.name).toBe('RateLimitError');
    expect(readError('s', rl, signal)).toMatchObject({ kind: 'rate_limit', status: 429, retryable: true, retryAfterMs: 1500 });
    const auth = APIError.generate(401, { error: { message: 'Incorrect API key provided' } }, undefined, new Headers());
    expect(readError('s', auth, signal)).toMatchObject({ kind: 'client', status: 401, retryable: false });
    expect(readError('s', auth, signal)!.message).toMatch(/^s: HTTP 401: .*Incorrect API key/);
    const noRetry = APIError.generate(500, undefined, 'boom', new Headers({ 'x-should-retry': 'false' }));
    expect(readError('s', noRetry, signal)).toMatchObject({ kind: 'server', retryable: false });
    expect(readError('s', new APIUserAbortError(), signal)?.kind).toBe('aborted');
    const refused = new APIConnectionError({ cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(readError('s', refused, signal)?.kind).toBe('connection');
  });

  it("reads Anthropic's APIError shape (529 overloaded is retried) and any error with a status and headers", () => {
    const overloaded = new AnthropicAPIError(529, new Headers({ 'retry-after': '3' }), 'Overloaded');
    expect(readError('s', overloaded, signal)).toMatchObject({ status: 529, retryable: true, retryAfterMs: 3000 });
    expect(readError('s', new RateLimitError(429, new Headers(), 'rate'), signal)).toMatchObject({ kind: 'rate_limit', retryable: true });
    // fetch-style (response.status), axios-style (statusCode, plain-record headers), a plain { status } error.
    const fetchLike = Object.assign(new Error('Bad Gateway'), { response: { status: 502, headers: new Headers() } });
    expect(readError('s', fetchLike, signal)).toMatchObject({ kind: 'server', status: 502, retryable: true });
    const record = Object.assign(new Error('slow'), { statusCode: 429, headers: { 'Retry-After': '4' } });
    expect(readError('s', record, signal)).toMatchObject({ kind: 'rate_limit', retryAfterMs: 4000 });
    expect(readError('s', Object.assign(new Error('Forbidden'), { status: 403 }), signal)).toMatchObject({ kind: 'client', retryable: false });
  });

  it('reads socket errors and timeouts; leaves anything else unrecognised', () => {
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) });
    expect(readError('s', reset, signal)?.kind).toBe('connection');
    expect(readError('s', new DOMException('The operation timed out', 'TimeoutError'), signal)?.kind).toBe('timeout');
    expect(readError('s', new Error('401 Unauthorized: missing OPENAI_API_KEY'), signal)).toBeUndefined();
    expect(readError('s', new TypeError("Cannot read properties of undefined (reading 'x')"), signal)).toBeUndefined();
    expect(readError('s', Object.assign(new Error('no'), { status: 'failed' }), signal)).toBeUndefined();
    expect(readError('s', 'a string', signal)).toBeUndefined();
    // A provider adapter calls what nobody recognises an unreadable answer.
    expect(classifyError('s', new SyntaxError('Unexpected token <'), signal).kind).toBe('invalid_response');
  });

  it('keeps a ProviderError, and names an abort by the call signal', () => {
    const own = new ProviderError('server', 'x');
    expect(readError('s', own, signal)).toBe(own);
    const c = new AbortController();
    c.abort(new ProviderError('timeout', 'no answer within 5 ms'));
    expect(readError('s', apiCall(429), c.signal)?.kind).toBe('timeout');
  });
});
