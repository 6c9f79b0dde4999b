import { AsyncLocalStorage } from 'node:async_hooks';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { cacheKey, lookup, noteMiss, type CacheSettings } from './cache.js';

/**
 * The response cache for a model the user's own function calls through the AI SDK: what is deterministic given
 * its key — the request sent to the model — is kept, keyed by the model, the request (prompt, tools, settings)
 * and the sample index j, so changed code, a changed prompt or changed parameters make fresh calls while the M
 * samples of one input stay M draws. The run tells the function which sample it is computing (and where the
 * cache is) through an async context set around each call of a function system (function-system.ts); outside a
 * run, or with the cache off, the model is called as it is. Streams are not cached.
 */

/** What a function system's call carries for the models it calls: its sample j and the run's cache. */
export interface CallContext {
  sample: number;
  inputIndex: number;
  cache?: CacheSettings;
  /** Identical requests made so far in this call: the n-th repeat gets its own entry (repeats are never collapsed). */
  seen: Map<string, number>;
}

// One context for every copy of this module (the package a test imports and the one the runner loaded).
const KEY = Symbol.for('assay.callContext');
const store = ((globalThis as Record<symbol, unknown>)[KEY] ??= new AsyncLocalStorage<CallContext>()) as AsyncLocalStorage<CallContext>;

/** Runs `fn` as the call (i, j) of a run: models wrapped with the cache inside it read j and the cache from here. */
export function runInCallContext<T>(ctx: Omit<CallContext, 'seen'>, fn: () => T): T {
  return store.run({ ...ctx, seen: new Map() }, fn);
}

/** The request as the key reads it: the call's options without what does not change the answer (signal, headers). */
function requestOf(params: LanguageModelV3CallOptions): unknown {
  const { abortSignal: _signal, headers: _headers, ...rest } = params;
  return rest;
}

type Stored = Pick<LanguageModelV3GenerateResult, 'content' | 'finishReason' | 'usage' | 'providerMetadata' | 'warnings'> & {
  response?: { id?: string; modelId?: string; timestamp?: string };
};

function revive(hit: Stored): LanguageModelV3GenerateResult {
  return {
    content: hit.content,
    finishReason: hit.finishReason,
    usage: hit.usage,
    warnings: hit.warnings ?? [],
    ...(hit.providerMetadata ? { providerMetadata: hit.providerMetadata } : {}),
    response: {
      ...(hit.response?.id !== undefined ? { id: hit.response.id } : {}),
      ...(hit.response?.modelId !== undefined ? { modelId: hit.response.modelId } : {}),
      ...(hit.response?.timestamp !== undefined ? { timestamp: new Date(hit.response.timestamp) } : {}),
    },
  };
}

async function cachedGenerate(model: LanguageModelV3, params: LanguageModelV3CallOptions, doGenerate: () => PromiseLike<LanguageModelV3GenerateResult>) {
  const ctx = store.getStore();
  if (!ctx?.cache) return doGenerate();
  const request = { v: 1, aiSdk: model.provider, model: model.modelId, request: requestOf(params), j: ctx.sample };
  const base = cacheKey(request);
  const n = ctx.seen.get(base) ?? 0;
  ctx.seen.set(base, n + 1);
  const key = n === 0 ? base : cacheKey({ ...request, repeat: n });
  const hit = (await lookup(ctx.cache, key)) as Stored | undefined;
  if (hit && Array.isArray(hit.content)) return revive(hit);
  noteMiss(ctx.cache);
  const r = await doGenerate();
  const stored: Stored = {
    content: r.content,
    finishReason: r.finishReason,
    usage: r.usage,
    warnings: r.warnings,
    ...(r.providerMetadata ? { providerMetadata: r.providerMetadata } : {}),
    response: {
      ...(r.response?.id !== undefined ? { id: r.response.id } : {}),
      ...(r.response?.modelId !== undefined ? { modelId: r.response.modelId } : {}),
      ...(r.response?.timestamp !== undefined ? { timestamp: r.response.timestamp.toISOString() } : {}),
    },
  };
  await ctx.cache.store.set(key, JSON.stringify(stored));
  return r;
}

/** The cache as an AI SDK language-model middleware: `wrapLanguageModel({ model, middleware: assayCache() })`. */
export function assayCache(): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ doGenerate, params, model }) => cachedGenerate(model, params, doGenerate),
  };
}

/** The model with the cache in front of its `doGenerate`, without the `ai` package: `withAssayCache(openai('gpt-4o-mini'))`. */
export function withAssayCache(model: LanguageModelV3): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    get provider() {
      return model.provider;
    },
    get modelId() {
      return model.modelId;
    },
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (params) => cachedGenerate(model, params, () => model.doGenerate(params)),
    doStream: (params) => model.doStream(params),
  };
}
