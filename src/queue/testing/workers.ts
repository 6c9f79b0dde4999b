import { spawn, type ChildProcess } from 'node:child_process';
import { cliCommand } from '../../cli/testing/process.js';

/** An `assay worker` in a child process, as a user starts one (tests and benchmarks only). */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote to stderr so far. */
  log(): string;
  /** Resolves once it has said it is taking jobs. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnWorker(args: string[], env: NodeJS.ProcessEnv = process.env, entry = cliCommand()): WorkerProcess {
  const child = spawn(process.execPath, [...entry, 'worker', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.includes('taking sample jobs')) onReady();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const readyOrExited = Promise.race([ready, exited.then(() => Promise.reject(new Error(`the worker exited before it was ready: ${err}`)))]);
  readyOrExited.catch(() => {}); // a worker killed on purpose before it was ready is not an error unless awaited
  return { child, log: () => err, ready: readyOrExited, exited };
}

/** Kill (SIGKILL) the workers of `workers` still running, wait for each to exit, and empty the list (after each test). */
export async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.exited;
  }
}

/** The most arrivals (ms timestamps) in any window of `windowMs`, sliding over the arrivals. */
export function maxInWindow(arrivals: number[], windowMs = 1000): number {
  const t = [...arrivals].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = 0; hi < t.length; hi++) {
    while (t[hi] - t[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
