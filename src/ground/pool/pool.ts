import type { Worker } from 'node:worker_threads';
import { ArgumentError, AssayError, ExitCode, hasMarker, setMarker } from '../../errors.js';
import { toWire, type FromWorker, type Reply, type ToWorker, type WireError } from './protocol.js';

/**
 * A fixed number of worker threads in front of a bounded queue, for CPU work whose cost depends on its input.
 * A task runs on one worker, alone. When the caller's signal aborts (its deadline passed, its client left),
 * a waiting task leaves the queue and a running task's worker is terminated — whatever it is doing, a regular
 * expression included — and replaced by a fresh one; so no task holds a thread past its deadline. A worker
 * that dies (out of memory, an uncaught error) fails its task with WorkerCrashedError and is replaced too.
 */
export interface PoolOptions {
  /** Worker threads (each loads its own state once). */
  size: number;
  /** Tasks that may wait for a free worker; one more is refused with PoolOverloadedError. */
  queue: number;
  /** Starts one worker thread (see spawn.ts); it must speak protocol.ts. */
  spawn: () => Worker;
  /** A worker that has not said it is ready within this time is a failed start (default 300 s). */
  startTimeoutMs?: number;
  /** Told of each worker that became ready, with what it reported (e.g. which KB it loaded). */
  onReady?: (info: unknown) => void;
  /** Told when a replacement worker could not start (the pool retries, backing off up to 30 s). */
  onStartFailure?: (error: WireError) => void;
  /**
   * Answers a running task's `tools.call` (serve-tasks.ts) on this thread: I/O the worker hands back, such as an
   * LLM call. Its signal aborts when the task ends (done, aborted, its worker gone); a late answer is dropped.
   */
  onCall?: (input: unknown, signal: AbortSignal) => Promise<unknown>;
}

export interface PoolStats {
  size: number;
  /** Workers loaded and waiting for a task. */
  idle: number;
  busy: number;
  starting: number;
  queued: number;
  /** Workers started since the pool was created, replacements included. */
  started: number;
  /** Workers terminated because their task's signal aborted (deadline, client gone). */
  terminated: number;
  /** Workers that died by themselves (out of memory, uncaught error, exit). */
  crashed: number;
}

const POOL_OVERLOADED_ERROR = Symbol.for('assay.PoolOverloadedError');

/** The queue is full: retry shortly (HTTP 503 with Retry-After). */
export class PoolOverloadedError extends AssayError {
  constructor(message: string) {
    super(message, ExitCode.INTERNAL);
    this.name = 'PoolOverloadedError';
    setMarker(this, POOL_OVERLOADED_ERROR);
  }

  static override isInstance(err: unknown): err is PoolOverloadedError {
    return hasMarker(err, POOL_OVERLOADED_ERROR);
  }
}

const WORKER_CRASHED_ERROR = Symbol.for('assay.WorkerCrashedError');

/** The worker running the task died (out of memory, an uncaught error); it has been replaced. */
export class WorkerCrashedError extends AssayError {
  constructor(
    message: string,
    readonly outOfMemory: boolean,
  ) {
    super(message, ExitCode.INTERNAL);
    this.name = 'WorkerCrashedError';
    setMarker(this, WORKER_CRASHED_ERROR);
  }

  static override isInstance(err: unknown): err is WorkerCrashedError {
    return hasMarker(err, WORKER_CRASHED_ERROR);
  }
}

const POOL_UNAVAILABLE_ERROR = Symbol.for('assay.PoolUnavailableError');

/** No worker can start now (its state failed to load): the message says why. */
export class PoolUnavailableError extends AssayError {
  constructor(
    message: string,
    readonly error?: WireError,
  ) {
    super(message, ExitCode.INTERNAL);
    this.name = 'PoolUnavailableError';
    setMarker(this, POOL_UNAVAILABLE_ERROR);
  }

  static override isInstance(err: unknown): err is PoolUnavailableError {
    return hasMarker(err, POOL_UNAVAILABLE_ERROR);
  }
}

const TASK_FAILED_ERROR = Symbol.for('assay.TaskFailedError');

/** The task ran and failed inside the worker; `error` is what it threw, as it crossed the thread boundary. */
export class TaskFailedError extends AssayError {
  constructor(readonly error: WireError) {
    // Exit 3 should one reach the top: the caller (grounding.ts) maps the engine's own errors back to theirs.
    super(error.message, ExitCode.INTERNAL);
    this.name = 'TaskFailedError';
    setMarker(this, TASK_FAILED_ERROR);
  }

  static override isInstance(err: unknown): err is TaskFailedError {
    return hasMarker(err, TASK_FAILED_ERROR);
  }
}

interface Task {
  id: number;
  input: unknown;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Aborts the task's calls on this thread (onCall) when it ends. */
  calls?: AbortController;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  task?: Task;
  startTimer?: NodeJS.Timeout;
}

const MAX_BACKOFF_MS = 30_000;

export class WorkerPool<I, O> {
  private readonly slots = new Set<Slot>();
  private readonly waiting: Task[] = [];
  private nextId = 0;
  private closed = false;
  private counts = { started: 0, terminated: 0, crashed: 0 };
  /** The last failed start, while no worker has started since: new tasks are refused with it. */
  private startFailure?: WireError;
  private backoffMs = 0;
  private retry?: NodeJS.Timeout;
  private firstStart?: { resolve(): void; reject(err: WireError): void; pending: number };

  private constructor(private readonly options: PoolOptions) {}

  /** Starts `size` workers; resolves once every one is ready, rejects (stopping them all) if one cannot load. */
  static async start<I, O>(options: PoolOptions): Promise<WorkerPool<I, O>> {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new ArgumentError(`pool size must be a whole number ≥ 1, got ${options.size}`, { key: 'size' });
    if (!Number.isInteger(options.queue) || options.queue < 0)
      throw new ArgumentError(`pool queue must be a whole number ≥ 0, got ${options.queue}`, { key: 'queue' });
    const pool = new WorkerPool<I, O>(options);
    try {
      await new Promise<void>((resolve, reject) => {
        pool.firstStart = { resolve, reject, pending: options.size };
        for (let i = 0; i < options.size; i++) pool.spawn();
      });
    } catch (err) {
      await pool.close();
      const e = err as WireError;
      throw new PoolUnavailableError(e.message, e);
    } finally {
      pool.firstStart = undefined;
    }
    return pool;
  }

  /** Runs `input` on the next free worker. Rejects with the signal's reason when it aborts first. */
  run(input: I, signal?: AbortSignal): Promise<O> {
    if (this.closed) return Promise.reject(new PoolUnavailableError('the worker pool has been closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.startFailure && !this.anyLive()) return Promise.reject(this.unavailable());
    const idle = this.find('idle');
    if (!idle && this.waiting.length >= this.options.queue) {
      const busy = this.count('busy');
      return Promise.reject(new PoolOverloadedError(`all ${busy} analysis workers are busy and ${this.waiting.length} requests are waiting; retry shortly`));
    }
    return new Promise<O>((resolve, reject) => {
      const task: Task = { id: ++this.nextId, input, signal, resolve: resolve as (v: unknown) => void, reject };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      if (idle) this.dispatch(idle, task);
      else this.waiting.push(task);
    });
  }

  stats(): PoolStats {
    return {
      size: this.options.size,
      idle: this.count('idle'),
      busy: this.count('busy'),
      starting: this.count('starting'),
      queued: this.waiting.length,
      ...this.counts,
    };
  }

  /** Terminates every worker; waiting and running tasks are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const gone = new PoolUnavailableError('the worker pool has been closed');
    for (const t of this.waiting.splice(0)) this.settle(t, undefined, gone);
    const workers: Promise<number>[] = [];
    for (const slot of [...this.slots]) {
      if (slot.task) this.settle(slot.task, undefined, gone);
      workers.push(this.retire(slot));
    }
    await Promise.all(workers);
  }

  private spawn(): void {
    if (this.closed) return;
    const worker = this.options.spawn();
    const slot: Slot = { worker, state: 'starting' };
    this.slots.add(slot);
    this.counts.started++;
    slot.startTimer = setTimeout(() => {
      const ms = this.options.startTimeoutMs ?? 300_000;
      this.startFailed(slot, { name: 'Error', message: `a worker did not finish loading within ${ms / 1000} s` });
    }, this.options.startTimeoutMs ?? 300_000);
    slot.startTimer.unref();
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', (err: Error & { code?: string }) => this.onDeath(slot, err));
    worker.on('exit', (code: number) => this.onDeath(slot, undefined, code));
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (slot.state === 'dead') return;
    if (m.type === 'ready') {
      clearTimeout(slot.startTimer);
      slot.state = 'idle';
      this.startFailure = undefined;
      this.backoffMs = 0;
      this.options.onReady?.(m.info);
      if (this.firstStart && --this.firstStart.pending === 0) this.firstStart.resolve();
      this.next(slot);
    } else if (m.type === 'failed') {
      this.startFailed(slot, m.error);
    } else if (m.type === 'done' && slot.task?.id === m.id) {
      const task = slot.task;
      slot.task = undefined;
      slot.state = 'idle';
      if (m.ok) this.settle(task, m.value);
      else this.settle(task, undefined, new TaskFailedError(m.error));
      this.next(slot);
    } else if (m.type === 'call' && slot.task?.id === m.id) {
      this.answerCall(slot, slot.task, m.call, m.input);
    }
  }

  /** A running task asked this thread for work (onCall): answer its worker, unless the task ended meanwhile. */
  private answerCall(slot: Slot, task: Task, call: number, input: unknown): void {
    const calls = (task.calls ??= new AbortController());
    const signal = task.signal ? AbortSignal.any([task.signal, calls.signal]) : calls.signal;
    const handler = this.options.onCall;
    const work = handler ? Promise.resolve().then(() => handler(input, signal)) : Promise.reject(new Error('this pool answers no calls from its workers'));
    void work
      .then(
        (value): Reply => ({ reply: call, ok: true, value }),
        (err: unknown): Reply => ({ reply: call, ok: false, error: toWire(err) }),
      )
      .then((reply) => {
        if (slot.task !== task || slot.state === 'dead') return;
        try {
          slot.worker.postMessage(reply);
        } catch (err) {
          slot.worker.postMessage({ reply: call, ok: false, error: toWire(err) } satisfies Reply); // a value that cannot be cloned
        }
      });
  }

  /** A worker died by itself: its task (if any) fails, a replacement starts. */
  private onDeath(slot: Slot, err?: Error & { code?: string }, code?: number): void {
    if (slot.state === 'dead') return;
    if (slot.state === 'starting') {
      this.startFailed(slot, { name: err?.name ?? 'Error', message: err ? err.message : `the worker exited with code ${code} while loading` });
      return;
    }
    this.counts.crashed++;
    const task = slot.task;
    void this.retire(slot);
    if (task) {
      const oom = err?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const why = oom ? 'ran out of memory' : err ? `failed (${err.message})` : `exited with code ${code}`;
      this.settle(task, undefined, new WorkerCrashedError(`the worker running this task ${why}; it has been replaced`, oom));
    }
    this.spawn();
  }

  private startFailed(slot: Slot, error: WireError): void {
    if (slot.state === 'dead') return;
    void this.retire(slot);
    if (this.firstStart) {
      this.firstStart.reject(error);
      return;
    }
    this.startFailure = error;
    this.options.onStartFailure?.(error);
    // Nothing left to run the waiting tasks: tell them now rather than at their deadlines.
    if (!this.anyLive()) for (const t of this.waiting.splice(0)) this.settle(t, undefined, this.unavailable());
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 1000);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.refill(), this.backoffMs);
    this.retry.unref();
  }

  /** Starts workers until there are `size` again (after failed starts). */
  private refill(): void {
    for (let n = this.slots.size; n < this.options.size; n++) this.spawn();
  }

  private abort(task: Task): void {
    const queued = this.waiting.indexOf(task);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.settle(task, undefined, task.signal?.reason);
      return;
    }
    const slot = [...this.slots].find((s) => s.task === task);
    if (!slot) return;
    // The task may be deep in synchronous code: only terminating its thread stops it.
    this.counts.terminated++;
    void this.retire(slot);
    this.settle(task, undefined, task.signal?.reason);
    this.spawn();
  }

  private dispatch(slot: Slot, task: Task): void {
    slot.state = 'busy';
    slot.task = task;
    slot.worker.ref(); // a running task keeps the process alive; idle workers do not
    try {
      slot.worker.postMessage({ id: task.id, input: task.input } satisfies ToWorker);
    } catch (err) {
      // The input cannot be cloned: the caller's mistake, not the worker's.
      slot.task = undefined;
      slot.state = 'idle';
      this.settle(task, undefined, err);
      this.next(slot);
    }
  }

  private next(slot: Slot): void {
    const task = this.waiting.shift();
    if (task) this.dispatch(slot, task);
    else slot.worker.unref();
  }

  private settle(task: Task, value: unknown, err?: unknown): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    task.calls?.abort(new Error('the task ended'));
    if (err !== undefined) task.reject(err);
    else task.resolve(value);
  }

  private retire(slot: Slot): Promise<number> {
    slot.state = 'dead';
    slot.task = undefined;
    clearTimeout(slot.startTimer);
    this.slots.delete(slot);
    return slot.worker.terminate().catch(() => 0);
  }

  private find(state: Slot['state']): Slot | undefined {
    for (const s of this.slots) if (s.state === state) return s;
    return undefined;
  }

  private count(state: Slot['state']): number {
    let n = 0;
    for (const s of this.slots) if (s.state === state) n++;
    return n;
  }

  /** A worker that is running or ready, or still loading (which may yet succeed). */
  private anyLive(): boolean {
    for (const s of this.slots) if (s.state !== 'dead') return true;
    return false;
  }

  private unavailable(): PoolUnavailableError {
    return new PoolUnavailableError(`no worker can start: ${this.startFailure?.message ?? 'unknown reason'}`, this.startFailure);
  }
}
