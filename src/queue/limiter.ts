import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { direct, type Ride } from '../store/outage.js';
import { budgetOf, PERMIT_TTL_MS, type Budget, type CallLimiter, type LimiterFactory, type Permit, type RateLimitConfig } from '../providers/rate-limit.js';
import { abortReason, sleep } from '../providers/retry.js';

/**
 * The limiter of providers/rate-limit.ts kept in Redis, so that every worker of a run (on any machine) draws on one
 * budget: the same rules (sends in the last window + permits in flight < count, permits spaced, the token TAT).
 * Each step is one Lua script, atomic on the server and timed by the server's clock (TIME), so the workers'
 * clocks do not matter. Times are whole microseconds, formatted as integers (Lua's own number formatting
 * would round them).
 *
 * Keys, under the budget's key: `:sent` (sorted set: permit → when its request left), `:flight` (sorted set:
 * permit → when it stops holding its place unless reported sent: PERMIT_TTL_MS, so a dead worker's permits
 * free their place), `:req` (the permits' spacing TAT), `:tok` (the token TAT).
 */

// KEYS: sent, flight, req, tok. ARGV: count, window µs, spacing µs, permit id, permit TTL µs.
// Returns µs to wait (-1: the room is held by permits in flight, ask again shortly), 0 when the permit is granted.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count, window, spacing = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tok = tonumber(redis.call('GET', KEYS[4]) or '0')
local wait = math.max(tok - now, 0)
if count > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
  wait = math.max(wait, tonumber(redis.call('GET', KEYS[3]) or '0') - now)
  local sent = redis.call('ZCARD', KEYS[1])
  if sent + redis.call('ZCARD', KEYS[2]) >= count then
    if sent == 0 then return -1 end
    local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
    wait = math.max(wait, oldest + window - now, 1)
  end
end
if wait > 0 then return math.ceil(wait) end
if count > 0 then
  local tat = math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), now) + spacing
  redis.call('SET', KEYS[3], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 60000)
  redis.call('ZADD', KEYS[2], string.format('%.0f', now + tonumber(ARGV[5])), ARGV[4])
  redis.call('PEXPIRE', KEYS[2], math.ceil(tonumber(ARGV[5]) / 1000) + 60000)
end
return 0`;

// KEYS: sent, flight. ARGV: permit id, window µs. The permit's request left now (or its call ended).
const SENT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) / 1000) + 60000)
return 0`;

// KEYS: token TAT. ARGV: µs to move it on (tokens × per-token interval).
const SPEND = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now) + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 60000)
return 0`;

/** How soon to ask again while every place is held by permits in flight (their requests leave within ms). */
const IN_FLIGHT_POLL_MS = 10;

export class RedisCallLimiter implements CallLimiter {
  private readonly budget: Budget;
  private readonly keys: string[];
  /** Permit ids: this limiter's random prefix and a counter, unique across workers. */
  private readonly idPrefix = randomBytes(6).toString('hex');
  private nextId = 0;

  constructor(
    private redis: Redis,
    /** Key of this budget, without the :sent / :flight / :req / :tok suffixes. */
    key: string,
    config: RateLimitConfig,
    /** How each step reaches Redis: riding out a lost connection on a worker (outage.ts). */
    private ride: Ride = direct,
    /** How long an unreported permit holds its place (tests shorten it). */
    private readonly permitTtlMs = PERMIT_TTL_MS,
  ) {
    this.budget = budgetOf(config);
    this.keys = [`${key}:sent`, `${key}:flight`, `${key}:req`, `${key}:tok`];
  }

  async acquire(signal?: AbortSignal): Promise<Permit> {
    const { count, windowMs, spacingMs } = this.budget;
    const id = `${this.idPrefix}:${++this.nextId}`;
    const us = (ms: number) => Math.round(ms * 1000);
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const waitUs = Number(await this.ride(() => this.redis.eval(ACQUIRE, 4, ...this.keys, count, us(windowMs), us(spacingMs), id, us(this.permitTtlMs))));
      if (waitUs === 0) return count > 0 ? this.permit(id) : { sent: () => {}, done: () => {} };
      // A little jitter, so that the workers waiting for the same moment do not all ask at once.
      const waitMs = waitUs < 0 ? IN_FLIGHT_POLL_MS : waitUs / 1000;
      await sleep(waitMs + Math.random() * Math.min(5, spacingMs / 4), signal);
    }
  }

  private permit(id: string): Permit {
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      // If Redis does not take it (even after riding out an outage), the permit keeps its place until its TTL:
      // slower, never over the limit.
      this.ride(() => this.redis.eval(SENT, 2, this.keys[0], this.keys[1], id, Math.round(this.budget.windowMs * 1000))).catch(() => undefined);
    };
    return { sent: count, done: count };
  }

  async spend(tokens: number): Promise<void> {
    if (this.budget.tokenMs > 0 && tokens > 0) await this.ride(() => this.redis.eval(SPEND, 1, this.keys[3], Math.round(tokens * this.budget.tokenMs * 1000)));
  }
}

/** The limiters of one queued run: `<prefix>:assay:rate:<runId>:<scope>`, or a budget named by `key` shared across runs. */
export function redisLimiters(redis: Redis, prefix: string, runId: string, ride: Ride = direct): LimiterFactory {
  return (scope, config) => new RedisCallLimiter(redis, `${prefix}:assay:rate:${config.key ? `shared:${config.key}` : `${runId}:${scope}`}`, config, ride);
}
