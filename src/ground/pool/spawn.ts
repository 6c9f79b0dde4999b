import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `entry` (a URL relative to the caller, without extension), in either
 * layout: compiled JavaScript (`dist/`, `entry.js`) or the TypeScript sources under tsx or vitest
 * (`entry.ts`). Node 20 applies no --import loader to a worker's entry, so in the source layout the worker
 * registers tsx's ESM hooks itself before importing the entry (as src/sandbox does).
 */
export function spawnModuleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  // No inherited node flags: the worker needs none, and some (--input-type, --eval) make a worker fail to start.
  const opts: WorkerOptions = { execArgv: [], ...options };
  const source = entry.href.replace(/\.(js|ts)$/, '');
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`${source}.js`), opts);
  const code = `import(${JSON.stringify(tsxEsmApi())}).then(async (tsx) => { tsx.register(); await import(${JSON.stringify(`${source}.ts`)}); });`;
  return new Worker(code, { ...opts, eval: true });
}

/** tsx's ESM API module (its `import` export; the `require` one does not load inside the worker). */
function tsxEsmApi(): string {
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return new URL(pkg.exports['./esm/api'].import.default, pathToFileURL(pkgPath)).href;
}

/**
 * Lowers the CPU priority of the calling thread (a worker) by `by` nice levels, so that under load the main
 * thread — a server's I/O, /healthz — is scheduled before the analyses. Linux only (a thread's id is read from
 * /proc/thread-self, and setpriority on a thread id applies to that thread alone); elsewhere it does nothing.
 * Returns whether it did.
 */
export function lowerThreadPriority(by = 10): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, getPriority(tid) + by));
    return true;
  } catch {
    return false; // not permitted, or no /proc: the worker runs at the process's priority
  }
}
