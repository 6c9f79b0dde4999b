import { describe, expect, it } from 'vitest';
import { ProviderError } from './types.js';
import { backoffDelay, callWithRetry, DEFAULT_RETRY, seededRandom, sleep, type RetryInfo } from './retry.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

const transient = () => new ProviderError('server', 'HTTP 500', { status: 500 });

describe('callWithRetry', () => {
  it('retries transient errors until success and reports each retry', async () => {
    const seen: RetryInfo[] = [];
    let calls = 0;
    const value = await callWithRetry(
      async (attempt) => {
        calls++;
        expect(attempt).toBe(calls);
        if (calls < 3) throw transient();
        return 'ok';
      },
      { retries: 5, baseMs: 1, maxMs: 4, onRetry: (i) => seen.push(i), random: seededRandom(1) },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(seen.map((s) => s.attempt)).toEqual([1, 2]);
  });

  it('gives up after `retries` further attempts and rethrows the last error', async () => {
    let calls = 0;
    const err = await callWithRetry(
      async () => {
        calls++;
        throw new ProviderError('server', `HTTP 500 #${calls}`, { status: 500 });
      },
      { retries: 2, baseMs: 1, maxMs: 1 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((err as Error).message).toBe('HTTP 500 #3');
  });

  // Issue 30: a timeout retried like a 429 made a hanging system cost 5 × its limit plus backoff per call.
  it('does not retry a timeout by default: a call that hung for its whole limit is likely to hang again', async () => {
    let calls = 0;
    const seen: RetryInfo[] = [];
    const err = await callWithRetry(
      async () => {
        calls++;
        throw new ProviderError('timeout', `no answer within 10 ms (#${calls})`);
      },
      { retries: 4, baseMs: 1, maxMs: 1, onRetry: (i) => seen.push(i) },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(seen).toEqual([]);
    expect((err as ProviderError).kind).toBe('timeout');
    expect(DEFAULT_RETRY.timeoutRetries).toBe(0);
  });

  it('retries timeouts `timeoutRetries` times, within `retries`, and other errors in between as before', async () => {
    const kinds: string[] = [];
    const failWith = (plan: ProviderError[]) => async () => {
      const e = plan[kinds.length];
      if (!e) return 'ok';
      kinds.push(e.kind);
      throw e;
    };
    const timeout = new ProviderError('timeout', 'no answer within 10 ms');
    // Two timeouts allowed: the third one ends it.
    await expect(callWithRetry(failWith([timeout, transient(), timeout, timeout]), { retries: 9, timeoutRetries: 2, baseMs: 1, maxMs: 1 })).rejects.toBe(
      timeout,
    );
    expect(kinds).toEqual(['timeout', 'server', 'timeout', 'timeout']);
    kinds.length = 0;
    // `retries` still bounds every retry, timeouts included.
    await expect(callWithRetry(failWith([timeout, timeout, timeout]), { retries: 1, timeoutRetries: 5, baseMs: 1, maxMs: 1 })).rejects.toBe(timeout);
    expect(kinds).toEqual(['timeout', 'timeout']);
    kinds.length = 0;
    expect(await callWithRetry(failWith([timeout]), { timeoutRetries: 1, baseMs: 1, maxMs: 1 })).toBe('ok');
  });

  it.each(['client', 'invalid_response', 'aborted'] as const)('never retries a %s error', async (kind) => {
    let calls = 0;
    await expect(
      callWithRetry(
        async () => {
          calls++;
          throw new ProviderError(kind, kind);
        },
        { retries: 5, baseMs: 1 },
      ),
    ).rejects.toThrow(kind);
    expect(calls).toBe(1);
  });

  it('never retries a plain exception (a bug is not transient)', async () => {
    let calls = 0;
    await expect(
      callWithRetry(
        async () => {
          calls++;
          throw new TypeError('boom');
        },
        { retries: 5, baseMs: 1 },
      ),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });

  it('honours Retry-After: waits at least as long as the server asked', async () => {
    const t0 = Date.now();
    let calls = 0;
    const delays: number[] = [];
    await callWithRetry(
      async () => {
        if (++calls === 1) throw new ProviderError('rate_limit', '429', { status: 429, retryAfterMs: 150 });
        return 1;
      },
      { retries: 3, baseMs: 1, maxMs: 2, onRetry: (i) => delays.push(i.delayMs) },
    );
    expect(delays).toEqual([150]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('does not retry when Retry-After exceeds the cap', async () => {
    let calls = 0;
    await expect(
      callWithRetry(
        async () => {
          calls++;
          throw new ProviderError('rate_limit', '429', { retryAfterMs: 10_000 });
        },
        { retries: 3, maxRetryAfterMs: 1000 },
      ),
    ).rejects.toThrow('429');
    expect(calls).toBe(1);
  });

  it('stops at once when the run is aborted during a backoff wait', async () => {
    const ac = new AbortController();
    let calls = 0;
    const t0 = Date.now();
    const p = callWithRetry(
      async () => {
        calls++;
        throw transient();
      },
      { retries: 10, baseMs: SLOW_MS, maxMs: SLOW_MS, random: () => 0.99, signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 30);
    await expect(p).rejects.toThrow('HTTP 500');
    expect(calls).toBe(1);
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
  });

  it('does not even start when the run is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    await expect(callWithRetry(async () => ++calls, { signal: ac.signal })).rejects.toMatchObject({ kind: 'aborted' });
    expect(calls).toBe(0);
  });
});

describe('backoffDelay', () => {
  it('is full jitter: uniform below a ceiling that doubles up to maxMs', () => {
    const e = transient();
    expect(backoffDelay(1, e, { baseMs: 100, maxMs: 1000, random: () => 0.999 })).toBe(99);
    expect(backoffDelay(3, e, { baseMs: 100, maxMs: 1000, random: () => 0.999 })).toBe(399);
    expect(backoffDelay(10, e, { baseMs: 100, maxMs: 1000, random: () => 0.999 })).toBe(999);
    expect(backoffDelay(3, e, { baseMs: 100, maxMs: 1000, random: () => 0 })).toBe(0);
  });

  it('spreads delays over the whole window (seeded)', () => {
    const random = seededRandom(7);
    const e = transient();
    const xs = Array.from({ length: 2000 }, () => backoffDelay(4, e, { baseMs: 100, maxMs: 10_000, random }));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(800);
    expect(mean).toBeGreaterThan(370);
    expect(mean).toBeLessThan(430);
  });

  it('seededRandom is reproducible', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

describe('sleep', () => {
  it('rejects with an aborted ProviderError when the signal fires', async () => {
    const ac = new AbortController();
    const p = sleep(10_000, ac.signal);
    ac.abort();
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe("callWithRetry: per-attempt deadlines within the caller's budget", () => {
  it('with timeoutRetries, a timed-out attempt is retried, and the next attempt gets a fresh deadline', async () => {
    const seen: string[] = [];
    const r = await callWithRetry(
      (attempt, signal) =>
        new Promise<string>((resolve, reject) => {
          if (attempt === 2) return resolve('second');
          // A callee that ignores its signal is still cut off by the race.
          signal.addEventListener('abort', () => seen.push(String((signal.reason as ProviderError).kind)));
          void reject;
        }),
      { retries: 2, timeoutRetries: 1, baseMs: 1, maxMs: 1, attemptTimeoutMs: 50 },
    );
    expect(r).toBe('second');
    expect(seen).toEqual(['timeout']);
  });

  it("the caller's signal ends everything, deadlines or not", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(new ProviderError('timeout', 'budget spent')), 120);
    let attempts = 0;
    const err = await callWithRetry(
      (_n, signal) => {
        attempts++;
        return new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      { retries: 100, timeoutRetries: 100, baseMs: 1, maxMs: 1, attemptTimeoutMs: 50, signal: ac.signal },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThan(5);
  });

  it('retries what the error says is retryable, nothing else', async () => {
    let n = 0;
    const notImplemented = new ProviderError('server', 'HTTP 501', { status: 501, retryable: false });
    await expect(
      callWithRetry(
        async () => {
          n++;
          throw notImplemented;
        },
        { retries: 3, baseMs: 1 },
      ),
    ).rejects.toBe(notImplemented);
    expect(n).toBe(1);
  });
});
