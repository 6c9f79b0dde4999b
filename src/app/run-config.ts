import type { Redis } from 'ioredis';
import { findDefaultConfig } from '../config/default-file.js';
import { loadExperiment, type Experiment } from '../config/load.js';
import type { ExperimentOverrides } from '../config/schema.js';
import { checkResumedDecision, decisionOfRun, summarizeRun } from '../core/decision.js';
import type { RunSummary } from '../core/summary-types.js';
import { UsageError } from '../errors.js';
import { gradingRefusal } from '../grades/gradable.js';
import { loadGrading } from '../grades/load.js';
import { connectRedis, type RedisLocation } from '../queue/connection.js';
import type { QueuedRunResult } from '../queue/coordinator.js';
import { assembleRun, type AssembledRun } from '../run/assemble.js';
import type { ProgressView } from '../run/progress.js';
import { runExperiment, type RunProgress, type RunResult } from '../run/runner.js';
import { OutageError } from '../store/outage.js';
import { NoStoreError, openStore, shownLocation, storeFailure, storeOutage, StoreError } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import type { ResponseCache, RunRecord, Store } from '../store/types.js';
import { queueFailure, runQueued } from './run-queued.js';
import { assayCommandLine } from '../invocation.js';

/**
 * What `assay run` does, as a library function: find and load the config (or a stored run's, to resume it),
 * assemble it (run/assemble.ts), open the store, run it here or on a queue's workers, and decide it as the
 * stored run is decided. What it prints and which flags it reads are the CLI's (cli/run.ts); errors name
 * the option they concern by `where.key` (`runId`, `store`, `overrides.samples`, …), which the CLI shows as
 * its flag.
 */

export interface RunConfigOptions {
  /** The config file; default the one in the working folder, or (resuming) the run's own. */
  config?: string;
  /** Values over the config's (samples, concurrency, stopping, verdict, interval, perInput). */
  overrides?: ExperimentOverrides;
  /** A run to finish: its id, `latest` or the start of its id. */
  runId?: string;
  /** With runId: run again the samples whose generation failed. */
  retryErrors?: boolean;
  /** Where runs are stored: a SQLite path or a postgres:// URL, already resolved (store/open.ts storeLocation). */
  store: string;
  /** How long a lost store or queue is waited for (ms). */
  outageMs: number;
  /** Run on `assay worker` processes through this Redis; `detach` returns once the samples are queued. */
  queue?: RedisLocation;
  detach?: boolean;
  /** Samples in a row failing the same way that stop the run; 0 never. */
  maxErrors: number;
  /** Stop once the run has cost this much (USD), over the config's `maxCostUsd`. */
  maxCostUsd?: number;
  /** Over the config's `cache:`. */
  useCache?: boolean;
  cacheTtlMs?: number;
  signal: AbortSignal;
  progress: ProgressView;
  /** One line for the person running it (the run's id and shape, a stop, samples stored by another process). */
  say: (line: string) => void;
  warn: (line: string) => void;
}

/** How it went, with the store still open for reports; dispose to close everything. */
export interface RunConfigOutcome {
  result: RunResult | QueuedRunResult;
  /** Undefined for a detached queued run (nothing is decided yet). */
  summary?: RunSummary;
  store: Store;
  /** Samples that failed on the workers: the run is kept, this says how to finish it (thrown by the caller after its report). */
  failure?: Error;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The run named by `ref`, looked up read-only: an unknown id creates nothing (no .assay/assay.db, no schema). */
async function priorRun(location: string, ref: string): Promise<RunRecord> {
  const lookup = await openStore(location, { readonly: true }).catch((err: unknown) => {
    if (NoStoreError.isInstance(err))
      throw new UsageError(
        `runId: no run with id "${ref}": there is no store at ${err.shown} yet (runs are stored there by: ${assayCommandLine('run <config>')})`,
        {
          key: 'runId',
        },
      );
    throw err;
  });
  try {
    const id = await resolveRunId(lookup, ref, 'runId');
    return (await lookup.runs.get(id))!;
  } finally {
    await lookup.close();
  }
}

/** A sequential run with grades is not resumed: its sequence cannot take them (grades refuses them; a library could store some). */
async function checkResumedGrades(store: Store, prior: RunRecord): Promise<void> {
  const refusal = gradingRefusal(prior);
  if (refusal && (await store.grades.list(prior.id)).length)
    throw new UsageError(`runId ${prior.id}: ${refusal.replace(/which takes no grades/, 'which takes no grades, and it has some')}`, { key: 'runId' });
}

export async function runConfig(o: RunConfigOptions): Promise<RunConfigOutcome> {
  const { store: location, queue } = o;
  // A queued run reaches its queue before it touches the store: a queue it cannot reach leaves no trace there.
  let redis: Redis | undefined;
  const reachQueue = async () => {
    if (queue) redis ??= await connectRedis(queue);
  };
  let store: Store | undefined;
  let experiment: Experiment | undefined;
  let assembled: AssembledRun | undefined;
  const dispose = async () => {
    await (assembled ? assembled.dispose() : experiment?.dispose());
    await store?.close();
    redis?.disconnect();
  };
  try {
    let prior: RunRecord | undefined;
    if (o.runId !== undefined) {
      await reachQueue();
      prior = await priorRun(location, o.runId);
    }
    let configPath = o.config;
    if (configPath === undefined) {
      if (prior === undefined) configPath = findDefaultConfig(process.cwd());
      else if (!prior.configPath)
        throw new UsageError(`runId ${prior.id}: the run has no config file on record; give it: ${assayCommandLine(`run <config> --resume ${prior.id}`)}`, {
          key: 'runId',
        });
      else configPath = prior.configPath;
    }
    // A config that does not load leaves no trace: the store is opened (for writing) once it has.
    experiment = await loadExperiment(configPath, o.overrides ?? {});
    // A resumed run is decided by the parameters it was started with: a config or override that changes them is
    // refused here, before anything is written (openRun checks again), and the stop rules use the stored ones.
    if (prior) checkResumedDecision(prior, experiment.decision, configPath);
    // The cache lives in the store, opened below: until then nothing calls a model, so it is reached lazily.
    const cache: ResponseCache = {
      get: (k) => store!.cache.get(k),
      set: (k, v) => store!.cache.set(k, v),
      add: (k, v) => store!.cache.add(k, v),
      delete: (keys) => store!.cache.delete(keys),
      clear: () => store!.cache.clear(),
    };
    // On a queue the workers call the system and the judges and hold the API keys: here the config is only checked.
    const env = queue ? workersHoldSecrets : undefined;
    assembled = await assembleRun(experiment, {
      cache,
      ...(o.useCache !== undefined ? { useCache: o.useCache } : {}),
      ...(o.cacheTtlMs !== undefined ? { cacheTtlMs: o.cacheTtlMs } : {}),
      ...(prior ? { decision: decisionOfRun(prior) } : {}),
      ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
      maxErrors: o.maxErrors,
      warn: o.warn,
      ...(env ? { env } : {}),
    });
    await reachQueue();
    store = await openStore(location, { outage: storeOutage(location, { boundMs: o.outageMs, log: o.say }) });
    // Before anything of the run is written (the store is open for writing only now: the lookup above only read).
    if (prior) await checkResumedGrades(store, prior);
    if (o.detach && assembled.stopRules.some((r) => r.name !== 'fail-fast'))
      o.warn("stopping: sequential with --detach: nothing watches the samples to stop early, so every sample is run (the verdicts are still the sequence's)");
    const retried = (runId: string, p: RunProgress) => {
      if (p.discarded !== undefined) o.say(`--retry-errors: ${p.discarded} sample(s) of run ${runId} whose generation failed will run again`);
    };
    const resume = o.runId !== undefined ? { runId: prior!.id, retryErrors: o.retryErrors ?? false } : {};
    let runId: string | undefined;
    const queued = queue
      ? {
          queue,
          redis: redis!,
          outageMs: o.outageMs,
          location,
          configPath,
          assembled,
          store,
          detach: o.detach ?? false,
          signal: o.signal,
          progress: o.progress,
          say: o.say,
          ...(prior ? { resume: prior.id, retryErrors: o.retryErrors ?? false } : {}),
          onStart: retried,
        }
      : undefined;
    const result = await (
      queued
        ? runQueued(queued)
        : runExperiment({
            ...assembled,
            store,
            ...resume,
            signal: o.signal,
            onStart: (run, p) => {
              runId = run.id;
              retried(run.id, p);
              const resumed = prior ? ` (resuming: ${p.skipped} of ${p.total} samples already stored)` : '';
              o.say(`run ${run.id}: ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${assembled!.system.id}${resumed}`);
            },
            onProgress: (p) => o.progress.update(p),
          }).finally(() => o.progress.stop())
    ).catch((err: unknown) => {
      // The store stayed away past the bound: say how to finish the run once it is back.
      if (OutageError.isInstance(err) && runId !== undefined)
        throw new StoreError(
          `${err.message}; run ${runId} is not finished: finish it with: ${assayCommandLine(`run --resume ${runId} --store ${shownLocation(location)}`)}`,
          {
            cause: err,
          },
        );
      throw storeFailure(location, err) ?? err;
    });
    const outcome = { result, store, dispose, [Symbol.asyncDispose]: dispose };
    if ('detached' in result && result.detached) return outcome;
    // Decided by the run's stored parameters, as `assay show` decides it, with the grades given to it meanwhile.
    const summary = summarizeRun(result.run, result.tensor, {}, await loadGrading(store, result.run));
    const failure = queued ? queueFailure(result as QueuedRunResult, queued) : undefined;
    return { ...outcome, summary, ...(failure ? { failure } : {}) };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/**
 * The environment a queued run's config is checked against here. The workers call the system and the
 * judges, so they hold the API keys; this process only needs the config to be well formed.
 */
const workersHoldSecrets = new Proxy(process.env, { get: (env, name: string) => env[name] ?? '(set on the workers)' });
