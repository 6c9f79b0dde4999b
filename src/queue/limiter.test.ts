import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisForTests } from '../testing/services.js';
import { direct } from '../store/outage.js';
import { RedisCallLimiter } from './limiter.js';
import { maxInWindow } from './testing/workers.js';

// The Redis limiter against a real Redis: two limiters on connections of their own stand for two workers.
const redis = await redisForTests();
afterAll(async () => {
  await redis?.drop();
});

describe.skipIf(!redis)('RedisCallLimiter: one budget for every worker', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const c = new Redis(redis!.url);
    connections.push(c);
    return c;
  };
  afterAll(() => {
    for (const c of connections) c.disconnect();
  });

  it('two workers, requests that leave late (cold starts, busy loops): no second sees more than the limit', async () => {
    const key = `${redis!.prefix}:rate:two-workers`;
    const workers = [new RedisCallLimiter(connect(), key, { requestsPerMinute: 1200 }), new RedisCallLimiter(connect(), key, { requestsPerMinute: 1200 })];
    const sends: number[] = [];
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    let calls = 0;
    // Each worker runs 6 calls at a time; each call's request leaves after 0–150 ms (the first of each worker after
    // 400 ms, a cold start), one call in ten never reports it (it counts when the call ends), answers take 20–200 ms.
    const lane = async (limiter: RedisCallLimiter, w: number, first: boolean) => {
      for (let k = 0; calls < 120; k++) {
        calls++;
        const permit = await limiter.acquire();
        const n = sends.length;
        const reported = (n + w) % 10 !== 0;
        await pause(first && k === 0 ? 400 : Math.random() * 150);
        if (reported) {
          sends.push(performance.now());
          permit.sent();
        }
        await pause(20 + Math.random() * 180);
        if (!reported) sends.push(performance.now());
        permit.done();
      }
    };
    await Promise.all(workers.flatMap((l, w) => Array.from({ length: 6 }, (_, lane_) => lane(l, w, lane_ === 0))));
    expect(sends.length).toBeGreaterThanOrEqual(120);
    // 1200 a minute: at most 20 requests leave in any one second, counted from the very first.
    expect(maxInWindow(sends)).toBeLessThanOrEqual(20);
  });

  it('a permit whose worker died (never reported) gives its place back after its TTL', async () => {
    const key = `${redis!.prefix}:rate:ttl`;
    const dead = new RedisCallLimiter(connect(), key, { requestsPerMinute: 60 }, direct, 500);
    const alive = new RedisCallLimiter(connect(), key, { requestsPerMinute: 60 }, direct, 500);
    await dead.acquire(); // never sent, never done: the worker is gone
    const t = performance.now();
    // Held for good, the place would never come back (the acquire would wait forever): bounded here at 20 s.
    const permit = await Promise.race([alive.acquire(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 20_000))]);
    expect(permit).toBeDefined();
    // One request a second: the place comes back after the TTL (500 ms), the permit after the spacing (1.1 s).
    expect(performance.now() - t).toBeGreaterThanOrEqual(1000);
    permit!.done();
  });

  it('the budget is in Redis: permits in flight on one worker hold the other back', async () => {
    const key = `${redis!.prefix}:rate:shared`;
    const a = new RedisCallLimiter(connect(), key, { requestsPerMinute: 120 }); // 2 a second
    const b = new RedisCallLimiter(connect(), key, { requestsPerMinute: 120 });
    const p1 = await a.acquire();
    const p2 = await b.acquire();
    // Both places are held by permits in flight: a third waits until one of them leaves, and a second after.
    const t = performance.now();
    const third = a.acquire();
    await new Promise((r) => setTimeout(r, 300));
    p1.sent();
    p2.sent();
    const p3 = await third;
    expect(performance.now() - t).toBeGreaterThanOrEqual(300 + 1000);
    p3.done();
  });
});
