/**
 * A dashboard worker thread (dashboard-pool.ts): opens the store for reading and answers the dashboard's reads
 * of runs and grades (dashboard-views.ts), keeping their summaries between reads, off the server's event loop.
 */
import { workerData } from 'node:worker_threads';
import { serveTasks } from '../ground/pool/serve-tasks.js';
import { setAssayCommand } from '../invocation.js';
import { loadChartLibraries } from '../report/charts.js';
import { openStore } from '../store/open.js';
import type { DashboardTask, DashboardWorkerData } from './dashboard-pool.js';
import { DashboardViews } from './dashboard-views.js';
import type { ViewResult } from './view-types.js';

// Not lowered in priority as /analyze's workers are: people wait for these pages, and on a busy machine a lowered
// thread waits behind every other process (a 1M-grade run page took 83 s instead of 28 s at load 17). The
// event loop stays quick without it: it is another thread, mostly asleep, woken first when a request comes.

serveTasks<DashboardTask, ViewResult>(async () => {
  const { location, writable, command } = workerData as DashboardWorkerData;
  setAssayCommand(command); // the pages' hints name the command the user started assay with, as on the main thread
  // A small pool for PostgreSQL: the worker reads one thing at a time.
  const views = new DashboardViews(await openStore(location, { readonly: true, poolSize: 2 }), writable);
  // The server warms this thread at start: the first run page then does not wait for the chart libraries to load.
  loadChartLibraries();
  return { info: { location }, run: (task) => views.read(task.view, task.req) };
});
