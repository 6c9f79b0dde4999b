import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { maxInWindow } from '../queue/testing/workers.js';
import { startMockProcess, type MockProcess } from '../testing/mock-process.js';
import { HEADROOM, LocalCallLimiter, rateLimitOf } from './rate-limit.js';

// A local run honours `rateLimit` in-process, measured where it matters: at the (mock) provider.
const tmp = useConfigDir('assay-rate-');
const cli = (...args: string[]) => captureCli(args);
let servers: MockProcess[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

/** A mock in a process of its own that records when each request arrived. */
async function timedMock(content: string | { judge: 'PASS' | 'FAIL' }, usage?: { prompt_tokens: number; completion_tokens: number }) {
  const mock = await startMockProcess({ ...(typeof content === 'string' ? { content } : content), delayMs: 5, ...(usage ? { usage } : {}) });
  servers.push(mock);
  return mock;
}

describe('the in-process limiter (GCRA), on a simulated clock', () => {
  afterEach(() => vi.useRealTimers());

  it('grants calls requestsPerMinute apart (with headroom), so no one-second window holds more than the limit', async () => {
    vi.useFakeTimers();
    const limiter = new LocalCallLimiter({ requestsPerMinute: 600 }, () => Date.now());
    const t0 = Date.now();
    const granted: number[] = [];
    const all = Promise.all(Array.from({ length: 40 }, () => limiter.acquire().then(() => granted.push(Date.now() - t0))));
    await vi.runAllTimersAsync();
    await all;
    expect(granted).toHaveLength(40);
    const gaps = granted.slice(1).map((t, k) => t - granted[k]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100 * HEADROOM - 1);
    expect(maxInWindow(granted)).toBeLessThanOrEqual(10);
    // Not slower than it must be: 40 calls take about 39 spacings.
    expect(granted[39]).toBeLessThanOrEqual(39 * 100 * HEADROOM + 5);
  });

  it('no call starts while the tokens spent lie ahead of the budget', async () => {
    vi.useFakeTimers();
    const limiter = new LocalCallLimiter({ tokensPerMinute: 6000 }, () => Date.now()); // 100 tokens a second
    const t0 = Date.now();
    await limiter.acquire();
    await limiter.spend(300); // three seconds of budget
    const next = limiter.acquire().then(() => Date.now() - t0);
    await vi.runAllTimersAsync();
    expect(await next).toBeGreaterThanOrEqual(3000);
  });

  it('an abort ends the wait with the signal’s reason', async () => {
    vi.useFakeTimers();
    const limiter = new LocalCallLimiter({ requestsPerMinute: 1 }, () => Date.now());
    await limiter.acquire();
    const ac = new AbortController();
    const waiting = limiter.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow();
  });
});

describe('rateLimit in a local run', () => {
  it('requestsPerMinute on the system and on a judge: the calls reach the provider spaced out, not in a burst', async () => {
    const system = await timedMock('fine');
    const judge = await timedMock({ judge: 'PASS' });
    const file = tmp.config(
      'limited.yaml',
      `name: limited
system:
  openai: { baseURL: "${system.baseURL}", model: m }
  rateLimit: { requestsPerMinute: 600 }
inputs: ["a", "b", "c", "d"]
samples: 6
concurrency: 8
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
verifiers:
  - name: judged
    minSuccess: 0.5
    instructions: "Is it fine?"
    judge:
      openai: { baseURL: "${judge.baseURL}", model: j }
      rateLimit: { requestsPerMinute: 480 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/limited.db`, '--no-progress');
    expect(r.code, r.err).toBe(0);
    const [calls, judged] = [await system.arrivals(), await judge.arrivals()];
    expect(calls).toHaveLength(24);
    expect(judged).toHaveLength(24);
    // The limiter's own guarantee (no window over the limit) is checked on a simulated clock above; here, at the
    // provider, delivery delays on a loaded machine may bunch two calls, so the check is that they were spread:
    // unlimited, 24 calls at concurrency 8 arrive within ~0.1 s; spaced, they span 23 × 110 ms (judge: 23 × 137.5 ms).
    const span = (t: number[]) => Math.max(...t) - Math.min(...t);
    expect(span(calls)).toBeGreaterThan(23 * 100 * HEADROOM - 1000);
    expect(span(judged)).toBeGreaterThan(23 * 125 * HEADROOM - 1000);
    expect(maxInWindow(calls)).toBeLessThanOrEqual(13);
    expect(maxInWindow(judged)).toBeLessThanOrEqual(11);
  }, 30_000);

  it('tokensPerMinute: the tokens spent never run ahead of the budget by more than the calls in flight', async () => {
    const system = await timedMock('fine', { prompt_tokens: 60, completion_tokens: 40 });
    const file = tmp.config(
      'tokens.yaml',
      `name: tokens
system:
  openai: { baseURL: "${system.baseURL}", model: m }
  rateLimit: { tokensPerMinute: 12000 }
inputs: ["a", "b"]
samples: 6
concurrency: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/tokens.db`, '--no-progress');
    expect(r.code, r.err).toBe(0);
    // 12,000 tokens a minute is 200 a second; each call spends 100. Before the k-th call starts, the calls
    // before it may have spent at most 200 per second since the first, plus one call per slot in flight.
    const t = await system.arrivals();
    expect(t).toHaveLength(12);
    for (let k = 0; k < t.length; k++) expect(k * 100).toBeLessThanOrEqual(((t[k] - t[0]) / 1000) * 200 + 4 * 100);
  }, 30_000);

  it('a malformed rateLimit is exit 2 naming the field', async () => {
    const file = tmp.config(
      'bad.yaml',
      `name: bad
system:
  simulated: { outputs: ["x"] }
  rateLimit: { requestsPerMinute: -1 }
inputs: ["a"]
validators:
  - { name: v, predicate: "o => true", minSuccess: 0.5 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/bad.db`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.yaml: system\.rateLimit\.requestsPerMinute: .*>0/);
    expect(() => rateLimitOf({ rateLimit: {} }, { path: 'system' })).toThrow(/system\.rateLimit: expected requestsPerMinute and\/or tokensPerMinute/);
    expect(() => rateLimitOf({ rateLimit: { rpm: 5 } }, { path: 'system' })).toThrow(/rpm/);
    expect(rateLimitOf({ openai: {} }, { path: 'system' })).toBeUndefined();
  });
});
