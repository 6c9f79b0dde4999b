import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, parseRedisUrl } from '../queue/connection.js';
import { redisForTests } from '../testing/services.js';
import { RateLimiter, RedisRateLimiter, type RedisEval } from './limits.js';
import { startServer } from './start.js';
import { PROMPTLY_MS } from '../testing/time.js';

// Two replicas of the service behind one load balancer share each client's /analyze budget through Redis.
const redis = await redisForTests();
afterAll(async () => redis?.drop());

describe.skipIf(!redis)('the /analyze rate limit shared through Redis', () => {
  it('two replicas draw on one bucket per client: the burst is shared, not doubled', async () => {
    const loc = parseRedisUrl(`${redis!.url}?prefix=${redis!.prefix}`);
    const client = await connectRedis(loc);
    const limiter = () => new RedisRateLimiter(client, 3, 0.2, loc.prefix);
    const [a, b] = [await startServer({ port: 0, log: false, rateLimiter: limiter() }), await startServer({ port: 0, log: false, rateLimiter: limiter() })];
    try {
      const post = (url: string) => fetch(`${url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"q"}' });
      // No knowledge base: an allowed request is a 503; a limited one a 429 with Retry-After.
      const statuses: number[] = [];
      for (const url of [a.url, b.url, a.url, b.url, a.url]) statuses.push((await post(url)).status);
      expect(statuses).toEqual([503, 503, 503, 429, 429]);
      const limited = await post(b.url);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await limited.json()).error).toBe('rate_limited');
    } finally {
      await a.close();
      await b.close();
      client.disconnect();
    }
  });

  it('a replica whose Redis stops answering limits in its own process meanwhile, and says so once', async () => {
    const down: RedisEval = { eval: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const said: string[] = [];
    const limiter = new RedisRateLimiter(down, 2, 0.1, 'x', (err) => said.push(err.message));
    expect([await limiter.take('c'), await limiter.take('c')]).toEqual([0, 0]);
    expect(await limiter.take('c')).toBeGreaterThan(0);
    expect(said).toEqual(['connect ECONNREFUSED']);
    // The same answers as a limiter in this process alone.
    const local = new RateLimiter(2, 0.1);
    expect([local.take('c'), local.take('c'), local.take('c') > 0]).toEqual([0, 0, true]);
  });
});

describe('the shared /analyze limit when Redis hangs', () => {
  it('a Redis that accepts the command but never answers does not hold the request: the replica limits on its own after the timeout, and says so once', async () => {
    let asked = 0;
    const hung: RedisEval = { eval: () => (asked++, new Promise(() => {})) };
    const said: string[] = [];
    const limiter = new RedisRateLimiter(hung, 2, 0.1, 'x', (err) => said.push(err.message), 50);
    const started = performance.now();
    const waits = [await limiter.take('c'), await limiter.take('c'), await limiter.take('c')];
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(waits.slice(0, 2)).toEqual([0, 0]);
    expect(waits[2]).toBeGreaterThan(0);
    expect(said).toEqual(['no answer within 50 ms']);
    // Redis is asked again a second later, not by every request in between (each would wait the timeout).
    expect(asked).toBe(1);
  });

  it('requests that arrive together as Redis starts to hang do not all wait for it: one asks, the rest are limited here', async () => {
    let asked = 0;
    const hung: RedisEval = { eval: () => (asked++, new Promise(() => {})) };
    const limiter = new RedisRateLimiter(hung, 100, 1, 'x', () => {}, 200);
    let firstDone = false;
    const first = limiter.take('c').finally(() => (firstDone = true));
    await new Promise((r) => setTimeout(r, 60)); // the first call is now slow beyond a fifth of the timeout
    const rest = await Promise.all(Array.from({ length: 50 }, () => limiter.take('c')));
    expect(firstDone).toBe(false); // the 50 were answered while the first still waited for Redis
    expect(rest.every((w) => w === 0)).toBe(true);
    expect(asked).toBe(1);
    expect(await first).toBe(0);
  });
});
