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
}

export const defaultLimits: ServerLimits = {
  maxBodyBytes: 256 * 1024,
  requestTimeoutMs: 30_000,
  rateBurst: 30,
  ratePerSecond: 10,
  maxInFlight: 32,
};

export function resolveLimits(partial: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...defaultLimits, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`server limit ${key} must be a positive number, got ${String(value)}`);
    }
  }
  return limits;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Per-client token bucket. A client may send `burst` requests at once, then `perSecond` sustained.
 * Idle buckets are dropped so a flood of distinct clients cannot grow memory without bound.
 */
export class RateLimiter {
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
