import type { Command } from 'commander';
import { findDefaultConfig } from '../config/default-file.js';
import { loadExperiment, type Experiment } from '../config/index.js';
import type { IntervalMethod, StoppingRule, VerdictMode } from '../core/summary-types.js';
import { gradingRefusal } from '../grades/gradable.js';
import { loadGrading } from '../grades/load.js';
import { DURATION_EXPECTED, parseDuration } from '../config/duration.js';
import { ExitCode, UsageError } from '../errors.js';
import type { CacheSettings } from '../providers/cache.js';
import { createSystem } from '../providers/factory.js';
import { priceTable } from '../providers/prices.js';
import { exitCodeFor, reportMeta } from '../report/meta.js';
import { formatTerminalSummary } from '../report/terminal.js';
import { checkReportTargets } from '../report/targets.js';
import { reportsToStdout, writeReports } from '../report/write.js';
import { checkResumedDecision, decisionOfRun, summarizeRun } from '../core/decision.js';
import { maxCostRule } from '../run/cost.js';
import { DEFAULT_MAX_ERRORS, FailFastRule } from '../run/fail-fast.js';
import { createProgressView } from '../run/progress.js';
import { tensorColumns } from '../run/columns.js';
import { limitSystem, localLimiters, rateLimitOf } from '../providers/rate-limit.js';
import { runExperiment, type RunProgress } from '../run/runner.js';
import { SequentialStopRule } from '../run/sequential.js';
import type { Redis } from 'ioredis';
import { OutageError } from '../store/outage.js';
import { outageTimeout } from './store-flag.js';
import { connectRedis, parseRedisUrl } from '../queue/connection.js';
import type { QueuedRunResult } from '../queue/coordinator.js';
import { checkQueueFlags, queueFailure, runQueued } from './run-queue.js';
import { NoStoreError, openStore, shownLocation, storeFailure, storeFile, storeLocation, storeOutage, StoreError } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import type { ResponseCache, RunRecord, Store } from '../store/types.js';
import { OUTAGE_FLAG, OUTAGE_HELP, STORE_FLAG, STORE_HELP } from './store-flag.js';

interface RunFlags {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  concurrency?: string;
  samples?: string;
  resume?: string;
  store?: string;
  queue?: string;
  detach?: boolean;
  allowInconclusive?: boolean;
  progress?: boolean;
  maxErrors?: string;
  stopping?: string;
  verdict?: string;
  interval?: string;
  perInput?: string;
  cache?: boolean;
  cacheTtl?: string;
  maxCost?: string;
  retryErrors?: boolean;
  outageTimeout?: string;
}

/** --max-errors: samples in a row failing the same way that stop a run (0: never); default DEFAULT_MAX_ERRORS. */
function maxErrorsFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ERRORS;
  if (!/^\d+$/.test(value.trim()))
    throw new UsageError(`--max-errors: expected a whole number ≥ 0 (0 never stops), found ${JSON.stringify(value)}`, { path: '--max-errors' });
  return Number(value);
}

/** A whole number ≥ 1 from a flag, or a UsageError naming the flag and what was found. */
export function positiveIntFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new UsageError(`${flag}: expected a whole number ≥ 1, found ${JSON.stringify(value)}`, { path: flag });
  return Number(value);
}

/** `--per-input <rate>`: the per-input floor of every rule without its own, strictly between 0 and 1. */
function perInputFlag(value: string | undefined): { minSuccess: number } | undefined {
  if (value === undefined) return undefined;
  const x = Number(value.trim());
  if (!/\d/.test(value) || !(x > 0 && x < 1))
    throw new UsageError(`--per-input: expected a number strictly between 0 and 1 (each input's floor, e.g. 0.8), found ${JSON.stringify(value)}`, {
      path: '--per-input',
    });
  return { minSuccess: x };
}

/** An amount of USD > 0 from a flag. */
export function usdFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const usd = Number(value.trim().replace(/^\$/, ''));
  if (!/\d/.test(value) || !Number.isFinite(usd) || usd <= 0)
    throw new UsageError(`${flag}: expected an amount of USD > 0 such as 5 or 0.50, found ${JSON.stringify(value)}`, { path: flag });
  return usd;
}

/**
 * The response cache as the flags and the config ask: --cache / --no-cache over `cache:`, --cache-ttl over its
 * ttl. `cache` is the store's, reached once the store is open (models are built before it is, see below).
 */
function cacheSettings(flags: RunFlags, x: Experiment, cache: ResponseCache): CacheSettings | undefined {
  const ttlMs = flags.cacheTtl !== undefined ? parseDuration(flags.cacheTtl) : x.cache?.ttlMs;
  if (flags.cacheTtl !== undefined && ttlMs === undefined)
    throw new UsageError(`--cache-ttl: ${DURATION_EXPECTED}, found ${JSON.stringify(flags.cacheTtl)}`, { path: '--cache-ttl' });
  const on = flags.cache ?? (x.cache !== undefined || flags.cacheTtl !== undefined);
  return on ? { store: cache, ...(ttlMs !== undefined ? { ttlMs } : {}) } : undefined;
}

/** `--stopping`: fixed or sequential. */
function stoppingFlag(value: string | undefined): StoppingRule | undefined {
  if (value === undefined) return undefined;
  if (value !== 'fixed' && value !== 'sequential')
    throw new UsageError(`--stopping: expected fixed or sequential, found ${JSON.stringify(value)}`, { path: '--stopping' });
  return value;
}

/** A sequential run with grades is not resumed: its sequence cannot take them (grades refuses them; a library could store some). */
async function checkResumedGrades(store: Store, prior: RunRecord): Promise<void> {
  const refusal = gradingRefusal(prior);
  if (refusal && (await store.grades.list(prior.id)).length)
    throw new UsageError(`--resume ${prior.id}: ${refusal.replace(/which takes no grades/, 'which takes no grades, and it has some')}`, { path: '--resume' });
}

/** A flag that takes one of a few words (`--verdict`, `--interval`). */
function oneOfFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag}: expected ${allowed.join(' or ')}, found ${JSON.stringify(value)}`, { path: flag });
  return value as T;
}

async function runCommand(configArg: string | undefined, flags: RunFlags): Promise<void> {
  const concurrency = positiveIntFlag('--concurrency', flags.concurrency);
  const samples = positiveIntFlag('--samples', flags.samples);
  const maxErrors = maxErrorsFlag(flags.maxErrors);
  const stopping = stoppingFlag(flags.stopping);
  const verdict = oneOfFlag<VerdictMode>('--verdict', flags.verdict, ['confident', 'point']);
  const interval = oneOfFlag<IntervalMethod>('--interval', flags.interval, ['clopper-pearson', 'wilson', 'wald']);
  const perInput = perInputFlag(flags.perInput);
  const maxCost = usdFlag('--max-cost', flags.maxCost);
  checkQueueFlags(flags);
  if (flags.retryErrors && flags.resume === undefined)
    throw new UsageError('--retry-errors: only with --resume <runId> (a new run has no failed samples to run again)', { path: '--retry-errors' });
  const queue = flags.queue !== undefined ? parseRedisUrl(flags.queue) : undefined;
  const outageMs = outageTimeout(flags.outageTimeout);
  // Report paths are checked before any call is made: a run must not be lost to an unwritable report.
  const location = storeLocation(flags.store);
  checkReportTargets(flags, { storeFile: storeFile(location) });
  const say = (line: string) => process.stderr.write(`assay: ${line}\n`);
  // A queued run reaches its queue before it touches the store: a queue it cannot reach leaves no trace there.
  let redis: Redis | undefined;
  const reachQueue = async () => {
    if (queue) redis ??= await connectRedis(queue);
  };
  let runId: string | undefined;
  // A config that does not load should leave no trace: the store (and .assay/) is opened once it has,
  // except for `--resume` without a config, which reads the config's path from the store.
  let store: Store | undefined;
  let experiment: Experiment | undefined;
  let system: Awaited<ReturnType<typeof createSystem>> | undefined;
  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.INTERRUPTED); // a second Ctrl-C: quit at once (stored samples are safe)
    process.stderr.write('\nassay: stopping; finished samples are kept (Ctrl-C again to quit at once)\n');
    ac.abort();
  };
  try {
    let configPath = configArg;
    // `latest` or the start of an id name the run to resume; the store is opened for it before the config loads.
    let resume: string | undefined;
    let prior: RunRecord | undefined;
    if (flags.resume !== undefined) {
      await reachQueue();
      // Looking the run up only reads: an unknown id creates nothing (no .assay/assay.db, no schema).
      const lookup = await openStore(location, { readonly: true }).catch((err: unknown) => {
        if (err instanceof NoStoreError)
          throw new UsageError(
            `--resume: no run with id "${flags.resume}": there is no store at ${err.shown} yet (runs are stored there by: assay run <config>)`,
            {
              path: '--resume',
            },
          );
        throw err;
      });
      try {
        resume = await resolveRunId(lookup, flags.resume, '--resume');
        prior = (await lookup.runs.get(resume))!;
      } finally {
        await lookup.close();
      }
    }
    if (configPath === undefined) {
      if (prior === undefined) configPath = findDefaultConfig(process.cwd());
      else {
        if (!prior.configPath)
          throw new UsageError(`--resume ${prior.id}: the run has no config file on record; give it: assay run <config> --resume ${prior.id}`);
        configPath = prior.configPath;
      }
    }
    experiment = await loadExperiment(configPath, {
      ...(samples !== undefined ? { samples } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(stopping !== undefined ? { stopping } : {}),
      ...(verdict !== undefined ? { verdict } : {}),
      ...(interval !== undefined ? { interval } : {}),
      ...(perInput !== undefined ? { perInput } : {}),
    });
    // A resumed run is decided by the parameters it was started with: a config or flag that changes them is refused
    // here, before anything is written (openRun checks again for other callers), and the stop rules use the stored ones.
    if (prior) checkResumedDecision(prior, experiment.decision, configPath);
    const decision = prior ? decisionOfRun(prior) : experiment.decision;
    const systemLimit = rateLimitOf(experiment.systemConfig, { file: configPath, path: 'system' });
    const limiters = localLimiters();
    // The cache lives in the store, opened below: until then nothing calls a model, so it is reached lazily.
    const storeCache: ResponseCache = { get: (k) => store!.cache.get(k), set: (k, v) => store!.cache.set(k, v), clear: () => store!.cache.clear() };
    const warn = (m: string) => process.stderr.write(`assay: warning: ${m}\n`);
    // warn: a provider's notes on its answers (e.g. a temperature the model does not take), each once.
    const models = { prices: priceTable(experiment.prices), cache: cacheSettings(flags, experiment, storeCache), warn };
    // Built before the store is opened: a config that does not load leaves no trace.
    const validators = queue ? [] : tensorColumns(experiment, limiters, undefined, models);
    const base = queue
      ? undefined
      : createSystem(experiment.systemConfig, {
          file: configPath,
          baseDir: experiment.baseDir,
          inputs: experiment.inputs,
          samples: experiment.samples,
          ...models,
        });
    system = base && systemLimit ? limitSystem(base, limiters('system', systemLimit)) : base;
    await reachQueue();
    store = await openStore(location, { outage: storeOutage(location, { boundMs: outageMs, log: say }) });
    // Before anything of the run is written (the store is open for writing only now: the lookup above only read).
    if (prior) await checkResumedGrades(store, prior);
    // stopping: sequential — each validator stops being checked once its confidence sequence decides it;
    // decided from the stored samples, here or (with --queue) by the coordinator that watches the workers.
    const columns = decision.rules.map((r) => ({ minSuccess: r.minSuccess, ...(r.expect !== undefined ? { expect: r.expect } : {}) }));
    const budget = maxCost ?? experiment.maxCostUsd;
    const stopRules = [
      ...(decision.stopping === 'sequential' ? [new SequentialStopRule(columns, decision.confidence)] : []),
      ...(budget !== undefined ? [maxCostRule(budget)] : []),
    ];
    if (stopRules.length && flags.detach)
      warn("stopping: sequential with --detach: nothing watches the samples to stop early, so every sample is run (the verdicts are still the sequence's)");
    // Fail fast watches the samples as they are stored, locally or (with --queue) from the coordinator.
    const watched = maxErrors > 0 ? [...stopRules, new FailFastRule(maxErrors)] : stopRules;
    const retried = (runId: string, p: RunProgress) => {
      if (p.discarded !== undefined)
        process.stderr.write(`assay: --retry-errors: ${p.discarded} sample(s) of run ${runId} whose generation failed will run again\n`);
    };
    const progress = createProgressView(process.stderr, flags.progress === false ? false : undefined);
    process.on('SIGINT', onSigint);
    const queued = queue
      ? {
          queue,
          redis: redis!,
          outageMs,
          location,
          configPath,
          experiment,
          store,
          detach: flags.detach ?? false,
          signal: ac.signal,
          progress,
          stopRules: watched,
          ...(resume !== undefined ? { resume, retryErrors: flags.retryErrors ?? false } : {}),
          onStart: retried,
        }
      : undefined;
    const result = await (
      queued
        ? runQueued(queued)
        : runExperiment({
            experiment: { ...experiment, validators },
            system: system!,
            store,
            ...(resume !== undefined ? { runId: resume, retryErrors: flags.retryErrors ?? false } : {}),
            stopRules: watched,
            signal: ac.signal,
            onStart: (run, p) => {
              runId = run.id;
              retried(run.id, p);
              const resumed = resume !== undefined ? ` (resuming: ${p.skipped} of ${p.total} samples already stored)` : '';
              process.stderr.write(`assay: run ${run.id}: ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${system!.id}${resumed}\n`);
            },
            onProgress: (p) => progress.update(p),
          }).finally(() => progress.stop())
    ).catch((err: unknown) => {
      // The store stayed away past the bound: say how to finish the run once it is back.
      if (err instanceof OutageError && runId !== undefined)
        throw new StoreError(`${err.message}; run ${runId} is not finished: finish it with: assay run --resume ${runId} --store ${shownLocation(location)}`, {
          cause: err,
        });
      throw storeFailure(location, err) ?? err;
    });
    if ('detached' in result && result.detached) {
      process.stderr.write(`assay: run ${result.run.id} is queued; the workers finish it. See it with: assay show ${result.run.id}\n`);
      process.stdout.write(`${result.run.id}\n`);
      return;
    }
    // Why a stop rule ended the run (sequential: every validator decided; fail-fast: the calls that keep failing), once, before the summary.
    if (result.stopped) process.stderr.write(`assay: ${result.stopped.message}\n`);
    if (result.storedByOthers > 0) {
      process.stderr.write(
        `assay: ${result.storedByOthers} sample(s) of run ${result.run.id} were stored by another process working on it at the same time; theirs were kept\n`,
      );
    }
    // Decided by the run's stored parameters, as `assay show` decides it, with the grades given to it meanwhile.
    const summary = summarizeRun(result.run, result.tensor, {}, await loadGrading(store, result.run));
    const meta = reportMeta(result.run, result.stats, {
      allowInconclusive: flags.allowInconclusive ?? false,
      ...(flags.store !== undefined ? { store: shownLocation(flags.store) } : {}),
      ...(queue ? { queue: queue.shown } : {}),
    });
    // With a report on stdout (`--json -`), the human table goes to stderr so stdout stays parseable.
    const human = reportsToStdout(flags) ? process.stderr : process.stdout;
    human.write(formatTerminalSummary(summary, meta, { color: Boolean(human.isTTY) }));
    const written = await writeReports(flags, { run: result.run, summary, meta, tensor: result.tensor, store });
    for (const f of written) process.stderr.write(`assay: wrote ${f}\n`);
    // A stop rule may set the exit code (fail-fast: 3, the endpoint cannot be used).
    process.exitCode = result.stopped?.exitCode ?? exitCodeFor(summary, result.status, flags.allowInconclusive ?? false);
    const failed = queued ? queueFailure(result as QueuedRunResult, queued) : undefined;
    if (failed) throw failed;
  } finally {
    process.off('SIGINT', onSigint);
    await system?.close?.();
    experiment?.dispose();
    await store?.close();
    redis?.disconnect();
  }
}

/** `assay run <config>`: run an experiment, store it, print the summary, write reports, exit on the verdict. */
export function register(program: Command): void {
  program
    .command('run')
    .description('Run a reliability experiment: N inputs × M samples, every output checked by every validator')
    .argument('[config]', "experiment config: assay.yaml, .json or assay.config.ts (default: the one of them in this folder; with --resume, the run's own)")
    .option('--json <file>', 'write the JSON report (schemas/report.schema.json); "-" for stdout')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per validator)')
    .option('--markdown <file>', 'write a Markdown report for a CI job summary')
    .option('--html <file>', 'write a static HTML report')
    .option('--concurrency <n>', 'most generation calls in flight at once (overrides the config)')
    .option('--samples <m>', 'samples per input (overrides the config)')
    .option('--resume <runId>', 'finish an interrupted run (its id, "latest" or the start of its id): stored samples are kept, the rest are run')
    .option(STORE_FLAG, STORE_HELP)
    .option('--queue <redis-url>', 'run on `assay worker` processes: queue the samples on this Redis (redis://host:6379) and wait for them')
    .option('--detach', 'with --queue: return once the samples are queued, printing the run id')
    .option(
      '--max-errors <n>',
      `stop the run (exit 3, resumable) after n samples in a row fail the same way: connection refused, 401/403/404, a missing model, an unreadable answer (default ${DEFAULT_MAX_ERRORS}; 0 never stops)`,
    )
    .option('--allow-inconclusive', 'exit 0 when a verdict is inconclusive (confident mode); an `error` verdict still exits 1')
    .option('--stopping <rule>', 'fixed (every sample) or sequential (stop each validator once its confidence sequence decides it); overrides the config')
    .option('--verdict <mode>', 'confident (the default: the interval must clear minSuccess) or point (rate ≥ minSuccess); overrides the config')
    .option('--interval <method>', 'clopper-pearson (the default), wilson, or wald (only with --verdict point); overrides the config')
    .option(
      '--per-input <rate>',
      'each input must pass at least this share of its samples, for every rule without its own perInput (Holm over the inputs); overrides the config',
    )
    .option('--no-progress', 'no progress bar, plain progress lines')
    .option('--cache', 'reuse stored answers of identical calls (same provider, model, request and sample j), and store new ones')
    .option('--no-cache', 'call the models even if the config turns the cache on')
    .option('--cache-ttl <duration>', 'ignore cached answers older than this (e.g. 12h, 7d); implies --cache')
    .option(
      '--retry-errors',
      'with --resume: run again the samples whose generation failed (connection refused, 5xx, …; e.g. those of a run fail fast stopped)',
    )
    .option('--max-cost <usd>', 'stop cleanly once the run has cost this much (resumable with --resume)')
    .option(OUTAGE_FLAG, OUTAGE_HELP)
    .addHelpText(
      'after',
      '\nExit codes: 0 every validator passes; 1 a validator fails, is an error (more error cells than maxErrorShare)\nor is inconclusive (unless --allow-inconclusive); 2 bad config or usage; 3 internal error, the store or queue lost\nfor longer than --outage-timeout, or calls kept failing the same way (see --max-errors; resume with --resume <runId>\n[--retry-errors]); 130 interrupted (resume with --resume <runId>).',
    )
    .action(async (config: string | undefined, flags: RunFlags) => {
      await runCommand(config, flags);
    });
}
