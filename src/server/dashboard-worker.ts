/**
 * A dashboard worker thread (dashboard-pool.ts): opens the store for reading and answers the dashboard's reads
 * of runs and grades (dashboard-views.ts), keeping their summaries between reads, off the server's event loop.
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../ground/pool/serve-tasks.js';
import { lowerThreadPriority } from '../ground/pool/spawn.js';
import { openStore } from '../store/open.js';
import type { DashboardTask, DashboardWorkerData } from './dashboard-pool.js';
import { DashboardViews } from './dashboard-views.js';
import type { ViewResult } from './view-types.js';

// The main thread's I/O (other requests, /healthz, grade posts) comes before summaries when the cores are busy.
lowerThreadPriority();

serveTasks<DashboardTask, ViewResult>(async () => {
  const { location, writable } = workerData as DashboardWorkerData;
  // A small pool for PostgreSQL: the worker reads one thing at a time.
  const views = new DashboardViews(await openStore(location, { readonly: true, poolSize: 2 }), writable);
  return { info: { location }, run: (task) => views.read(task.view, task.req) };
});
