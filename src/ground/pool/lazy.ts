import { PoolUnavailableError, WorkerPool, type PoolOptions } from './pool.js';

/** A WorkerPool started on its first task (or by warm()), so a server that never needs it starts no thread. */
export interface LazyPool<I, O> {
  /** Runs `input` (WorkerPool.run); PoolUnavailableError once closed, or when the pool cannot start. */
  run(input: I, signal?: AbortSignal): Promise<O>;
  /** Starts it now (a failed start is tried again by the next task, which then says why). */
  warm(): void;
  close(): Promise<void>;
}

export function lazyPool<I, O>(options: PoolOptions): LazyPool<I, O> {
  let started: Promise<WorkerPool<I, O>> | undefined;
  let closed = false;
  const start = () =>
    (started ??= WorkerPool.start<I, O>(options).catch((err: unknown) => {
      started = undefined; // the next task tries again
      throw err;
    }));
  return {
    async run(input, signal) {
      if (closed) throw new PoolUnavailableError('the server is shutting down');
      return (await start()).run(input, signal);
    },
    warm: () => void start().catch(() => {}),
    async close() {
      closed = true;
      const pool = await started?.catch(() => undefined);
      await pool?.close();
    },
  };
}
