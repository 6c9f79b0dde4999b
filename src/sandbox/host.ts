import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SandboxErrorKind } from './errors.js';
import { ThreadCpuClock } from './cpu-time.js';
import { CPU_KNOWN, CPU_START, DEADLINE, nowInt32, RUNNING, TID, WATCH_SLOTS, type Reply, type Request, type WorkerInit } from './protocol.js';
import type { SandboxLimits } from './types.js';

export interface HostOptions {
  stackBytes: number;
  /** V8 heap limit of the worker (the QuickJS instances live in WebAssembly memories, each capped at its function's limit). */
  workerHeapMb: number;
  /** How long past a call's deadline the watchdog waits for the interrupt handler before it terminates the worker. */
  graceMs: number;
}

/** A compiled function as the host remembers it, so a fresh worker can compile it again. */
export interface FnDef {
  id: number;
  source: string;
  limits: SandboxLimits;
}

interface Pending {
  rq: number;
  def: FnDef;
  args?: string; // absent for compile
  /** Workers that died of no known request while this one was outstanding (bounded, so a crash loop ends). */
  replays: number;
  settle(reply: Reply): void;
}

interface Live {
  worker: Worker;
  watch: Int32Array;
  known: Set<number>;
  pending: Map<number, Pending>;
  outbox: Request[];
  dead: boolean;
  /** The worker thread's CPU time, opened when the watchdog first needs it. */
  cpu?: ThreadCpuClock;
}

const WATCH_TICK_MS = 25;
const MAX_REPLAYS = 3;

/** Where the worker entry is: compiled JavaScript beside this file, or (under tsx/vitest) the TypeScript source. */
function spawnWorker(init: WorkerInit, heapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb };
  // No inherited node flags: the worker needs none, and some (--input-type, --eval) make a worker fail to start.
  const options = { workerData: init, resourceLimits, execArgv: [] };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url), options);
  // Node 20 does not apply an --import loader to a worker's entry, so register tsx's ESM hooks inside it.
  const code = `import(${JSON.stringify(tsxEsmApi())}).then(async (tsx) => { tsx.register(); await import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** tsx's ESM API module (its `import` export; the `require` one does not load inside the worker). */
function tsxEsmApi(): string {
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return new URL(pkg.exports['./esm/api'].import.default, pathToFileURL(pkgPath)).href;
}

/**
 * The host side of one sandbox worker. Requests are batched per microtask; a watchdog reads the request
 * the worker is running and its deadline from shared memory and, once deadline + grace has passed,
 * terminates the worker: that request is rejected as a timeout, a fresh worker is started and every other
 * outstanding request is replayed there (functions are recompiled lazily from their source).
 */
export class WorkerHost {
  private live?: Live;
  private nextRq = 0;
  private watchdog?: NodeJS.Timeout;
  private disposed = false;

  constructor(private readonly options: HostOptions) {}

  /** Resolves with the worker's reply (never rejects): errors travel as `{ ok: false, kind, message }`. */
  request(def: FnDef, args?: string): Promise<Reply> {
    if (this.disposed) return Promise.resolve(disposedReply(0));
    this.nextRq = (this.nextRq % 0x7ffffffe) + 1;
    const rq = this.nextRq;
    return new Promise<Reply>((settle) => this.dispatch({ rq, def, args, replays: 0, settle }));
  }

  /** The function is gone on the host: let the worker free its runtime. */
  forget(id: number): void {
    const live = this.live;
    if (!live || live.dead || !live.known.has(id)) return;
    live.known.delete(id);
    this.post(live, { op: 'forget', fn: id });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const live = this.live;
    this.live = undefined;
    this.stopWatchdog();
    if (!live) return;
    live.dead = true;
    live.cpu?.close();
    void live.worker.terminate();
    for (const p of live.pending.values()) p.settle(disposedReply(p.rq));
    live.pending.clear();
  }

  private dispatch(p: Pending): void {
    const live = this.ensureLive();
    if (live.pending.size === 0) live.worker.ref(); // outstanding work keeps the process alive, idle workers do not
    live.pending.set(p.rq, p);
    if (!live.known.has(p.def.id)) {
      live.known.add(p.def.id);
      this.post(live, { op: 'define', fn: p.def.id, source: p.def.source, limits: p.def.limits });
    }
    this.post(live, p.args === undefined ? { op: 'compile', rq: p.rq, fn: p.def.id } : { op: 'call', rq: p.rq, fn: p.def.id, args: p.args });
    this.startWatchdog();
  }

  private post(live: Live, req: Request): void {
    live.outbox.push(req);
    if (live.outbox.length === 1) queueMicrotask(() => this.flush(live));
  }

  private flush(live: Live): void {
    if (live.dead || live.outbox.length === 0) return;
    live.worker.postMessage(live.outbox);
    live.outbox = [];
  }

  private ensureLive(): Live {
    if (this.live && !this.live.dead) return this.live;
    const watch = new SharedArrayBuffer(WATCH_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const worker = spawnWorker({ watch, stackBytes: this.options.stackBytes }, this.options.workerHeapMb);
    const live: Live = { worker, watch: new Int32Array(watch), known: new Set(), pending: new Map(), outbox: [], dead: false };
    worker.unref();
    worker.on('message', (replies: Reply[]) => this.onReplies(live, replies));
    worker.on('error', (err: Error) => this.retire(live, undefined, 'memory', `sandbox worker crashed: ${err.message}`));
    worker.on('exit', (code: number) => this.retire(live, undefined, 'memory', `sandbox worker exited with code ${code}`));
    this.live = live;
    return live;
  }

  private onReplies(live: Live, replies: Reply[]): void {
    if (live.dead) return; // this worker was retired; its outstanding requests were replayed elsewhere
    for (const reply of replies) {
      const p = live.pending.get(reply.rq);
      if (!p) continue;
      live.pending.delete(reply.rq);
      p.settle(reply);
    }
    this.idleCheck(live);
  }

  private idleCheck(live: Live): void {
    if (live.pending.size > 0 || live.dead) return;
    live.worker.unref();
    this.stopWatchdog();
  }

  /**
   * Ends a worker. The request that killed it (given, or read from shared memory) is rejected with `kind`
   * if still outstanding; the others never ran to completion there and are replayed on a fresh worker.
   */
  private retire(live: Live, culprit: number | undefined, kind: SandboxErrorKind, message: string): void {
    if (live.dead) return;
    live.dead = true;
    if (this.live === live) this.live = undefined;
    const running = culprit ?? Atomics.load(live.watch, RUNNING);
    live.cpu?.close();
    void live.worker.terminate();
    const pending = [...live.pending.values()];
    live.pending.clear();
    if (pending.length === 0) this.stopWatchdog();
    // With the culprit known the others are innocent, and each death removes one culprit: replay them freely.
    const unexplained = culprit === undefined && !pending.some((p) => p.rq === running);
    for (const p of pending) {
      if (p.rq === running) p.settle({ rq: p.rq, ok: false, kind, message: kind === 'timeout' ? `timed out after ${p.def.limits.timeoutMs} ms` : message });
      else if (this.disposed) p.settle(disposedReply(p.rq));
      else if (unexplained && ++p.replays > MAX_REPLAYS)
        p.settle({ rq: p.rq, ok: false, kind: 'crashed', message: `${message} (gave up after ${MAX_REPLAYS} fresh workers)` });
      else this.dispatch(p);
    }
  }

  private startWatchdog(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => this.check(), WATCH_TICK_MS);
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  /**
   * Terminates the worker when the request it is running is past its deadline by more than the grace: on the
   * wall clock, and — where the worker thread's CPU time can be read — in CPU time too, so that a thread kept
   * waiting for a core on a loaded machine is not held to account for the wait.
   */
  private check(): void {
    const live = this.live;
    if (!live || live.dead) return this.stopWatchdog();
    const rq = Atomics.load(live.watch, RUNNING);
    const deadline = Atomics.load(live.watch, DEADLINE);
    const cpuKnown = Atomics.load(live.watch, CPU_KNOWN) === 1;
    const cpuStart = Atomics.load(live.watch, CPU_START);
    if (rq === 0 || Atomics.load(live.watch, RUNNING) !== rq) return;
    if (((nowInt32() - deadline) | 0) <= this.options.graceMs) return;
    const limit = live.pending.get(rq)?.def.limits.timeoutMs;
    const tid = Atomics.load(live.watch, TID);
    if (cpuKnown && tid > 0 && limit !== undefined) {
      live.cpu ??= new ThreadCpuClock(tid);
      const cpu = live.cpu.ms();
      if (cpu !== undefined && ((Math.floor(cpu) - cpuStart) | 0) <= limit + this.options.graceMs) return;
    }
    this.retire(live, rq, 'timeout', 'timed out');
  }
}

const disposedReply = (rq: number): Reply => ({ rq, ok: false, kind: 'disposed', message: 'the sandbox has been disposed' });
