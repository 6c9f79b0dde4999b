import type { Redis } from 'ioredis';
import { direct, type Ride } from '../outage.js';
import { intervals, type CallLimiter, type LimiterFactory, type RateLimitConfig } from '../run/rate-limit.js';
import { sleep } from '../run/retry.js';

/**
 * The GCRA limiter of run/rate-limit.ts kept in Redis, so that every worker of a run (on any machine) draws
 * on one budget. Each step is one Lua script, atomic on the server and timed by the server's clock (TIME),
 * so the workers' clocks do not matter. Times are whole microseconds, formatted as integers (Lua's own
 * number formatting would round them).
 */

// KEYS: request TAT, token TAT. ARGV: request interval (µs). Returns µs to wait, 0 when the call may start.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local req = tonumber(redis.call('GET', KEYS[1]) or '0')
local tok = tonumber(redis.call('GET', KEYS[2]) or '0')
local wait = math.max(req - now, tok - now, 0)
if wait > 0 then return math.ceil(wait) end
local step = tonumber(ARGV[1])
if step > 0 then
  local tat = math.max(req, now) + step
  redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 60000)
end
return 0`;

// KEYS: token TAT. ARGV: µs to move it on (tokens × per-token interval).
const SPEND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now) + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 60000)
return 0`;

export class RedisCallLimiter implements CallLimiter {
  private readonly requestUs: number;
  private readonly tokenUs: number;

  constructor(
    private redis: Redis,
    /** Key of this budget, without the :req / :tok suffix. */
    private key: string,
    config: RateLimitConfig,
    /** How each step reaches Redis: riding out a lost connection on a worker (outage.ts). */
    private ride: Ride = direct,
  ) {
    const { requestMs, tokenMs } = intervals(config);
    this.requestUs = Math.round(requestMs * 1000);
    this.tokenUs = tokenMs * 1000;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const waitUs = Number(await this.ride(() => this.redis.eval(ACQUIRE, 2, `${this.key}:req`, `${this.key}:tok`, this.requestUs)));
      if (waitUs <= 0) return;
      // A little jitter, so that the workers waiting for the same moment do not all ask at once.
      await sleep(waitUs / 1000 + Math.random() * Math.min(5, this.requestUs / 4000), signal);
    }
  }

  async spend(tokens: number): Promise<void> {
    if (this.tokenUs > 0 && tokens > 0) await this.ride(() => this.redis.eval(SPEND, 1, `${this.key}:tok`, Math.round(tokens * this.tokenUs)));
  }
}

/** The limiters of one queued run: `<prefix>:assay:rate:<runId>:<scope>`, or a budget named by `key` shared across runs. */
export function redisLimiters(redis: Redis, prefix: string, runId: string, ride: Ride = direct): LimiterFactory {
  return (scope, config) => new RedisCallLimiter(redis, `${prefix}:assay:rate:${config.key ? `shared:${config.key}` : `${runId}:${scope}`}`, config, ride);
}
