import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Outcome } from '../core/outcome.js';
import { AssayError, ExitCode, UsageError } from '../errors.js';
import { DEFAULT_OUTAGE_MS, ignore, Outage, type OutageError, type Ride } from '../store/outage.js';
import { executeSample } from '../run/sample.js';
import { createSandbox } from '../sandbox/index.js';
import { DuplicateSampleError } from '../store/errors.js';
import type { RunStatus, SampleRecord, Store } from '../store/types.js';
import { evaluateValidator } from '../validators/evaluate.js';
import { RunBoard, type BoardStop } from './board.js';
import { bullConnection, closeAtOnce, connectRedis, redisLost, redisReason, redisRefused, type RedisLocation } from './connection.js';
import { runContext, type RunContext } from './experiment.js';
import { CallJournal, journalSample } from './journal.js';
import { QUEUE_NAME, type SampleJob, type SampleJobResult } from './jobs.js';
import { redisLimiters } from './limiter.js';

export interface SampleWorkerOptions {
  queue: RedisLocation;
  /** The store the runs live in: the same one the runs were queued with. */
  store: Store;
  /** Sample jobs this worker runs at once. */
  concurrency: number;
  /** How long a job's lock lasts without renewal (default 30 s): a dead worker's jobs go back to the queue after about this long. */
  lockDurationMs?: number;
  /** One line per notable event (a run taken up, a job that failed). */
  log?: (line: string) => void;
  /** The store as messages name it (a URL without its password): a job of a run that is not in it says where the worker looked. */
  storeShown?: string;
  /** A client already connected to the queue (connectRedis), which close() disconnects: `assay worker` connects before it opens the store. */
  redis?: Redis;
  /** How long a lost queue is waited for (ms, default 60 s): past it `onFatal` is called. The store rides out its own (openStore's `outage`). */
  outageMs?: number;
  /** The queue stayed away past the bound (or refused us): the worker cannot go on; `assay worker` exits 3. */
  onFatal?: (err: OutageError) => void;
}

export interface SampleWorker {
  /** Samples this worker stored (not those it found stored or skipped). */
  readonly stored: number;
  /** Stop taking jobs and let the running ones finish (`force`: abandon them; the queue gives them to another worker). */
  close(force?: boolean): Promise<void>;
}

/** How long a run's stop state read from the board is used before it is read again (ms). */
const STATE_MS = 250;
/** Runs whose context is kept (system, sandbox, judges) between jobs. */
const KEPT_RUNS = 8;
/** The worker asks Redis whether it is there this often (ms): a lost queue is said once, even while no job is in hand. */
const HEARTBEAT_MS = 1000;

/**
 * `assay worker`: takes sample jobs of any run from the queue, runs each sample exactly as a local run
 * does (run/sample.ts) with the system and validators built from the run's stored config, and stores it.
 * A sample is stored once whatever happens: a job whose sample is already stored (a retried or recovered
 * job) keeps that one, and of two writers of one sample the store accepts exactly one.
 */
export async function startSampleWorker(opts: SampleWorkerOptions): Promise<SampleWorker> {
  const { store, queue } = opts;
  const log = opts.log ?? (() => {});
  // Every paid call is recorded in the store as it is made: a sample run again (its job re-queued after Redis lost
  // it, or retried) reuses them instead of paying again, and waits for those still in flight (journal.ts).
  const journal = new CallJournal(store.cache, { worker: randomUUID() });
  await journal.start();
  const redis: Redis = opts.redis ?? (await connectRedis(queue));
  const outage = new Outage(`the queue at ${queue.shown}`, {
    boundMs: opts.outageMs ?? DEFAULT_OUTAGE_MS,
    log,
    retryable: redisLost,
    describe: redisReason(redis),
    onGiveUp: (err) => opts.onFatal?.(err),
  });
  const ride: Ride = (fn) => outage.ride(fn);
  const board = new RunBoard(redis, queue.prefix, ride);
  // A Redis that comes back wanting a password it did not want before: no wait mends that.
  redis.on('error', (err: Error) => {
    if (redisRefused(err)) ignore(() => outage.refuse(err));
  });
  /** Kinds of BullMQ errors already logged (see worker.on('error') below). */
  const errorsSaid = new Set<string>();
  // The heartbeat: one line when the queue is lost and one when it is back, whether or not a job needs it meanwhile.
  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating) return;
    beating = true;
    // Watched: a Redis that keeps the connection and answers nothing is said after a few seconds, not at the command timeout.
    outage
      .watched(() => redis.ping())
      .then(
        () => outage.back(),
        (err: unknown) => {
          errorsSaid.delete('lost job'); // each outage may lose jobs in hand: say so once after each
          ignore(() => (redisRefused(err) ? outage.refuse(err) : redisLost(err) ? outage.lost(err) : undefined));
        },
      )
      .finally(() => (beating = false));
  }, HEARTBEAT_MS);
  const contexts = new Map<string, { ctx: Promise<RunContext>; inUse: number }>();
  const shutdown = new AbortController();
  // One sandbox for every run this worker takes up: its threads start once, not once per run.
  const sandbox = createSandbox();
  let stored = 0;

  async function contextFor(runId: string): Promise<{ ctx: RunContext; release: () => void }> {
    let entry = contexts.get(runId);
    if (!entry) {
      const ctx = (async () => {
        const run = await store.runs.get(runId);
        // Queued from another store (a different --store, ASSAY_STORE or schema on the same Redis prefix).
        if (!run)
          throw new UsageError(
            `run ${runId} is not in this worker's store${opts.storeShown ? ` (${opts.storeShown})` : ''}: a worker must use the store the run was queued with (--store or ASSAY_STORE, schema included)`,
          );
        const c = await runContext(run, redisLimiters(redis, queue.prefix, runId, ride), { sandbox }, store.cache);
        log(`run ${run.id} (${run.name}): ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${c.system.id}`);
        return c;
      })();
      entry = { ctx, inUse: 0 };
      contexts.set(runId, entry);
      evict();
    }
    const e = entry;
    e.inUse++;
    try {
      return { ctx: await e.ctx, release: () => e.inUse-- };
    } catch (err) {
      e.inUse--;
      // A store that was unreachable may answer next time; a config that cannot be built will not.
      if (!(AssayError.isInstance(err) && err.exitCode === ExitCode.USAGE)) contexts.delete(runId);
      throw err;
    }
  }

  function evict(): void {
    for (const [id, e] of contexts) {
      if (contexts.size <= KEPT_RUNS) return;
      if (e.inUse > 0) continue;
      contexts.delete(id);
      e.ctx.then((c) => c.dispose()).catch(() => {});
    }
  }

  /** Once every queued job of a run is resolved, the run's status says how it ended (also when nobody waits: --detach). */
  async function finishIfDone(runId: string, counts: { done: number; target: number; failed: number }): Promise<void> {
    if (counts.target === 0 || counts.done + counts.failed < counts.target) return;
    const run = await store.runs.get(runId);
    if (!run || run.status !== 'running') return;
    const state = await board.state(runId);
    const t = await store.samples.tensor(runId);
    let have = 0;
    for (let x = 0; x < run.N * run.M; x++) {
      for (let k = 0; k < run.K; k++) {
        if (t.cells[x * run.K + k] !== Outcome.PENDING) {
          have++;
          break;
        }
      }
    }
    const status: RunStatus = state.stop?.status ?? (have === run.N * run.M ? 'complete' : 'interrupted');
    await store.runs.setStatus(runId, status);
  }

  // A run's stop and settled columns, read at most every STATE_MS per run: they change once in a run's life,
  // and a job started just after a stop is merely stored, not wrong.
  const states = new Map<string, { at: number; state: Promise<{ stop?: BoardStop; settled: number[] }> }>();
  const runState = (runId: string) => {
    let s = states.get(runId);
    if (!s || performance.now() - s.at > STATE_MS) {
      s = { at: performance.now(), state: board.state(runId) };
      s.state.catch(() => states.delete(runId));
      states.set(runId, s);
    }
    return s.state;
  };

  const processor = async (job: Job<SampleJob, SampleJobResult>): Promise<SampleJobResult> => {
    const { runId, i, j } = job.data;
    let held: { ctx: RunContext; release: () => void };
    try {
      held = await contextFor(runId);
    } catch (err) {
      // A run this worker cannot build (unknown id, a config it cannot load) will not get better by retrying.
      if (AssayError.isInstance(err) && err.exitCode === ExitCode.USAGE) throw new UnrecoverableError(err.message);
      throw err;
    }
    try {
      const { run, system, validators, experiment } = held.ctx;
      if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= run.N || j >= run.M)
        throw new UnrecoverableError(`run ${runId}: no sample (${i}, ${j}) in a ${run.N} × ${run.M} run`);
      const index = i * run.M + j;
      const state = await runState(runId);
      let result: SampleJobResult;
      if (state.stop) {
        result = { i, j, by: 'skipped' };
      } else {
        // A job started before (its worker died, or it threw) or queued again after Redis lost it may have stored its
        // sample already (or be storing it now): keep that one.
        const again = job.attemptsStarted > 1 || job.data.again === true;
        const already = again ? await store.samples.get(runId, i, j) : undefined;
        if (already) result = summary(already, 'theirs');
        else {
          const settled = new Set(state.settled);
          const journaled = journalSample(
            journal,
            { system, evaluate: evaluateValidator },
            { runId, i, j, validators, timeoutMs: experiment.timeoutMs, ...(again ? { stored: () => store.samples.get(runId, i, j) } : {}) },
          );
          const ctx = {
            system: journaled.system,
            validators,
            evaluate: journaled.evaluate,
            timeoutMs: experiment.timeoutMs,
            retry: {},
            signal: shutdown.signal,
          };
          const s = await executeSample(ctx, run.inputs[i], i, j, settled.size ? { skip: (k) => settled.has(k) } : {});
          if (!s) throw new Error('the worker stopped before the sample finished'); // the job goes back to the queue
          result = await record(runId, s);
          // The stored sample is the record now; entries left by a failure here are only dead weight in the cache table.
          await journal.forget(journaled.keys).catch(() => {});
        }
      }
      await finishIfDone(runId, await board.mark(runId, index, result));
      return result;
    } finally {
      held.release();
    }
  };

  async function record(runId: string, s: SampleRecord): Promise<SampleJobResult> {
    try {
      await store.samples.record(runId, s);
      stored++;
      return summary(s, 'stored');
    } catch (err) {
      if (!DuplicateSampleError.isInstance(err)) throw err;
      const theirs = await store.samples.get(runId, s.i, s.j);
      return summary(theirs ?? s, 'theirs');
    }
  }

  const lockDuration = opts.lockDurationMs ?? 30_000;
  const worker = new Worker<SampleJob, SampleJobResult>(QUEUE_NAME, processor, {
    connection: bullConnection(queue),
    // After a lost connection BullMQ waits this long before it asks for jobs again (its default is 15 s).
    runRetryDelay: 1000,
    prefix: queue.prefix,
    concurrency: opts.concurrency,
    lockDuration,
    stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
    // A job whose worker died goes back to the queue, however often that happens: losing a sample is worse.
    maxStalledCount: 1000,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
  });
  // A lost connection is the heartbeat's to report, once; any other error once per kind, not once per job.
  worker.on('error', (err) => {
    if (redisLost(err) || redisRefused(err)) return;
    const lost = /^Missing (key|lock) for job/.test(err.message);
    // One kind per message with its job ids taken out; a job the queue no longer has is one kind whatever step found it.
    const kind = lost ? 'lost job' : err.message.replace(/job \S+/g, 'job …');
    if (errorsSaid.has(kind)) return;
    errorsSaid.add(kind);
    const why = lost
      ? '; the queue no longer has a job this worker held (Redis restarted without its data, or the job went to another worker while Redis was away): its sample is stored, or queued again by the waiting assay run'
      : '';
    log(`queue error: ${err.message}${why}; more like it are not logged`);
  });
  // One line per run and cause: a run this worker cannot build fails all its jobs the same way.
  const said = new Map<string, Set<string>>();
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    const causes = said.get(job.data.runId) ?? new Set<string>();
    const cause = `${final}:${err.message}`;
    if (!causes.has(cause)) {
      causes.add(cause);
      said.set(job.data.runId, causes);
      if (said.size > KEPT_RUNS * 8) said.delete(said.keys().next().value!);
      log(
        `sample (${job.data.i}, ${job.data.j}) of run ${job.data.runId} failed${final ? '' : `, will be retried (attempt ${job.attemptsMade})`}: ${err.message} (other samples of this run failing so are not logged)`,
      );
    }
    if (!final) return;
    void board
      .fail(job.data.runId, job.data.i * job.data.m + job.data.j, err.message)
      .then(() => board.counts(job.data.runId))
      .then((c) => finishIfDone(job.data.runId, c))
      .catch((e: unknown) => log(`could not record the failure of run ${job.data.runId}: ${(e as Error).message}`));
  });
  await worker.waitUntilReady();

  return {
    get stored() {
      return stored;
    },
    async close(force = false) {
      clearInterval(heartbeat);
      if (force) shutdown.abort();
      // With the queue away the jobs in hand cannot be handed back: they are left, their locks expire and another worker takes them.
      if (outage.down || outage.failure) await closeAtOnce(worker);
      else await worker.close(force);
      for (const e of contexts.values()) await e.ctx.then((c) => c.dispose()).catch(() => {});
      contexts.clear();
      sandbox.dispose();
      await journal.close();
      redis.disconnect();
    },
  };
}

function summary(s: SampleRecord, by: SampleJobResult['by']): SampleJobResult {
  return {
    i: s.i,
    j: s.j,
    by,
    outcomes: s.outcomes,
    attempts: s.attempts,
    latencyMs: s.latencyMs,
    ...(s.usage ? { usage: s.usage } : {}),
    ...(s.generationError !== undefined ? { generationError: s.generationError } : {}),
    ...(s.generationErrorKind !== undefined ? { generationErrorKind: s.generationErrorKind } : {}),
  };
}
