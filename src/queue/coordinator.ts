import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Outcome } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { DEFAULT_OUTAGE_MS, ignore, Outage, OutageError, type Ride } from '../store/outage.js';
import { ProviderError } from '../providers/types.js';
import { openRun, type RunPlan, type RunProgress, type RunResult } from '../run/runner.js';
import { computeStats } from '../run/stats.js';
import { firstDecision, settledBy, type StopDecision, type StopRule } from '../run/stop.js';
import type { RunRecord, RunStatus, SampleRecord, Store } from '../store/types.js';
import { RunBoard } from './board.js';
import { connectRedis, QueueError, redisLost, redisReason, redisRefused, type RedisLocation } from './connection.js';
import { QUEUE_NAME, SAMPLE_JOB_OPTIONS, sampleJobId, type SampleJob, type SampleJobResult } from './jobs.js';
import { assayCommandLine } from '../invocation.js';

export interface QueuedRunOptions {
  /** The experiment as the local runner takes it (its validators give the run's columns). */
  experiment: RunPlan;
  /** The system's id, stored with the run (the workers build the system itself). */
  systemId: string;
  store: Store;
  queue: RedisLocation;
  /**
   * A client already connected to the queue (connectRedis), which the caller closes: `assay run` connects
   * before it opens the store, so that a queue it cannot reach leaves no trace in the store.
   */
  redis?: Redis;
  /** Resume this stored run: only its missing samples are queued. */
  runId?: string;
  /** With `runId`: samples whose generation failed are deleted and queued again (`--retry-errors`), once the resume is accepted. */
  retryErrors?: boolean;
  /** Queue the samples and return at once; the workers finish the run (and set its status). */
  detach?: boolean;
  /** Ctrl-C: the run is stopped on the board (workers skip its remaining jobs) and marked interrupted. */
  signal?: AbortSignal;
  /** Decided here, from the samples as the workers store them (and the stored ones first, on resume). */
  stopRules?: readonly StopRule[];
  onStart?: (run: RunRecord, progress: RunProgress, queued: number) => void;
  onProgress?: (p: RunProgress) => void;
  /** Called once when no worker has taken a job for a while (default after 10 s). */
  onIdle?: () => void;
  idleMs?: number;
  pollMs?: number;
  /** How long a lost queue is waited for before the run is given up (ms, default 60 s); the store rides out its own (openStore's `outage`). */
  outageMs?: number;
  /** One line each when the queue is lost, back, or lost its jobs. */
  log?: (line: string) => void;
  /** The flags that reach this run's queue and store (`--queue … --store …`), for the command that resumes it. */
  where?: string;
}

export interface QueuedRunResult extends RunResult {
  /** Sample jobs queued by this call. */
  queued: number;
  /** True with `detach`: nothing was waited for; tensor and stats are as queued. */
  detached: boolean;
  /** Jobs that failed for good on the workers, and the first reason. */
  failed: number;
  firstError?: string;
}

const BULK = 1000;

/**
 * `assay run --queue`: open (or resume) the run, queue a job for every sample not yet stored, iteration-major
 * as the local runner schedules them, and wait while workers run them, showing progress from the run board.
 * The report is made from the store, exactly as for a local run. Stop rules decide here, from the samples
 * the workers store; a decision stops the run on the board and the workers skip what is left of it.
 *
 * A lost Redis is waited for (`outageMs`, one line when lost and one when back); one that comes back
 * without its data (restarted, nothing persisted) has lost the run's jobs, and the samples the store does
 * not hold are queued again: the store is the record. Past the bound the run is kept as interrupted and a
 * QueueError names the command that finishes it.
 */
export async function runOnQueue(opts: QueuedRunOptions): Promise<QueuedRunResult> {
  const { store, experiment } = opts;
  const log = opts.log ?? (() => {});
  const redis: Redis = opts.redis ?? (await connectRedis(opts.queue));
  const outage = new Outage(`the queue at ${opts.queue.shown}`, {
    boundMs: opts.outageMs ?? DEFAULT_OUTAGE_MS,
    log,
    retryable: redisLost,
    describe: redisReason(redis),
  });
  const ride: Ride = (fn) => outage.ride(fn, opts.signal);
  // A Redis that comes back wanting a password it did not want before: no wait mends that.
  const onRedisError = (err: Error) => {
    if (redisRefused(err)) ignore(() => outage.refuse(err));
  };
  redis.on('error', onRedisError);
  const board = new RunBoard(redis, opts.queue.prefix, ride);
  let queue: Queue<SampleJob, SampleJobResult> | undefined;
  let run: RunRecord | undefined;
  try {
    const unreachable = () => Promise.reject(new ProviderError('client', 'the system runs on the workers'));
    run = await openRun({
      experiment,
      store,
      system: { id: opts.systemId, generate: unreachable },
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
    });
    const runId = run.id;
    const { N, M, K } = run;
    const discarded = opts.retryErrors && opts.runId !== undefined ? await store.samples.discardGenerationErrors(run.id) : 0;
    const tensor = await store.samples.tensor(run.id);
    const have = storedSamples(tensor, N, M, K);
    const rules = opts.stopRules ?? [];
    // Stored samples (outputs and all) are read only for rules that use them.
    const readers = rules.filter((r) => !r.ignoresResumed);
    if (readers.length && opts.runId !== undefined) for (const s of await store.samples.list(run.id)) for (const r of readers) r.observe(s, tensor, true);
    if (opts.runId !== undefined) await store.runs.setStatus(run.id, 'running');

    const seen = new Uint8Array(N * M);
    let decision: StopDecision | undefined = firstDecision(rules);
    let settledSent = '';
    const settled = settledBy(rules);
    /** A sample a worker stored, seen by the rules once (from the event stream, or from the store after a lost queue). */
    const observe = (s: SampleRecord) => {
      if (seen[s.i * M + s.j] || have[s.i * M + s.j]) return;
      seen[s.i * M + s.j] = 1;
      for (let k = 0; k < K; k++) tensor.set(s.i, s.j, k, s.outcomes[k]);
      for (const rule of rules) rule.observe(s, tensor, false);
      decision ??= firstDecision(rules);
      if (decision) board.stop(runId, { status: decision.status, message: decision.message, rule: decision.rule }).catch(() => {}); // Redis away past the bound: the run ends with it
      const cols = settled ? [...Array(K).keys()].filter((k) => settled(k)) : [];
      if (cols.join() !== settledSent) {
        settledSent = cols.join();
        board.settle(runId, cols).catch(() => {});
      }
    };
    const watching = rules.length > 0 && !opts.detach;
    let read = '0';
    /** The samples the workers resolved since the last look (the board's stream), seen by the rules. */
    const readResults = async () => {
      if (!watching) return;
      for (;;) {
        const { results, next } = await board.results(runId, read);
        read = next;
        for (const r of results)
          observe({
            i: r.i,
            j: r.j,
            outcomes: r.outcomes!,
            latencyMs: r.latencyMs ?? 0,
            attempts: r.attempts ?? 1,
            ...(r.usage ? { usage: r.usage } : {}),
            ...(r.generationError !== undefined ? { generationError: r.generationError } : {}),
            ...(r.generationErrorKind ? { generationErrorKind: r.generationErrorKind } : {}),
          });
        if (!results.length) return;
      }
    };

    /** Put `samples` on a fresh board and queue their jobs (a job still queued from before is kept: ids are unique). */
    const enqueue = async (samples: [number, number][], again = false) => {
      await board.reset(runId);
      // Watched before any job exists, so that no sample a worker resolves goes unseen by the rules.
      if (watching) await board.watch(runId);
      read = '0';
      await board.expect(
        runId,
        samples.map(([i, j]) => i * M + j),
      );
      if (!samples.length) return;
      // On assay's own client, which BullMQ leaves open on close and which fails at once while Redis is away.
      queue ??= new Queue<SampleJob, SampleJobResult>(QUEUE_NAME, { connection: redis, prefix: opts.queue.prefix });
      queue.on('error', () => {}); // each call below says what went wrong, and rides it out
      for (let at = 0; at < samples.length; at += BULK) {
        const jobs = samples.slice(at, at + BULK).map(([i, j]) => ({
          name: 'sample',
          data: { runId, i, j, m: M, ...(again ? { again: true as const } : {}) },
          opts: { ...SAMPLE_JOB_OPTIONS, jobId: sampleJobId(runId, i, j) },
        }));
        await ride(() => queue!.addBulk(jobs));
      }
    };

    // Iteration-major, as the local runner: an interrupted run has balanced data per input.
    let pending: [number, number][] = [];
    if (!decision) for (let j = 0; j < M; j++) for (let i = 0; i < N; i++) if (!have[i * M + j]) pending.push([i, j]);
    await enqueue(pending);
    const queued = pending.length;
    const progress: RunProgress = {
      done: 0,
      skipped: N * M - pending.length,
      total: N * M,
      generationErrors: 0,
      retries: 0,
      storedByOthers: 0,
      ...(opts.retryErrors ? { discarded } : {}),
    };
    opts.onStart?.(run, { ...progress }, pending.length);
    if (opts.detach) return { run, status: 'running', tensor, stats: computeStats([]), storedByOthers: 0, queued, detached: true, failed: 0 };

    /** The queue came back without the run's board and jobs: queue again what the store does not hold (what it holds is the truth). */
    const requeue = async () => {
      log(`the queue at ${opts.queue.shown} came back without run ${runId}'s jobs (restarted without its data?): queuing again the samples not yet stored`);
      const now = storedSamples(await store.samples.tensor(runId), N, M, K);
      if (rules.length) for (const s of await store.samples.list(runId)) if (now[s.i * M + s.j]) observe(s);
      pending = decision ? [] : pending.filter(([i, j]) => !now[i * M + j]);
      await enqueue(pending, true);
      if (decision) await board.stop(runId, { status: decision.status, message: decision.message, rule: decision.rule });
      progress.skipped = N * M - pending.length;
    };

    // Wait, reading the board: resolved + failed reaching the number queued means every job is settled.
    let interrupted = false;
    let lastDone = -1;
    let idleSince = Date.now();
    let idleSaid = false;
    try {
      for (;;) {
        if (opts.signal?.aborted) {
          interrupted = true;
          // Best effort: a queue that is away cannot be told, and the store says interrupted either way.
          await new RunBoard(redis, opts.queue.prefix).stop(runId, { status: 'interrupted', message: 'interrupted (Ctrl-C)' }).catch(() => {});
          break;
        }
        const c = pending.length ? await board.counts(runId) : { present: true, target: 0, done: 0, failed: 0 };
        if (!c.present) {
          await requeue();
          lastDone = -1;
          continue;
        }
        await readResults();
        if (c.done !== lastDone) {
          lastDone = c.done;
          idleSince = Date.now();
          progress.done = c.done;
          opts.onProgress?.({ ...progress });
        } else if (!idleSaid && c.done === 0 && Date.now() - idleSince > (opts.idleMs ?? 10_000)) {
          idleSaid = true;
          opts.onIdle?.();
        }
        if (c.done + c.failed >= c.target) break;
        await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
      }
    } catch (err) {
      if (opts.signal?.aborted) interrupted = true;
      else throw err;
    }

    const final = interrupted ? await board.counts(runId).catch(() => undefined) : await board.counts(runId);
    const state = interrupted ? await board.state(runId).catch(() => ({ stop: undefined })) : await board.state(runId);
    const stored = await store.samples.tensor(runId);
    const samples = await store.samples.list(runId);
    const complete = samples.length === N * M;
    // A rule's decision (sequential, budget, fail fast), not a Ctrl-C here or elsewhere, explains the stop.
    const ruled = !interrupted && decision && state.stop?.rule === decision.rule ? decision : undefined;
    const status: RunStatus = interrupted ? 'interrupted' : complete ? 'complete' : (state.stop?.status ?? 'interrupted');
    await store.runs.setStatus(runId, status);
    const stats = computeStats(samples);
    return {
      run: (await store.runs.get(runId)) ?? run,
      status,
      tensor: stored,
      stats,
      storedByOthers: 0,
      queued,
      detached: false,
      failed: final?.failed ?? 0,
      ...(final?.error ? { firstError: final.error } : {}),
      ...(ruled && !complete ? { stopped: ruled } : {}),
    };
  } catch (err) {
    // The queue (or the store) stayed away past the bound: the run is kept, and the line says how to finish it.
    if (OutageError.isInstance(err) && run) {
      const kept = await store.runs.setStatus(run.id, 'interrupted').then(
        () => 'is kept as interrupted',
        () => 'is not finished',
      );
      const where = opts.where ?? `--queue ${opts.queue.shown}`;
      throw new QueueError(`${err.message}; run ${run.id} ${kept}: finish it with: ${assayCommandLine(`run --resume ${run.id} ${where}`)}`, { cause: err });
    }
    throw err;
  } finally {
    redis.off('error', onRedisError);
    await queue?.close().catch(() => {});
    if (!opts.redis) redis.disconnect();
  }
}

/** (i, j) → 1 where a sample is stored: any of its K cells is decided. */
function storedSamples(t: ReliabilityTensor, N: number, M: number, K: number): Uint8Array {
  const have = new Uint8Array(N * M);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < M; j++) {
      const base = t.index(i, j, 0);
      for (let k = 0; k < K; k++) {
        if (t.cells[base + k] !== Outcome.PENDING) {
          have[i * M + j] = 1;
          break;
        }
      }
    }
  }
  return have;
}
