/**
 * Provider rate limits (`rateLimit: { requestsPerMinute, tokensPerMinute }` on a system or a judge): calls
 * are spaced so that the budget holds, in this process (a local run) or across every worker of a run (the
 * same limiter kept in Redis, src/queue/limiter.ts). 429s from the provider are still retried with backoff
 * by callWithRetry; a limit only keeps them rare.
 *
 * The guarantee, from the first request on and across workers: no window of `windowMs` (one second, or 60 /
 * requestsPerMinute s below one request a second) sees more than `count` = ⌊requestsPerMinute / 60⌋ requests
 * leave (at least 1). It is kept on the moments requests really leave the process, not the moments calls were
 * let start: a call that is let start (a permit) counts as "in flight" until the transport reports its request
 * handed to the operating system (requestSentHook, src/providers/request-sent.ts), then as a send at that
 * moment; a call that ends without such a report counts as sent when it ended (the latest its request can have
 * left). A new permit is granted only while sends in the last window + permits in flight < count. So a cold
 * first request (connection, module loading), a busy event loop or a slow worker can delay a request, but not
 * crowd a window: whichever request is late still holds its place. (Granting on grant times alone, a first
 * request delayed by 300 ms arrived within 21 ms of two later ones: 11 in a second at a limit of 10.)
 *
 * The window kept is 10% longer than the provider's (HEADROOM), so requests that the way to the provider
 * delays by up to 100 ms more than later ones still fit; and permits are spaced windowMs × 1.1 / count apart
 * (GCRA, the generic cell rate algorithm), so they never come in bursts. A run gets about 90% of ⌊rpm / 60⌋
 * per second, never more.
 *
 * Tokens are known only once a call has answered: each call moves the token TAT ("theoretical arrival time")
 * on by tokens × 60 000 / tokensPerMinute ms, and no call starts while it lies ahead of now. Over any minute the
 * tokens spent exceed the budget by at most what the calls in flight use.
 */
import * as z from 'zod';
import { parseFieldPath, zodUsageError, type Locate } from '../core/issues.js';
import type { InputValue } from '../core/validator.js';
import type { ChatModel } from './chat-model.js';
import type { Generation, GenerateOptions, SystemUnderTest } from './types.js';
import { abortReason, sleep } from './retry.js';
import { decorateChatModel } from './decorate.js';
import { whenRequestSent } from './request-sent.js';

export const rateLimitSchema = z
  .strictObject({
    requestsPerMinute: z.number().positive().optional(),
    tokensPerMinute: z.number().positive().optional(),
    /** A budget shared by every run that names it (one API key used by several runs); default: this run's own. */
    key: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}$/, { error: 'expected a name of letters, digits, _ . -' })
      .optional(),
  })
  .refine((r) => r.requestsPerMinute !== undefined || r.tokensPerMinute !== undefined, { error: 'expected requestsPerMinute and/or tokensPerMinute' });

export type RateLimitConfig = z.output<typeof rateLimitSchema>;

/** Spaces the calls to one provider. */
export interface CallLimiter {
  /** Resolves when a call may start, with its permit; rejects (a ProviderError `aborted`, see sleep) if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<Permit>;
  /** After a call answered: the tokens it used (prompt + completion). */
  spend(tokens: number): Promise<void>;
}

/** One call's place in the budget. Both methods may be called in any order and more than once; the first counts. */
export interface Permit {
  /** Its request has just left this process. */
  sent(): void;
  /** The call is over; if its request was never reported sent, it counts as sent now. */
  done(): void;
}

/** Makes the limiter of one budget; `scope` names it within the run ("system", "verifier:polite"). */
export type LimiterFactory = (scope: string, config: RateLimitConfig) => CallLimiter;

/** The `rateLimit` of a `system:` or `judge:` value, if any; a UsageError naming the field when malformed. */
export function rateLimitOf(raw: unknown, where: { file?: string; locate?: Locate; path: string }): RateLimitConfig | undefined {
  if (raw === null || typeof raw !== 'object' || !('rateLimit' in raw)) return undefined;
  const r = rateLimitSchema.safeParse((raw as { rateLimit: unknown }).rateLimit, { reportInput: true });
  if (r.success) return r.data;
  throw zodUsageError(r.error, { file: where.file, locate: where.locate, prefix: [...parseFieldPath(where.path), 'rateLimit'], schema: rateLimitSchema });
}

/** The value without its `rateLimit` key (what the provider factories validate). */
export function withoutRateLimit(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('rateLimit' in raw)) return raw;
  const { rateLimit: _limit, ...rest } = raw as Record<string, unknown>;
  return rest;
}

/** The window the limiter keeps is this much longer than the provider's (see above). */
export const HEADROOM = 1.1;

/** How long a permit whose request has not been reported sent keeps its place (only a dead worker's permits last this long). */
export const PERMIT_TTL_MS = 60_000;

export interface Budget {
  /** Most requests leaving in any window of windowMs; 0: no request limit. */
  count: number;
  /** The provider's window (1000 ms, longer below one request a second) × HEADROOM. */
  windowMs: number;
  /** Permits are at least this far apart (windowMs / count). */
  spacingMs: number;
  /** ms of budget per token; 0 where there is no token limit. */
  tokenMs: number;
}

/** The budget a rateLimit config stands for (see the top of this file). */
export function budgetOf(c: RateLimitConfig): Budget {
  const tokenMs = c.tokensPerMinute ? 60_000 / c.tokensPerMinute : 0;
  if (!c.requestsPerMinute) return { count: 0, windowMs: 0, spacingMs: 0, tokenMs };
  const count = Math.max(1, Math.floor(c.requestsPerMinute / 60));
  const windowMs = Math.max(1000, 60_000 / c.requestsPerMinute) * HEADROOM;
  return { count, windowMs, spacingMs: windowMs / count, tokenMs };
}

/** The budget in this process (a local run; each process of its own). */
export class LocalCallLimiter implements CallLimiter {
  private readonly budget: Budget;
  private requestTat = 0;
  private tokenTat = 0;
  /** When the requests of the last window left, oldest first. */
  private readonly sends: number[] = [];
  private inFlight = 0;
  /** Resolved (and replaced) whenever a permit in flight is reported sent. */
  private change = deferred();

  constructor(
    config: RateLimitConfig,
    private now: () => number = () => performance.now(),
  ) {
    this.budget = budgetOf(config);
  }

  async acquire(signal?: AbortSignal): Promise<Permit> {
    const { count, windowMs, spacingMs } = this.budget;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const t = this.now();
      while (this.sends.length > 0 && this.sends[0] <= t - windowMs) this.sends.shift();
      const full = count > 0 && this.sends.length + this.inFlight >= count;
      // Every condition must hold at once: spacing, tokens, and room in the window (the oldest send leaving it).
      const wait = Math.max(this.requestTat - t, this.tokenTat - t, full && this.sends.length > 0 ? this.sends[0] + windowMs - t : 0, 0);
      if (!full && wait <= 0) {
        if (count === 0) return NO_PERMIT;
        this.requestTat = Math.max(this.requestTat, t) + spacingMs;
        this.inFlight++;
        return this.permit();
      }
      // All the room is held by permits in flight: when each leaves is not known until it is reported.
      if (full && this.sends.length === 0) await raceAbort(this.change.promise, signal);
      else await sleep(wait, signal);
    }
  }

  private permit(): Permit {
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      this.inFlight--;
      this.sends.push(this.now());
      this.change.resolve();
      this.change = deferred();
    };
    return { sent: count, done: count };
  }

  async spend(tokens: number): Promise<void> {
    if (this.budget.tokenMs && tokens > 0) this.tokenTat = Math.max(this.tokenTat, this.now()) + tokens * this.budget.tokenMs;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A permit of a budget without a request limit (tokens only): nothing to count. */
const NO_PERMIT: Permit = { sent: () => {}, done: () => {} };

function raceAbort(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** One in-process limiter per scope (the local run's factory). */
export function localLimiters(): LimiterFactory {
  const made = new Map<string, CallLimiter>();
  return (scope, config) => {
    const key = config.key ? `shared:${config.key}` : scope;
    let l = made.get(key);
    if (!l) made.set(key, (l = new LocalCallLimiter(config)));
    return l;
  };
}

/** Runs one call under a permit: its request counts from when the transport reports it sent (or from when the call ended). */
export async function underLimit<T>(limiter: CallLimiter, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  const permit = await limiter.acquire(signal);
  try {
    return await whenRequestSent(() => permit.sent(), call);
  } finally {
    permit.done();
  }
}

/** A chat model with its calls spaced by `limiter` (a ChatModel decorator): each call waits its turn and spends its tokens. */
export function limitModel(model: ChatModel, limiter: CallLimiter): ChatModel {
  return decorateChatModel(model, async (request, options) => {
    const r = await underLimit(limiter, options.signal, () => model.generate(request, options));
    if (r.usage) await limiter.spend(r.usage.promptTokens + r.usage.completionTokens);
    return r;
  });
}

/** The system with its calls spaced by `limiter`: every attempt (a retry too) waits its turn and spends its tokens. */
export function limitSystem(system: SystemUnderTest, limiter: CallLimiter): SystemUnderTest {
  return {
    id: system.id,
    async generate(input: InputValue, options: GenerateOptions): Promise<Generation> {
      const g = await underLimit(limiter, options.signal, () => system.generate(input, options));
      if (g.usage) await limiter.spend(g.usage.promptTokens + g.usage.completionTokens);
      return g;
    },
    ...(system.close ? { close: () => system.close!() } : {}),
  };
}
