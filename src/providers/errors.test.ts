import { describe, expect, it } from 'vitest';
import { mapAiSdkError } from './classify.js';
import { abortError, abortKind, abortableSleep, networkError, parseRetryAfter, statusError, statusKind } from './errors.js';
import { ProviderError } from './types.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

const h = (o: Record<string, string>) => new Headers(o);

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(h({ 'retry-after': '5' }), now)).toBe(5000);
    expect(parseRetryAfter(h({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('status and abort mapping', () => {
  it('maps statuses to kinds', () => {
    expect([429, 500, 503, 400, 401, 404, 422, 408].map(statusKind)).toEqual([
      'rate_limit',
      'server',
      'server',
      'client',
      'client',
      'client',
      'client',
      'timeout',
    ]);
    const e = statusError('x', 429, h({ 'retry-after': '2' }), 'slow down');
    expect([e.kind, e.status, e.retryAfterMs, e.message]).toEqual(['rate_limit', 429, 2000, 'x: HTTP 429: slow down']);
    expect(statusError('x', 400, h({ 'retry-after': '2' })).retryAfterMs).toBeUndefined();
  });
  it('tells a timeout from a cancel by the abort reason', () => {
    const c = new AbortController();
    c.abort();
    expect(abortKind(c.signal)).toBe('aborted');
    const t = new AbortController();
    t.abort(new DOMException('per-call limit', 'TimeoutError'));
    expect(abortKind(t.signal)).toBe('timeout');
    const p = new AbortController();
    p.abort(new ProviderError('timeout', 'limit'));
    expect(abortError(p.signal, 'sys').kind).toBe('timeout');
  });
  it('classifies socket errors by code, anywhere in the cause chain', () => {
    const signal = new AbortController().signal;
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(networkError('x', refused, signal).kind).toBe('connection');
    expect(networkError('x', Object.assign(new Error('t'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), signal).kind).toBe('timeout');
    expect(networkError('x', new SyntaxError('Unexpected token'), signal).kind).toBe('invalid_response');
  });
  it('abortableSleep resolves after the delay, or rejects as soon as the signal fires', async () => {
    const t0 = performance.now();
    await abortableSleep(20, new AbortController().signal, 'x');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(19);
    const c = new AbortController();
    setTimeout(() => c.abort(), 10);
    const t1 = performance.now();
    await expect(abortableSleep(SLOW_MS, c.signal, 'x')).rejects.toMatchObject({ kind: 'aborted' });
    expect(performance.now() - t1).toBeLessThan(PROMPTLY_MS);
  });
  it('decides retryable where the error is made: by kind, and 501/505 never', () => {
    const h0 = h({});
    expect([429, 500, 502, 503, 504, 529, 408].map((st) => statusError('x', st, h0).retryable)).toEqual([true, true, true, true, true, true, true]);
    expect([400, 401, 403, 404, 422, 501, 505].map((st) => statusError('x', st, h0).retryable)).toEqual([false, false, false, false, false, false, false]);
    expect(new ProviderError('invalid_response', 'x').retryable).toBe(false);
    expect(new ProviderError('connection', 'x').retryable).toBe(true);
    // Recognised across module copies (src and dist) by its marker, not only by instanceof.
    const copy = Object.assign(Object.create(Error.prototype) as object, { kind: 'server' });
    Object.defineProperty(copy, Symbol.for('assay.ProviderError'), { value: true });
    expect(ProviderError.isInstance(copy)).toBe(true);
    expect(ProviderError.isInstance(new Error('x'))).toBe(false);
  });
  it('maps AI SDK errors by name: API call status, 2xx with a bad body, network causes, missing settings', () => {
    const signal = new AbortController().signal;
    const api = (o: Record<string, unknown>) => Object.assign(new Error(String(o.message ?? 'api')), { name: 'AI_APICallError', ...o });
    const rl = mapAiSdkError('x', api({ statusCode: 429, responseHeaders: { 'Retry-After': '7' }, message: 'slow down' }), signal);
    expect([rl.kind, rl.retryAfterMs, rl.message]).toEqual(['rate_limit', 7000, 'x: HTTP 429: slow down']);
    expect(mapAiSdkError('x', api({ statusCode: 200, responseBody: '<html>' }), signal).kind).toBe('invalid_response');
    const refused = api({ cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(mapAiSdkError('x', refused, signal).kind).toBe('connection');
    expect(mapAiSdkError('x', Object.assign(new Error('bad'), { name: 'AI_TypeValidationError' }), signal).kind).toBe('invalid_response');
    expect(mapAiSdkError('x', Object.assign(new Error('no key'), { name: 'AI_LoadAPIKeyError' }), signal).kind).toBe('client');
  });
});
