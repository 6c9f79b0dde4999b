import { ArgumentError } from '../errors.js';
/** Limits of the HTTP service; every one has a safe default so `createApp({})` is already defended. */
export interface ServerLimits {
  /** Largest accepted request body in bytes (413 above). */
  maxBodyBytes: number;
  /** Per-request time limit for /analyze in ms (504 when exceeded). */
  requestTimeoutMs: number;
  /** Token bucket per client: burst capacity. */
  rateBurst: number;
  /** Token bucket per client: sustained requests per second. */
  ratePerSecond: number;
  /** Analyses running at once; more get 503 with Retry-After instead of queueing without bound. */
  maxInFlight: number;
  /** Largest OTLP trace export (POST /v1/traces) in bytes, compressed and once decompressed (413 above). */
  maxTraceBodyBytes: number;
  /** Trace exports read and stored at once; more get 429 with Retry-After (backpressure when the store falls behind). */
  maxTraceRequests: number;
}

export const defaultLimits: ServerLimits = {
  maxBodyBytes: 256 * 1024,
  requestTimeoutMs: 30_000,
  rateBurst: 30,
  ratePerSecond: 10,
  maxInFlight: 32,
  maxTraceBodyBytes: 4 * 1024 * 1024,
  maxTraceRequests: 8,
};

export function resolveLimits(partial: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...defaultLimits, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new ArgumentError(`server limit ${key} must be a positive number, got ${String(value)}`, { key: key });
    }
  }
  return limits;
}

/** What /analyze asks before each request: 0 when allowed, else the seconds to wait (429 with Retry-After). */
export interface RequestLimiter {
  take(client: string): number | Promise<number>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Per-client token bucket. A client may send `burst` requests at once, then `perSecond` sustained.
 * Idle buckets are dropped so a flood of distinct clients cannot grow memory without bound.
 */
export class RateLimiter implements RequestLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(
    readonly burst: number,
    readonly perSecond: number,
    private now: () => number = () => performance.now(),
    private maxClients = 10_000,
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait before one is available. */
  take(client: string): number {
    const t = this.now();
    let b = this.buckets.get(client);
    if (!b) {
      if (this.buckets.size >= this.maxClients) this.sweep(t);
      b = { tokens: this.burst, updatedMs: t };
      this.buckets.set(client, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((t - b.updatedMs) / 1000) * this.perSecond);
      b.updatedMs = t;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / this.perSecond;
  }

  private sweep(t: number): void {
    const fullAfterMs = (this.burst / this.perSecond) * 1000;
    for (const [k, b] of this.buckets) if (t - b.updatedMs >= fullAfterMs) this.buckets.delete(k);
    // Still full of active clients: forget the oldest half rather than refuse new ones forever.
    if (this.buckets.size >= this.maxClients) {
      let n = Math.floor(this.buckets.size / 2);
      for (const k of this.buckets.keys()) {
        if (n-- <= 0) break;
        this.buckets.delete(k);
      }
    }
  }
}

/** The minimal Redis surface the shared limiter needs (an ioredis client fits). */
export interface RedisEval {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

// The same token bucket, kept in a Redis hash per client and timed by the server's clock (TIME), so that
// every replica draws on one bucket. KEYS: the bucket. ARGV: burst, per second. Returns the seconds to wait.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local burst, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens, ts = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) / 1000 * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ts', string.format('%.3f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return string.format('%.6f', wait)`;

/** How long a request waits for the shared bucket before this replica decides on its own (ms). */
export const REDIS_LIMIT_TIMEOUT_MS = 500;
/** After Redis failed to answer, requests are limited in this process for this long before Redis is asked again (ms). */
const REDIS_RETRY_MS = 1000;

/**
 * `assay serve --redis`: replicas share each client's budget through Redis. If Redis cannot answer (refused,
 * or silent for `timeoutMs`: a hung server, a lost network), this replica falls back to its own in-process
 * bucket (still limited, per replica) and says so once in its log, rather than failing or holding requests;
 * it asks Redis again a second later, so an outage costs at most one timeout a second. While a call to Redis
 * has gone unanswered for a fifth of the timeout, or while one request probes a Redis that failed, the
 * others do not queue behind it: they are limited here at once.
 */
export class RedisRateLimiter implements RequestLimiter {
  private fallback: RateLimiter;
  private warned = false;
  private localUntil = 0;
  /** A call to Redis has gone unanswered for a fifth of the timeout: Redis looks stuck. */
  private slow = false;
  /** After a failure, the one request asking Redis whether it is back. */
  private probing = false;

  constructor(
    private redis: RedisEval,
    readonly burst: number,
    readonly perSecond: number,
    private prefix = 'assay',
    private onFallback: (err: Error) => void = () => {},
    private timeoutMs = REDIS_LIMIT_TIMEOUT_MS,
  ) {
    this.fallback = new RateLimiter(burst, perSecond);
  }

  async take(client: string): Promise<number> {
    // Down, stuck, or being probed after a failure: limited here at once rather than queued behind Redis.
    if (performance.now() < this.localUntil || this.slow || (this.warned && this.probing)) return this.fallback.take(client);
    const probe = this.warned;
    if (probe) this.probing = true;
    let timer: NodeJS.Timeout | undefined;
    const slowTimer = setTimeout(() => (this.slow = true), this.timeoutMs / 5);
    try {
      const answer = this.redis.eval(TAKE, 1, `${this.prefix}:assay:analyze-rate:${client}`, this.burst, this.perSecond);
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      });
      answer.catch(() => {}); // answered (or failed) after the timeout: nobody waits for it any more
      const wait = Number(await Promise.race([answer, silent]));
      this.warned = false;
      this.slow = false;
      return wait;
    } catch (err) {
      if (!this.warned) this.onFallback(err as Error);
      this.warned = true;
      this.slow = false; // the local window below now covers the outage
      this.localUntil = performance.now() + REDIS_RETRY_MS;
      return this.fallback.take(client);
    } finally {
      clearTimeout(timer);
      clearTimeout(slowTimer);
      if (probe) this.probing = false;
    }
  }
}
