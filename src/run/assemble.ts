import type { Experiment } from '../config/load.js';
import type { DecisionParameters } from '../core/decision.js';
import type { InputValue } from '../core/validator.js';
import type { CacheLedger, CacheSettings } from '../providers/cache.js';
import { priceTable } from '../providers/prices.js';
import { limitSystem, localLimiters, rateLimitOf, type LimiterFactory } from '../providers/rate-limit.js';
import type { SystemUnderTest } from '../providers/types.js';
import type { ResponseCache } from '../store/types.js';
import { compileSchema } from '../validators/builtin.js';
import { maxCostRule } from './cost.js';
import { DEFAULT_MAX_ERRORS, FailFastRule } from './fail-fast.js';
import type { RunPlan } from './runner.js';
import { SequentialStopRule } from './sequential.js';
import type { StopRule } from './stop.js';

/**
 * The one place a loaded experiment becomes a run: `assay run`, `assay run --queue` (the coordinator and every
 * worker), `assay/vitest` and the library all call `assembleRun`, so a config feature (rate limits, prices, the
 * cache, judges, stop rules) is wired once and means the same everywhere. Their differences are the options.
 */

export interface AssembleOptions {
  /**
   * The response cache (a store's `cache`). Used when the experiment's `cache:` turns it on, or `useCache`.
   * May be reached lazily: nothing is read from it until a model is called.
   */
  cache?: ResponseCache;
  /** Over the experiment's `cache:`: true or false turns the cache on or off; `ttlMs` sets its TTL. */
  useCache?: boolean;
  cacheTtlMs?: number;
  /** Counts what the cache served and the calls made past it (the run's own; assay/vitest says it in its messages). */
  cacheLedger?: CacheLedger;
  /** Where rate limits are kept (system and judges): this process's by default, Redis for a queued run's workers. */
  limiters?: LimiterFactory;
  /** Environment for API keys and `${VAR}`; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * The system under test, instead of building the config's `system:` (assay/vitest's function systems). It is
   * still rate limited by the config's `system.rateLimit`; caching it is the caller's business.
   */
  system?: SystemUnderTest;
  /** Inputs the system is built for (a replay checks its recording against them); default the experiment's. */
  inputs?: InputValue[];
  /** The parameters the stop rules decide by: a resumed run's stored ones; default the experiment's. */
  decision?: DecisionParameters;
  /** Stop once the run has cost this much (USD); default the experiment's `maxCostUsd`. */
  maxCostUsd?: number;
  /** Samples in a row failing the same way that stop the run (fail fast); 0 never. Default 5. */
  maxErrors?: number;
  /** The per-call limit in ms (the runner's `timeoutMs`) over the experiment's; stored with the run's config. */
  timeoutMs?: number;
  /** Where a model's notes on its answers go (a setting it ignored), each once. */
  warn?: (message: string) => void;
}

/** Everything a run needs, ready for `runExperiment({ ...assembled, store })`. */
export interface AssembledRun {
  /** The experiment with its K columns: validators, then verifiers (each with its judge). */
  experiment: RunPlan & Experiment;
  /** Rate limited, priced and (when the cache is on) cached. */
  system: SystemUnderTest;
  /** Sequential stopping, the cost budget and fail fast, as the experiment and options ask. */
  stopRules: StopRule[];
  /** The cache settings the models were built with (undefined: off). */
  cache: CacheSettings | undefined;
  /** Closes the system and frees the experiment's sandbox and worker threads. Safe to call twice. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The experiment's per-call limit replaced, in its stored config too (what the run used is what it says). */
function withTimeout(x: Experiment, timeoutMs: number | undefined): Partial<Experiment> {
  if (timeoutMs === undefined) return {};
  const s = x.serialisable;
  return {
    timeoutMs,
    ...(s !== null && typeof s === 'object' && !Array.isArray(s) ? { serialisable: { ...(s as Record<string, unknown>), timeoutMs } } : {}),
  };
}

/** The stop rules a run's decision and budget ask for. */
export function stopRulesOf(decision: DecisionParameters, o: { maxCostUsd?: number; maxErrors?: number }): StopRule[] {
  const columns = decision.rules.map((r) => ({ minSuccess: r.minSuccess, ...(r.expect !== undefined ? { expect: r.expect } : {}) }));
  const maxErrors = o.maxErrors ?? DEFAULT_MAX_ERRORS;
  return [
    ...(decision.stopping === 'sequential' ? [new SequentialStopRule(columns, decision.confidence)] : []),
    ...(o.maxCostUsd !== undefined ? [maxCostRule(o.maxCostUsd)] : []),
    ...(maxErrors > 0 ? [new FailFastRule(maxErrors)] : []),
  ];
}

/**
 * Makes a loaded experiment runnable: its system (built from `system:` or given), rate limited by
 * `system.rateLimit`; its verifiers as tensor columns with their judges (each limited by its own `rateLimit`);
 * both priced by `prices:` and cached by `cache:`; its stop rules. A bad system or judge fails here, before
 * anything is stored. The experiment is the caller's: `dispose()` frees it too.
 */
export async function assembleRun(experiment: Experiment, options: AssembleOptions = {}): Promise<AssembledRun> {
  const x = experiment;
  const limiters = options.limiters ?? localLimiters();
  const ttlMs = options.cacheTtlMs ?? x.cache?.ttlMs;
  const cacheOn = options.useCache ?? x.cache !== undefined;
  const cache: CacheSettings | undefined =
    cacheOn && options.cache
      ? { store: options.cache, ...(ttlMs !== undefined ? { ttlMs } : {}), ...(options.cacheLedger ? { ledger: options.cacheLedger } : {}) }
      : undefined;
  const models = {
    prices: priceTable(x.prices),
    ...(cache ? { cache } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
    ...(options.env ? { env: options.env } : {}),
  };
  // The judge layer (and its model clients) is loaded only for experiments that have verifiers.
  const verifiers = x.verifierConfigs.length ? (await import('./columns.js')).verifierColumns(x, limiters, models) : [];
  const source = { file: x.file ?? x.configPath, ...(x.locate ? { locate: x.locate } : {}) };
  const limit = rateLimitOf(x.systemConfig, { ...source, path: 'system' });
  let base = options.system;
  if (!base) {
    const { createSystem } = await import('../providers/factory.js');
    base = createSystem(x.systemConfig, {
      ...source,
      baseDir: x.baseDir,
      inputs: options.inputs ?? x.inputs,
      samples: x.samples,
      // Tool arguments come from the model: their schemas' patterns run on the linear-time engine.
      compileSchema: (schema) => compileSchema(schema, 'parameters'),
      ...models,
    });
  }
  const system = limit ? limitSystem(base, limiters('system', limit)) : base;
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    try {
      await system.close?.();
    } finally {
      x.dispose();
    }
  };
  return {
    experiment: { ...x, validators: [...x.validators, ...verifiers], ...withTimeout(x, options.timeoutMs) },
    system,
    stopRules: stopRulesOf(options.decision ?? x.decision, { maxCostUsd: options.maxCostUsd ?? x.maxCostUsd, maxErrors: options.maxErrors }),
    cache,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
