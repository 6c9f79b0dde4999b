/**
 * The sandbox worker: hosts the QuickJS runtimes of one QuickJSSandbox on its own thread, so the host can
 * terminate() it when guest code overruns its deadline inside a long native operation (where the QuickJS
 * interrupt handler never runs). Before each stretch of guest code it publishes the request and its
 * deadline in shared memory for the host's watchdog.
 *
 * Each compiled function gets a WebAssembly instance of QuickJS of its own, whose linear memory can grow to
 * the function's memory limit and no further (memory.ts): that is what bounds everything the function
 * allocates. QuickJS's own heap limit alone does not, in this build (see memory.ts).
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSWASMModule } from 'quickjs-emscripten';
import { SandboxError } from './errors.js';
import { compileQuickJSWasm, instanceMemory } from './memory.js';
import { GuestClock, ownThreadId, ThreadCpuClock } from './cpu-time.js';
import { CPU_KNOWN, CPU_START, DEADLINE, nowInt32, RUNNING, TID, type Reply, type Request, type WorkerInit } from './protocol.js';
import { Instance } from './runtime.js';
import type { SandboxLimits } from './types.js';
import { thrownMessage } from '../errors.js';

if (!parentPort) throw new Error('sandbox worker: not started as a worker thread');
const port = parentPort;
const init = workerData as WorkerInit;
const watch = new Int32Array(init.watch);

interface Fn {
  source: string;
  limits: SandboxLimits;
  /** Its own QuickJS instance, memory capped at its limit; made (asynchronously) before its first evaluation. */
  module?: QuickJSWASMModule;
  /** Absent until compiled, and again after a limit was hit (QuickJS state then is not worth trusting). */
  instance?: Instance;
}

const fns = new Map<number, Fn>();
/** The compiled QuickJS WebAssembly, shared by every function's instance on this thread. */
const wasm = compileQuickJSWasm();

/** A QuickJS instance whose whole memory is at most `memoryBytes` (memory.ts says why). */
function newModule(memoryBytes: number): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: wasm, wasmMemory: instanceMemory(memoryBytes) }));
}

/** How long the guest running now has run (its CPU time where Linux reports it), for its interrupt handler. */
const clock = new GuestClock(new ThreadCpuClock());
Atomics.store(watch, TID, ownThreadId());

/** Guest code for request `rq` runs from now for `timeoutMs` of its own time; the watchdog kills it after that. */
function enter(rq: number, timeoutMs: number): void {
  const cpu = clock.start(timeoutMs);
  Atomics.store(watch, DEADLINE, (nowInt32() + timeoutMs) | 0);
  Atomics.store(watch, CPU_KNOWN, cpu === undefined ? 0 : 1);
  Atomics.store(watch, CPU_START, cpu === undefined ? 0 : Math.floor(cpu) | 0);
  Atomics.store(watch, RUNNING, rq);
}
const leave = (): void => void Atomics.store(watch, RUNNING, 0);

/**
 * A host-side exception from inside WebAssembly (an abort, a trap, the thread's own stack): that function's
 * instance is not to be trusted, so it is dropped and made afresh on its next call. Other functions have
 * instances and memories of their own, untouched.
 */
function failure(rq: number, fn: Fn, err: unknown): Reply {
  fn.instance = undefined;
  fn.module = undefined;
  const message = thrownMessage(err);
  return { rq, ok: false, kind: /call stack/i.test(message) ? 'stack' : 'memory', message: `sandbox failure: ${message}` };
}

function build(rq: number, fn: Fn): Reply | undefined {
  if (fn.instance) return undefined;
  let instance: Instance;
  try {
    // The runtime and context are the sandbox's own work, not the guest's: made before its clock starts.
    instance = new Instance(fn.module!, fn.source, fn.limits, init.stackBytes, clock);
  } catch (err) {
    return failure(rq, fn, err);
  }
  enter(rq, fn.limits.timeoutMs);
  try {
    instance.compile();
    fn.instance = instance;
    return undefined;
  } catch (err) {
    if (SandboxError.isInstance(err)) return { rq, ok: false, kind: err.kind, message: err.message };
    return failure(rq, fn, err);
  } finally {
    leave();
  }
}

function handle(req: Request): Reply | undefined {
  switch (req.op) {
    case 'define':
      fns.set(req.fn, { source: req.source, limits: req.limits });
      return undefined;
    case 'forget': {
      const fn = fns.get(req.fn);
      fns.delete(req.fn);
      try {
        fn?.instance?.dispose();
      } catch {
        // freeing a runtime after an abort can fail; nothing more to free
      }
      return undefined;
    }
    case 'compile': {
      const fn = fns.get(req.fn);
      if (!fn?.module) return { rq: req.rq, ok: false, kind: 'compile', message: 'unknown function (sandbox protocol error)' };
      const failed = build(req.rq, fn);
      if (failed) fns.delete(req.fn);
      return failed ?? { rq: req.rq, ok: true };
    }
    case 'call': {
      const fn = fns.get(req.fn);
      if (!fn?.module) return { rq: req.rq, ok: false, kind: 'compile', message: 'unknown function (sandbox protocol error)' };
      const failed = build(req.rq, fn);
      if (failed) return failed;
      const instance = fn.instance!;
      enter(req.rq, fn.limits.timeoutMs);
      try {
        const result = instance.call(req.args);
        if (result.ok) return result.json === undefined ? { rq: req.rq, ok: true } : { rq: req.rq, ok: true, json: result.json };
        if (result.poisoned) {
          // A new runtime in the same instance: its memory (already at most the limit) is reused, not grown.
          fn.instance = undefined;
          instance.dispose();
        }
        return { rq: req.rq, ok: false, kind: result.error.kind, message: result.error.message };
      } catch (err) {
        return failure(req.rq, fn, err);
      } finally {
        leave();
      }
    }
  }
}

/**
 * Compile and call requests wait in one queue per function, and the worker serves the functions in turn:
 * each turn runs one function's requests until its queue is empty or the turn has lasted `TURN_MS` (at
 * least one request). A function whose calls are slow (or loop until their deadline) thus delays a
 * neighbour on the same worker by about one of its calls per turn, however many of them are queued, while
 * a cheap function still answers a whole batch per turn. `define` and `forget` take effect on arrival.
 */
const queues = new Map<number, Request[]>();
const TURN_MS = 5;
let current: number | undefined;
let turnEnds = 0;

function accept(batch: Request[]): void {
  for (const req of batch) {
    if (req.op === 'define' || req.op === 'forget') {
      handle(req);
      continue;
    }
    const q = queues.get(req.fn);
    if (q) q.push(req);
    else queues.set(req.fn, [req]);
  }
}

/** The next request: the current turn's function while its turn lasts, else the first function in line. */
function take(): Request | undefined {
  if (current !== undefined) {
    const q = queues.get(current);
    if (q && performance.now() < turnEnds) return shift(current, q);
    if (q) {
      // Its turn is over: to the back of the line.
      queues.delete(current);
      queues.set(current, q);
    }
    current = undefined;
  }
  const first = queues.entries().next();
  if (first.done) return undefined;
  const [fn, q] = first.value;
  current = fn;
  turnEnds = performance.now() + TURN_MS;
  return shift(fn, q);
}

/** Queues in the map are never empty. */
function shift(fn: number, q: Request[]): Request {
  const req = q.shift()!;
  if (q.length === 0) queues.delete(fn);
  return req;
}

/** Requests that arrived while guest code ran join the queues before the next pick, so the turn order is fair. */
function drain(): void {
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) accept(m.message as Request[]);
}

/** Makes the function's instance if it has none yet; a reply if that failed. Not part of any deadline. */
async function prepare(req: Request & { rq: number }): Promise<Reply | undefined> {
  const fn = fns.get(req.fn);
  if (!fn || fn.module) return undefined;
  try {
    const module = await newModule(fn.limits.memoryBytes);
    // `forget` may have come meanwhile; then the instance is simply dropped.
    if (fns.get(req.fn) === fn) fn.module ??= module;
    return undefined;
  } catch (err) {
    return {
      rq: req.rq,
      ok: false,
      kind: 'memory',
      message: `sandbox failure: no QuickJS instance could be made: ${thrownMessage(err)}`,
    };
  }
}

let pumping = false;
/** Set once the warm-up is done: no guest code runs before. */
let ready = false;

/**
 * Runs queued requests until none is left. Replies wait for the next ones only briefly: one held behind a
 * call that then loops until the host terminates the worker would be lost (and replayed).
 */
async function pump(): Promise<void> {
  if (pumping || !ready) return;
  pumping = true;
  let out: Reply[] = [];
  let since = 0;
  const flush = () => {
    if (out.length > 0) port.postMessage(out);
    out = [];
  };
  try {
    for (;;) {
      drain();
      const req = take();
      if (!req) break;
      if (out.length > 0 && Date.now() - since >= 1) flush();
      let reply: Reply | undefined;
      if (req.op === 'compile' || req.op === 'call') {
        if (fns.get(req.fn)?.module === undefined) flush(); // nothing waits on the await below
        reply = await prepare(req);
      }
      reply ??= handle(req);
      if (!reply) continue;
      if (out.length === 0) since = Date.now();
      out.push(reply);
    }
  } finally {
    flush();
    pumping = false;
  }
}

port.on('message', (batch: Request[]) => {
  accept(batch);
  void pump();
});

/**
 * V8 compiles WebAssembly lazily, so a fresh module's first evaluations are slow; run the usual paths
 * (compile, call, regex, JSON, promises) once before any guest code, outside every guest's deadline. The
 * code V8 compiles belongs to the shared WebAssembly module, so every instance made later starts warm.
 */
async function warmUp(): Promise<void> {
  const m = await newModule(0);
  const warmClock = new GuestClock(new ThreadCpuClock());
  for (const source of ["(o, i) => (o.match(/'/g) ?? []).length + JSON.stringify(i).length", 'async (o) => { await null; return [o, { o }] }']) {
    try {
      const warm = new Instance(m, source, { timeoutMs: 60_000, memoryBytes: 8 * 1024 * 1024 }, init.stackBytes, warmClock);
      warmClock.start(60_000);
      warm.compile();
      warm.call('["it\'s", {"a": [1, 2]}]');
      warm.dispose();
    } catch {
      // only a warm-up: the real calls report their own errors
    }
  }
}

void warmUp()
  .catch(() => undefined)
  .then(() => {
    ready = true;
    return pump();
  });
