import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { Outcome } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { ProviderError } from '../providers/types.js';
import { openRun, type RunPlan, type RunProgress, type RunResult } from '../run/runner.js';
import { computeStats } from '../run/stats.js';
import { firstDecision, settledBy, type StopDecision, type StopRule } from '../run/stop.js';
import type { RunRecord, RunStatus, SampleRecord, Store } from '../store/types.js';
import { RunBoard } from './board.js';
import { connectRedis, type RedisLocation } from './connection.js';
import { QUEUE_NAME, SAMPLE_JOB_OPTIONS, sampleJobId, type SampleJob, type SampleJobResult } from './jobs.js';

export interface QueuedRunOptions {
  /** The experiment as the local runner takes it (its validators give the run's columns). */
  experiment: RunPlan;
  /** The system's id, stored with the run (the workers build the system itself). */
  systemId: string;
  store: Store;
  queue: RedisLocation;
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
 */
export async function runOnQueue(opts: QueuedRunOptions): Promise<QueuedRunResult> {
  const { store, experiment } = opts;
  const redis: Redis = await connectRedis(opts.queue);
  const connection = { url: opts.queue.url, maxRetriesPerRequest: null };
  const queue = new Queue<SampleJob, SampleJobResult>(QUEUE_NAME, { connection, prefix: opts.queue.prefix });
  let events: QueueEvents | undefined;
  try {
    const board = new RunBoard(redis, opts.queue.prefix);
    const unreachable = () => Promise.reject(new ProviderError('client', 'the system runs on the workers'));
    const run = await openRun({
      experiment,
      store,
      system: { id: opts.systemId, generate: unreachable },
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
    });
    const { N, M, K } = run;
    const discarded = opts.retryErrors && opts.runId !== undefined ? await store.discardGenerationErrors(run.id) : 0;
    const tensor = await store.loadTensor(run.id);
    const have = storedSamples(tensor, N, M, K);
    const rules = opts.stopRules ?? [];
    // Stored samples (outputs and all) are read only for rules that use them.
    const readers = rules.filter((r) => !r.ignoresResumed);
    if (readers.length && opts.runId !== undefined) for (const s of await store.listSamples(run.id)) for (const r of readers) r.observe(s, tensor, true);
    if (opts.runId !== undefined) await store.setStatus(run.id, 'running');

    // Listen before queuing, so that no stored sample goes unseen by the rules.
    const seen = new Uint8Array(N * M);
    let decision: StopDecision | undefined = firstDecision(rules);
    let settledSent = '';
    if (rules.length && !opts.detach) {
      events = new QueueEvents(QUEUE_NAME, { connection, prefix: opts.queue.prefix });
      await events.waitUntilReady();
      const prefix = `${run.id}_`;
      const settled = settledBy(rules);
      events.on('completed', ({ jobId, returnvalue }) => {
        if (!jobId.startsWith(prefix)) return;
        const r = (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as SampleJobResult;
        if (!r?.outcomes || seen[r.i * M + r.j] || have[r.i * M + r.j]) return;
        seen[r.i * M + r.j] = 1;
        for (let k = 0; k < K; k++) tensor.set(r.i, r.j, k, r.outcomes[k]);
        const s: SampleRecord = {
          i: r.i,
          j: r.j,
          outcomes: r.outcomes,
          latencyMs: r.latencyMs ?? 0,
          attempts: r.attempts ?? 1,
          ...(r.usage ? { usage: r.usage } : {}),
          ...(r.generationError !== undefined ? { generationError: r.generationError } : {}),
          ...(r.generationErrorKind ? { generationErrorKind: r.generationErrorKind } : {}),
        };
        for (const rule of rules) rule.observe(s, tensor, false);
        decision ??= firstDecision(rules);
        if (decision) board.stop(run.id, { status: decision.status, message: decision.message, rule: decision.rule }).catch(() => {}); // Redis away: the workers run on; the store is right either way
        const cols = settled ? [...Array(K).keys()].filter((k) => settled(k)) : [];
        if (cols.join() !== settledSent) {
          settledSent = cols.join();
          board.settle(run.id, cols).catch(() => {});
        }
      });
    }

    // Iteration-major, as the local runner: an interrupted run has balanced data per input.
    await board.reset(run.id);
    const pending: [number, number][] = [];
    if (!decision) for (let j = 0; j < M; j++) for (let i = 0; i < N; i++) if (!have[i * M + j]) pending.push([i, j]);
    await board.expect(
      run.id,
      pending.map(([i, j]) => i * M + j),
    );
    for (let at = 0; at < pending.length; at += BULK) {
      await queue.addBulk(
        pending
          .slice(at, at + BULK)
          .map(([i, j]) => ({ name: 'sample', data: { runId: run.id, i, j, m: M }, opts: { ...SAMPLE_JOB_OPTIONS, jobId: sampleJobId(run.id, i, j) } })),
      );
    }
    const skipped = N * M - pending.length;
    const progress: RunProgress = {
      done: 0,
      skipped,
      total: N * M,
      generationErrors: 0,
      retries: 0,
      storedByOthers: 0,
      ...(opts.retryErrors ? { discarded } : {}),
    };
    opts.onStart?.(run, { ...progress }, pending.length);
    if (opts.detach) return { run, status: 'running', tensor, stats: computeStats([]), storedByOthers: 0, queued: pending.length, detached: true, failed: 0 };

    // Wait, reading the board: resolved + failed reaching the number queued means every job is settled.
    let interrupted = false;
    let lastDone = -1;
    let idleSince = Date.now();
    let idleSaid = false;
    for (;;) {
      const c = pending.length ? await board.counts(run.id) : { target: 0, done: 0, failed: 0 };
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
      if (opts.signal?.aborted) {
        interrupted = true;
        await board.stop(run.id, { status: 'interrupted', message: 'interrupted (Ctrl-C)' });
        break;
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
    }

    const final = await board.counts(run.id);
    const state = await board.state(run.id);
    const stored = await store.loadTensor(run.id);
    const samples = await store.listSamples(run.id);
    const complete = samples.length === N * M;
    // A rule's decision (sequential, budget, fail fast), not a Ctrl-C here or elsewhere, explains the stop.
    const ruled = !interrupted && decision && state.stop?.rule === decision.rule ? decision : undefined;
    const status: RunStatus = interrupted ? 'interrupted' : complete ? 'complete' : (state.stop?.status ?? 'interrupted');
    await store.setStatus(run.id, status);
    const stats = computeStats(samples);
    return {
      run: (await store.getRun(run.id)) ?? run,
      status,
      tensor: stored,
      stats,
      storedByOthers: 0,
      queued: pending.length,
      detached: false,
      failed: final.failed,
      ...(final.error ? { firstError: final.error } : {}),
      ...(ruled && !complete ? { stopped: ruled } : {}),
    };
  } finally {
    await events?.close();
    await queue.close();
    redis.disconnect();
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
