import { setMaxListeners } from 'node:events';
import { startRunTrace } from '../otel/tracing.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue, Validator, ValidatorMeta } from '../core/validator.js';
import { UsageError } from '../errors.js';
import { designProblem } from '../core/limits.js';
import { ProviderError, type SystemUnderTest } from '../providers/types.js';
import { DuplicateSampleError } from '../store/errors.js';
import type { RunRecord, RunStatus, SampleRecord, Store } from '../store/types.js';
import { evaluateValidator } from '../validators/evaluate.js';
import { checkResumedDecision, type DecisionParameters } from '../core/decision.js';
import { limitedWorkers } from './limit.js';
import type { RetryOptions } from '../providers/retry.js';
import { executeSample, type EvaluateFn, type SampleContext } from './sample.js';
import { StatsAccumulator, type RunStats } from './stats.js';
import { firstDecision, settledBy, type StopDecision, type StopRule } from './stop.js';

export type { EvaluateFn } from './sample.js';

/** What the runner needs of an experiment; a loaded `Experiment` (src/config) fits it as it is. */
export interface RunPlan {
  name: string;
  inputs: InputValue[];
  samples: number;
  validators: Validator[];
  /** The resolved config as JSON data, stored with the run. */
  serialisable?: unknown;
  configPath?: string;
  concurrency?: number;
  timeoutMs?: number;
  /** What decides its verdicts (a loaded Experiment's): stored with a new run, and a resume must not change it. */
  decision?: DecisionParameters;
}

export interface RunProgress {
  /** Samples finished in this process. */
  done: number;
  /** Samples already stored before this process started (resume). */
  skipped: number;
  /** N × M. */
  total: number;
  generationErrors: number;
  retries: number;
  /**
   * Samples another process working on the same run (a second --resume, a queue worker) stored first; this
   * process kept theirs. Counted in `skipped`, not in `done`.
   */
  storedByOthers: number;
  /** With `retryErrors`: stored samples whose generation had failed, deleted to run again. */
  discarded?: number;
}

export interface RunOptions {
  experiment: RunPlan;
  system: SystemUnderTest;
  store: Store;
  /** Resume this stored run: samples already stored are skipped, never redone or duplicated. */
  runId?: string;
  /** With `runId`: samples whose generation failed are deleted and run again (`--retry-errors`), once the resume is accepted. */
  retryErrors?: boolean;
  /** Most generation calls in flight at once. Default: experiment.concurrency ?? 8. */
  concurrency?: number;
  /** Per-call time limit (ms) for a generation and for a verifier's call (unless it sets its own). Default 60 000. */
  timeoutMs?: number;
  /** Ctrl-C: stop scheduling, abort in-flight calls, keep every finished sample, mark the run interrupted. */
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  /** Called once the run record exists (before any generation), e.g. to print the run id. */
  onStart?: (run: RunRecord, progress: RunProgress) => void;
  retry?: Omit<RetryOptions, 'signal'>;
  /** How one validator is checked; default: `evaluateValidator` (src/validators). */
  evaluate?: EvaluateFn;
  /** Rules that may end the run early (sequential verdicts, budgets, fail-fast); see stop.ts. */
  stopRules?: readonly StopRule[];
}

export interface RunResult {
  run: RunRecord;
  status: RunStatus;
  /** The run's complete tensor (stored samples, including those of earlier processes on resume). */
  tensor: ReliabilityTensor;
  stats: RunStats;
  /** Set when a stop rule ended the run before N × M samples. */
  stopped?: StopDecision;
  /** Samples another process stored first while this one ran (see RunProgress.storedByOthers). */
  storedByOthers: number;
}

export function validatorMeta(v: Validator): ValidatorMeta {
  return {
    name: v.name,
    message: v.message,
    minSuccess: v.minSuccess,
    weight: v.weight ?? 1,
    kind: v.kind ?? 'validator',
    ...(v.source !== undefined ? { source: v.source } : {}),
    // What the verdict and the sequential design need to know of the rule (core/verdict.ts, core/sequence.ts).
    ...(v.onError !== undefined ? { onError: v.onError } : {}),
    ...(v.maxErrorShare !== undefined ? { maxErrorShare: v.maxErrorShare } : {}),
    ...(v.expect !== undefined ? { expect: v.expect } : {}),
    ...(v.perInput !== undefined ? { perInput: v.perInput } : {}),
    ...(v.passK !== undefined ? { passK: v.passK } : {}),
  };
}

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Open (or reopen, on resume) the run record and check a resumed run still matches the experiment. */
export async function openRun(opts: Pick<RunOptions, 'experiment' | 'store' | 'system' | 'runId'>): Promise<RunRecord> {
  const { experiment: x, store, system } = opts;
  if (opts.runId === undefined) {
    // Refuse a design too large to hold before the run record exists: nothing half-made is left in the store.
    const tooBig = designProblem(x.inputs.length, x.samples, x.validators.length);
    if (tooBig) throw new UsageError(`${x.configPath ?? 'experiment'}: samples: ${tooBig}`, { path: 'samples' });
    return store.runs.create({
      name: x.name,
      config: x.serialisable ?? (x.decision ? { decision: x.decision } : null),
      ...(x.configPath !== undefined ? { configPath: x.configPath } : {}),
      inputs: x.inputs,
      samples: x.samples,
      validators: x.validators.map(validatorMeta),
      systemId: system.id,
    });
  }
  const run = await store.runs.get(opts.runId);
  if (!run) throw new UsageError(`runId: no run with id "${opts.runId}" in the store`, { key: 'runId' });
  const names = x.validators.map((v) => v.name);
  const stored = run.validators.map((v) => v.name);
  const problems: string[] = [];
  if (run.N !== x.inputs.length) problems.push(`inputs: the run has ${run.N}, the config gives ${x.inputs.length}`);
  else {
    const at = run.inputs.findIndex((v, i) => JSON.stringify(v) !== JSON.stringify(x.inputs[i]));
    if (at >= 0)
      problems.push(`inputs[${at}]: the run has ${excerpt(JSON.stringify(run.inputs[at]))}, the config gives ${excerpt(JSON.stringify(x.inputs[at]))}`);
  }
  if (run.M !== x.samples) problems.push(`samples: the run has ${run.M}, the config gives ${x.samples}`);
  if (JSON.stringify(names) !== JSON.stringify(stored)) problems.push(`validators: the run has [${stored.join(', ')}], the config gives [${names.join(', ')}]`);
  if (problems.length)
    throw new UsageError(`runId ${run.id}: the config${x.configPath ? ` ${x.configPath}` : ''} no longer matches the stored run; ${problems.join('; ')}`, {
      key: 'runId',
    });
  if (x.decision) checkResumedDecision(run, x.decision, x.configPath);
  return run;
}

/**
 * Execute an experiment: N inputs × M samples, each output checked by K validators, every finished sample
 * stored at once. Samples are scheduled iteration-major (all inputs' sample 0, then sample 1, …) so an
 * interrupted run has balanced data per input. Infrastructure failures end as ERROR cells, never FAIL.
 */
export async function runExperiment(opts: RunOptions): Promise<RunResult> {
  const { experiment: x, system, store } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? x.concurrency ?? DEFAULT_CONCURRENCY));
  const timeoutMs = opts.timeoutMs ?? x.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const evaluate = opts.evaluate ?? evaluateValidator;
  const run = await openRun(opts);
  const { N, M, K } = run;
  const inputs = run.inputs;
  // Only now that openRun has accepted the resume (a config that no longer matches the run loses nothing).
  const discarded = opts.retryErrors && opts.runId !== undefined ? await store.samples.discardGenerationErrors(run.id) : 0;

  const rules = opts.stopRules ?? [];
  // What is already stored (resume): a bitmap over (i, j), and the stats of those samples.
  const stored = new Uint8Array(N * M);
  const stats = new StatsAccumulator();
  const tensor = await store.samples.tensor(run.id);
  if (opts.runId !== undefined) {
    for (const s of await store.samples.list(run.id)) {
      stored[s.i * M + s.j] = 1;
      stats.add(s);
      for (const r of rules) r.observe(s, tensor, true);
    }
  }
  let stopped = firstDecision(rules);
  const progress: RunProgress = {
    done: 0,
    skipped: stats.count,
    total: N * M,
    generationErrors: 0,
    retries: 0,
    storedByOthers: 0,
    ...(opts.retryErrors ? { discarded } : {}),
  };
  if (opts.runId !== undefined) await store.runs.setStatus(run.id, 'running');
  opts.onStart?.(run, { ...progress });

  // One internal controller: the user's Ctrl-C, or a fatal error (the store failing), stops everything.
  const stop = new AbortController();
  // Every in-flight call and check listens to it: up to (1 + K) × concurrency listeners, by design.
  setMaxListeners(0, stop.signal);
  const onUserAbort = () => stop.abort(new ProviderError('aborted', 'the run was interrupted'));
  if (opts.signal?.aborted) onUserAbort();
  opts.signal?.addEventListener('abort', onUserAbort, { once: true });

  // The run's span, when a tracer provider records (otel/tracing.ts); samples' spans go under it.
  const runTrace = startRunTrace({ id: run.id, name: run.name, N, M, K, systemId: run.systemId });
  const ctx: SampleContext = {
    system,
    validators: x.validators,
    evaluate,
    timeoutMs,
    retry: opts.retry ?? {},
    signal: stop.signal,
    ...(runTrace.context ? { trace: runTrace.context } : {}),
  };
  const skip = settledBy(rules);

  // Iteration-major order over the samples not yet stored. A stop decision ends the schedule; samples in
  // flight still finish and are stored.
  function* pending(): Generator<[number, number]> {
    for (let j = 0; j < M; j++) {
      for (let i = 0; i < N; i++) {
        if (stopped) return;
        if (!stored[i * M + j]) yield [i, j];
      }
    }
  }

  let fatal: unknown;
  // A rule that cancels the samples in flight aborts `stop` itself; that is the rule's stop, not Ctrl-C.
  let cancelledByRule = false;
  try {
    await limitedWorkers(pending(), concurrency, stop.signal, async ([i, j]) => {
      const mine = await executeSample(ctx, inputs[i], i, j, skip ? { skip } : {});
      if (!mine) return;
      let s: SampleRecord = mine;
      try {
        await store.samples.record(run.id, mine);
      } catch (err) {
        // Another process working on this run stored (i, j) first: the store keeps theirs, and so do we.
        const theirs = DuplicateSampleError.isInstance(err) ? await store.samples.get(run.id, i, j).catch(() => undefined) : undefined;
        if (!theirs) {
          fatal ??= err;
          stop.abort(err);
          return;
        }
        s = theirs;
      }
      for (let k = 0; k < K; k++) tensor.set(i, j, k, s.outcomes[k]);
      stats.add(s);
      for (const r of rules) r.observe(s, tensor, false);
      stopped ??= firstDecision(rules);
      if (stopped?.cancelInFlight && !stop.signal.aborted) {
        cancelledByRule = true;
        stop.abort(new ProviderError('aborted', `stopped: ${stopped.message}`));
      }
      if (s !== mine) {
        progress.skipped++;
        progress.storedByOthers++;
      } else {
        progress.done++;
        if (s.generationError !== undefined) progress.generationErrors++;
        progress.retries += s.attempts - 1;
      }
      opts.onProgress?.({ ...progress });
    });
  } catch (err) {
    fatal ??= err; // e.g. an onProgress callback that threw: the run still gets a final status
  } finally {
    opts.signal?.removeEventListener('abort', onUserAbort);
  }

  const finished = stats.count === N * M;
  // Ctrl-C wins over a rule's decision: an interrupted run says so even if a rule also fired.
  const byRule = stopped !== undefined && !finished && (!stop.signal.aborted || (cancelledByRule && !opts.signal?.aborted));
  const status: RunStatus = fatal !== undefined ? 'failed' : finished ? 'complete' : byRule ? stopped!.status : 'interrupted';
  runTrace.end(status, fatal);
  await store.runs.setStatus(run.id, status);
  if (fatal !== undefined) throw fatal;
  const final = (await store.runs.get(run.id)) ?? run;
  return { run: final, status, tensor, stats: stats.snapshot(), storedByOthers: progress.storedByOthers, ...(byRule ? { stopped } : {}) };
}

function excerpt(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
