import { lazyPool } from '../ground/pool/lazy.js';
import { currentAssayCommand } from '../invocation.js';
import { PoolOverloadedError, PoolUnavailableError } from '../ground/pool/pool.js';
import { spawnModuleWorker } from '../ground/pool/spawn.js';
import { jsonResult, type DashboardReader, type ViewName, type ViewRequest, type ViewResult } from './view-types.js';

/** What a dashboard worker is told once: where the store is, and whether the server takes grades. */
export interface DashboardWorkerData {
  location: string;
  writable: boolean;
  /** The command hints name (invocation.ts): set by the bin on this thread, told to the worker. */
  command: string;
}

export interface DashboardTask {
  view: ViewName;
  req: ViewRequest;
}

export interface DashboardPoolOptions {
  /** The store's location (a SQLite file, a postgres:// URL): each worker opens it for reading. */
  location: string;
  /** The server takes grades (the pages say so). */
  writable: boolean;
  /** Worker threads (default 1: one keeps one cache of summaries, and a summary is read once). */
  workers?: number;
  /** Reads that may wait for the worker; one more gets 503 with Retry-After. */
  queue?: number;
}

/**
 * The dashboard's reader on worker threads (the pool /analyze and /v1/traces use, ground/pool): each worker
 * opens the store itself and answers reads with dashboard-views.ts, so reading and summarising a run of
 * millions of grades (seconds of synchronous SQLite and arithmetic) never holds the server's event loop —
 * /healthz and the grading posts stay quick (issue 30). Started on the first read, or by warm() (the app calls
 * it, so the first page does not wait for a thread to load); a read is not cut off at a deadline, since its
 * worker's summaries are kept for the next one.
 */
export function createDashboardPool(options: DashboardPoolOptions): DashboardReader & { warm(): void } {
  const workerData: DashboardWorkerData = { location: options.location, writable: options.writable, command: currentAssayCommand() };
  const pool = lazyPool<DashboardTask, ViewResult>({
    size: options.workers ?? 1,
    queue: options.queue ?? 64,
    spawn: () => spawnModuleWorker(new URL('./dashboard-worker', import.meta.url), { workerData }),
  });
  return {
    warm: () => pool.warm(),
    async read(view, req) {
      try {
        return await pool.run({ view, req });
      } catch (err) {
        if (PoolOverloadedError.isInstance(err))
          return { ...jsonResult({ error: 'busy', message: 'the dashboard is busy with other reads; retry after 1 s' }, 503), retryAfter: 1 };
        if (PoolUnavailableError.isInstance(err))
          return {
            ...jsonResult(
              { error: 'store_unavailable', message: `the dashboard cannot read the store (${err.message.split('\n')[0].slice(0, 160)}); retry` },
              503,
            ),
            retryAfter: 5,
          };
        throw err;
      }
    },
    close: () => pool.close(),
  };
}
