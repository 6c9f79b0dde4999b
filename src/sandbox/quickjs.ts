import { SandboxError } from './errors.js';
import type { FnDef } from './host.js';
import { defaultMaxWorkers, WorkerPool } from './pool.js';
import { DEFAULT_SANDBOX_LIMITS, type Sandbox, type SandboxedFunction, type SandboxLimits } from './types.js';
import { thrownMessage } from '../errors.js';

export interface QuickJSSandboxOptions extends Partial<SandboxLimits> {
  /**
   * Stack size limit of each runtime, in bytes (deep recursion ends here). Default 256 KiB: QuickJS's
   * interpreter frames also use the host thread's native stack, which must overflow later than QuickJS.
   */
  maxStackBytes?: number;
  /**
   * How long past a call's deadline the sandbox waits for QuickJS's own interrupt before it terminates the
   * worker thread (long native operations and GC near the heap limit never reach the interrupt). Default 250.
   */
  killGraceMs?: number;
  /** V8 heap limit of the worker thread, in MiB (the QuickJS instances' memories are outside it, capped on their own). Default 256. */
  workerHeapMb?: number;
  /**
   * Most worker threads this sandbox starts (each compiled function gets a home worker; beyond this many
   * functions, they share). Default: one per core, at least 2, at most 8.
   */
  maxWorkers?: number;
}

const DEFAULT_STACK_BYTES = 256 * 1024;

/**
 * Sandbox backed by QuickJS compiled to WebAssembly: the guest has only the ECMAScript built-ins (no
 * require, process, fs, network, timers or host objects). Each compiled function has its own QuickJS
 * instance, with a WebAssembly memory capped at its memory limit (memory.ts), so one function's exhaustion
 * cannot touch another's nor grow the host past the limit; it lives on a home worker thread of the sandbox's pool
 * (pool.ts): functions run on separate threads up to `maxWorkers`, so a slow or looping predicate does not
 * hold up the others. The worker is what makes the deadline hard: a call still running at deadline +
 * grace has its worker terminated, and later calls transparently get a fresh one.
 *
 * Time limits measure a call's own execution: the deadline starts when the worker starts running it, not
 * while it waits behind other calls. When a worker is terminated, only the call it was running is rejected
 * (as a timeout); calls queued behind it are replayed on the fresh worker and answered normally.
 */
export class QuickJSSandbox implements Sandbox {
  private readonly pool: WorkerPool;
  private disposed = false;
  private nextId = 0;
  private readonly defaults: SandboxLimits;
  /** A compiled function the caller dropped frees its runtime in the worker. */
  private readonly unreachable = new FinalizationRegistry<number>((id) => this.pool.forget(id));

  constructor(options: QuickJSSandboxOptions = {}) {
    this.defaults = {
      timeoutMs: options.timeoutMs ?? DEFAULT_SANDBOX_LIMITS.timeoutMs,
      memoryBytes: options.memoryBytes ?? DEFAULT_SANDBOX_LIMITS.memoryBytes,
    };
    const hostOptions = {
      stackBytes: options.maxStackBytes ?? DEFAULT_STACK_BYTES,
      graceMs: options.killGraceMs ?? 250,
      workerHeapMb: options.workerHeapMb ?? 256,
    };
    this.pool = new WorkerPool(hostOptions, Math.max(1, Math.floor(options.maxWorkers ?? defaultMaxWorkers())));
  }

  async compile(source: string, limits: Partial<SandboxLimits> = {}): Promise<SandboxedFunction> {
    if (this.disposed) throw new SandboxError('disposed', 'the sandbox has been disposed');
    const def: FnDef = { id: ++this.nextId, source, limits: { ...this.defaults, ...stripUndefined(limits) } };
    const compiled = await this.pool.request(def);
    if (!compiled.ok) {
      this.pool.forget(def.id);
      throw new SandboxError(compiled.kind, compiled.message);
    }

    const fn = async (...args: unknown[]): Promise<unknown> => {
      if (this.disposed) throw new SandboxError('disposed', 'the sandbox has been disposed');
      let json: string;
      try {
        json = JSON.stringify(args);
      } catch (err) {
        throw new SandboxError('argument', `argument cannot be copied as JSON: ${thrownMessage(err)}`);
      }
      const reply = await this.pool.request(def, json);
      if (!reply.ok) throw new SandboxError(reply.kind, reply.message);
      return reply.json === undefined ? undefined : (JSON.parse(reply.json) as { v?: unknown }).v;
    };
    this.unreachable.register(fn, def.id);
    return fn;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pool.dispose();
  }
}

function stripUndefined(l: Partial<SandboxLimits>): Partial<SandboxLimits> {
  const out: Partial<SandboxLimits> = {};
  if (l.timeoutMs !== undefined) out.timeoutMs = l.timeoutMs;
  if (l.memoryBytes !== undefined) out.memoryBytes = l.memoryBytes;
  return out;
}
