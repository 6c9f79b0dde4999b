import type { Trajectory } from '../core/trajectory.js';
import { createHash } from 'node:crypto';
import type { InputValue } from '../core/validator.js';
import type { ResponseCache } from '../store/types.js';
import type { ChatCallOptions, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import type { GenerateOptions, Generation, SystemUnderTest } from './types.js';
import { decorateChatModel } from './decorate.js';

/**
 * The response cache (`--cache`, `cache: true`): answers kept in the run's store, keyed by provider, model,
 * endpoint, request and sample index j, so a second identical run makes no calls and rebuilds the same
 * tensor while the M samples of one input stay M independent draws (sample j is cached apart from j′).
 * Only answers are kept, never errors. A cached answer is marked `cached` and costs nothing (no tokens,
 * no USD): usage and cost count calls actually made. A call with a nonce (a judge's) has it kept with its
 * answer, and a hit reports it: the answer stays bound to the call it was given to, not to the one reading it.
 */
export interface CacheSettings {
  store: ResponseCache;
  /** Counts answers served from the cache (and when they were stored) and calls made past it: what a run says it replayed. */
  ledger?: CacheLedger;
  /** Entries older than this are ignored and replaced; default: no limit. */
  ttlMs?: number;
  /** Clock for TTL checks (tests). */
  now?: () => number;
}

/** Canonical JSON: object keys sorted, so equal requests give equal keys whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function cacheKey(parts: unknown): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** What a run's caches did: answers served (with the oldest and newest time they were stored) and calls made past them. */
export interface CacheLedger {
  hits: number;
  misses: number;
  /** ISO 8601 times the served answers were stored. */
  oldest?: string;
  newest?: string;
}

export function newCacheLedger(): CacheLedger {
  return { hits: 0, misses: 0 };
}

/** Counts a call made past the cache (its answer is stored now). */
export function noteMiss(s: CacheSettings): void {
  if (s.ledger) s.ledger.misses++;
}

/**
 * The cached value under `key`, or undefined (absent, older than the TTL, damaged). A hit is counted in the
 * ledger with the time it was stored; a miss is counted by the caller once it calls (noteMiss).
 */
export async function lookup(s: CacheSettings, key: string): Promise<unknown> {
  const hit = await s.store.get(key);
  if (!hit) return undefined;
  if (s.ttlMs !== undefined && (s.now ?? Date.now)() - Date.parse(hit.storedAt) > s.ttlMs) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(hit.value) as unknown;
  } catch {
    return undefined; // a damaged entry is a miss; the next answer replaces it
  }
  const l = s.ledger;
  if (l) {
    l.hits++;
    if (l.oldest === undefined || hit.storedAt < l.oldest) l.oldest = hit.storedAt;
    if (l.newest === undefined || hit.storedAt > l.newest) l.newest = hit.storedAt;
  }
  return value;
}

/** A ChatModel whose answers are served from, and saved to, the cache. */
export function withResponseCache(model: ChatModel, settings: CacheSettings): ChatModel {
  return decorateChatModel(model, async (request: ChatRequest, options: ChatCallOptions): Promise<ChatResponse> => {
    const key = cacheKey({
      v: 1,
      provider: model.provider,
      model: model.modelId,
      baseURL: model.baseURL ?? null,
      request: options.cacheKey ?? request,
      j: options.sample ?? 0,
    });
    const hit = (await lookup(settings, key)) as Pick<ChatResponse, 'text' | 'toolCalls' | 'finishReason' | 'nonce'> | undefined;
    if (hit && typeof hit.text === 'string') {
      return {
        text: hit.text,
        ...(hit.toolCalls ? { toolCalls: hit.toolCalls } : {}),
        ...(hit.finishReason ? { finishReason: hit.finishReason } : {}),
        ...(typeof hit.nonce === 'string' ? { nonce: hit.nonce } : {}),
        latencyMs: 0,
        costUsd: 0,
        cached: true,
      };
    }
    noteMiss(settings);
    const r = await model.generate(request, options);
    await settings.store.set(key, JSON.stringify({ text: r.text, toolCalls: r.toolCalls, finishReason: r.finishReason, nonce: options.nonce }));
    return r;
  });
}

/**
 * A system under test that is not a chat model (http, command) behind the same cache: keyed by its
 * resolved config (`identity`), the input and sample index j.
 */
export function withSystemCache(system: SystemUnderTest, identity: unknown, settings: CacheSettings): SystemUnderTest {
  return {
    id: system.id,
    async generate(input: InputValue, options: GenerateOptions): Promise<Generation> {
      const key = cacheKey({ v: 1, system: identity, input, j: options.sample });
      const hit = (await lookup(settings, key)) as { text?: unknown; trajectory?: Trajectory } | undefined;
      // An agent's answer comes back with its steps: the checks that read them see what the first call did.
      if (hit && typeof hit.text === 'string')
        return { text: hit.text, ...(hit.trajectory ? { trajectory: hit.trajectory } : {}), latencyMs: 0, costUsd: 0, cached: true };
      noteMiss(settings);
      const g = await system.generate(input, options);
      await settings.store.set(key, JSON.stringify({ text: g.text, ...(g.trajectory ? { trajectory: g.trajectory } : {}) }));
      return g;
    },
    ...(system.close ? { close: () => system.close!() } : {}),
  };
}
