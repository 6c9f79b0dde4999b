/**
 * Provider rate limits (`rateLimit: { requestsPerMinute, tokensPerMinute }` on a system or a judge): calls
 * are spaced so that the budget holds, in this process (a local run) or across every worker of a run (the
 * same limiter kept in Redis, src/queue/limiter.ts). 429s from the provider are still retried with backoff
 * by callWithRetry; a limit only keeps them rare.
 *
 * The algorithm is GCRA (the generic cell rate algorithm): each budget keeps a "theoretical arrival time"
 * (TAT). Requests are spaced 60 000 / requestsPerMinute ms apart and 10% more (HEADROOM), never in bursts,
 * so that no one-second window at the provider sees more than requestsPerMinute / 60 of them even when the
 * way there delays one request by up to 100 ms more than a later one (a cold connection, a busy worker): a
 * run gets about 90% of its request budget, and never more than all of it. Tokens are known only once a call has answered: each call
 * moves the token TAT on by tokens × 60 000 / tokensPerMinute ms, and no call starts while it lies ahead of
 * now. Over any minute the tokens spent exceed the budget by at most what the calls in flight use.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { InputValue } from '../core/validator.js';
import type { ChatModel } from '../providers/chat-model.js';
import type { Generation, GenerateOptions, SystemUnderTest } from '../providers/types.js';
import { sleep } from './retry.js';
import { decorateChatModel } from '../providers/decorate.js';

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
  /** Resolves when a call may start; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** After a call answered: the tokens it used (prompt + completion). */
  spend(tokens: number): Promise<void>;
}

/** Makes the limiter of one budget; `scope` names it within the run ("system", "verifier:polite"). */
export type LimiterFactory = (scope: string, config: RateLimitConfig) => CallLimiter;

/** The `rateLimit` of a `system:` or `judge:` value, if any; a UsageError naming the field when malformed. */
export function rateLimitOf(raw: unknown, where: { file?: string; path: string }): RateLimitConfig | undefined {
  if (raw === null || typeof raw !== 'object' || !('rateLimit' in raw)) return undefined;
  const r = rateLimitSchema.safeParse((raw as { rateLimit: unknown }).rateLimit);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = [where.path, 'rateLimit', ...issue.path.map(String)].join('.');
  throw new UsageError(`${where.file ?? 'config'}: ${path}: ${issue.message.replace(/^Invalid input: /, '')}`, { file: where.file, path });
}

/** The value without its `rateLimit` key (what the provider factories validate). */
export function withoutRateLimit(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('rateLimit' in raw)) return raw;
  const { rateLimit: _limit, ...rest } = raw as Record<string, unknown>;
  return rest;
}

/** Requests are spaced this much wider than the budget (see above). */
export const HEADROOM = 1.1;

/** ms between requests, and ms of budget per token; 0 where there is no limit. */
export function intervals(c: RateLimitConfig): { requestMs: number; tokenMs: number } {
  return { requestMs: c.requestsPerMinute ? (60_000 / c.requestsPerMinute) * HEADROOM : 0, tokenMs: c.tokensPerMinute ? 60_000 / c.tokensPerMinute : 0 };
}

/** GCRA in this process (a local run; each process of its own). */
export class LocalCallLimiter implements CallLimiter {
  private requestTat = 0;
  private tokenTat = 0;
  private readonly requestMs: number;
  private readonly tokenMs: number;

  constructor(
    config: RateLimitConfig,
    private now: () => number = () => performance.now(),
  ) {
    ({ requestMs: this.requestMs, tokenMs: this.tokenMs } = intervals(config));
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const t = this.now();
      const wait = Math.max(this.requestTat - t, this.tokenTat - t, 0);
      if (wait <= 0) {
        if (this.requestMs) this.requestTat = Math.max(this.requestTat, t) + this.requestMs;
        return;
      }
      await sleep(wait, signal);
    }
  }

  async spend(tokens: number): Promise<void> {
    if (this.tokenMs && tokens > 0) this.tokenTat = Math.max(this.tokenTat, this.now()) + tokens * this.tokenMs;
  }
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

/** A chat model with its calls spaced by `limiter` (a ChatModel decorator): each call waits its turn and spends its tokens. */
export function limitModel(model: ChatModel, limiter: CallLimiter): ChatModel {
  return decorateChatModel(model, async (request, options) => {
    await limiter.acquire(options.signal);
    const r = await model.generate(request, options);
    if (r.usage) await limiter.spend(r.usage.promptTokens + r.usage.completionTokens);
    return r;
  });
}

/** The system with its calls spaced by `limiter`: every attempt (a retry too) waits its turn and spends its tokens. */
export function limitSystem(system: SystemUnderTest, limiter: CallLimiter): SystemUnderTest {
  return {
    id: system.id,
    async generate(input: InputValue, options: GenerateOptions): Promise<Generation> {
      await limiter.acquire(options.signal);
      const g = await system.generate(input, options);
      if (g.usage) await limiter.spend(g.usage.promptTokens + g.usage.completionTokens);
      return g;
    },
    ...(system.close ? { close: () => system.close!() } : {}),
  };
}
