import { AsyncLocalStorage } from 'node:async_hooks';
import { cacheKey, lookup, noteMiss, type CacheSettings } from './cache.js';

/**
 * The response cache for a model the user's own function calls through the AI SDK: what is deterministic given
 * its key — the request sent to the model — is kept, keyed by the model, the request (prompt, tools, settings)
 * and the sample index j, so changed code, a changed prompt or changed parameters make fresh calls while the M
 * samples of one input stay M draws. The run tells the function which sample it is computing (and where the
 * cache is) through an async context set around each call of a function system (function-system.ts); outside a
 * run, or with the cache off, the model is called as it is. Streams are not cached.
 */

/**
 * What assay needs of an AI SDK language model (LanguageModelV3): named structurally, so that assay/vitest's types
 * load nothing of the SDK (a project's strict type check would otherwise read @ai-sdk/provider's declarations).
 */
export interface GeneratingModel {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: object): PromiseLike<object>;
}

/** The parts of a generate result that are kept (LanguageModelV3GenerateResult's). */
interface GenerateResult {
  content: unknown[];
  finishReason: unknown;
  usage: unknown;
  warnings?: unknown[];
  providerMetadata?: unknown;
  response?: { id?: string; modelId?: string; timestamp?: Date };
}

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
function requestOf(params: object): unknown {
  const { abortSignal: _signal, headers: _headers, ...rest } = params as Record<string, unknown>;
  return rest;
}

type Stored = Omit<GenerateResult, 'response'> & { response?: { id?: string; modelId?: string; timestamp?: string } };

function revive(hit: Stored): GenerateResult {
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

export async function cachedGenerate<R extends object>(model: GeneratingModel, params: object, doGenerate: () => PromiseLike<R>): Promise<R> {
  const ctx = store.getStore();
  if (!ctx?.cache) return doGenerate();
  const request = { v: 1, aiSdk: model.provider, model: model.modelId, request: requestOf(params), j: ctx.sample };
  const base = cacheKey(request);
  const n = ctx.seen.get(base) ?? 0;
  ctx.seen.set(base, n + 1);
  const key = n === 0 ? base : cacheKey({ ...request, repeat: n });
  const hit = (await lookup(ctx.cache, key)) as Stored | undefined;
  if (hit && Array.isArray(hit.content)) return revive(hit) as unknown as R;
  noteMiss(ctx.cache);
  const result = await doGenerate();
  const r = result as unknown as GenerateResult;
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
  return result;
}

/** The model with the cache in front of its `doGenerate`, without the `ai` package: `withAssayCache(openai('gpt-4o-mini'))`. */
export function withAssayCache<M extends GeneratingModel>(model: M): M {
  // The model itself behind a layer of its own: its getters (provider, modelId, supportedUrls) read through, only
  // doGenerate is the cache's; doStream and the rest are the model's.
  const wrapped = Object.create(model) as M;
  Object.defineProperty(wrapped, 'doGenerate', {
    value: (params: object) => cachedGenerate(model, params, () => model.doGenerate(params)),
    enumerable: false,
  });
  return wrapped;
}
