import { newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten';
import { SandboxError, type SandboxErrorKind } from './errors.js';
import { DEFAULT_SANDBOX_LIMITS, type Sandbox, type SandboxedFunction, type SandboxLimits } from './types.js';

export interface QuickJSSandboxOptions extends Partial<SandboxLimits> {
  /**
   * Stack size limit of each runtime, in bytes (deep recursion ends here). Default 256 KiB: QuickJS's
   * interpreter frames also use the host's native stack, and above ~400 KiB V8 overflows first.
   */
  maxStackBytes?: number;
}

const DEFAULT_STACK_BYTES = 256 * 1024;

/**
 * Evaluates to [invoke, toJson]. JSON.parse/stringify are captured before the user's code runs, so a
 * predicate that replaces globalThis.JSON cannot break how its own arguments and results are copied.
 */
function wrap(source: string): string {
  const body = source.trim().replace(/;+\s*$/, '');
  return `(() => {
const parse = JSON.parse, stringify = JSON.stringify;
const fn = (
${body}
);
if (typeof fn !== 'function') throw new TypeError('expected a function expression, found ' + (fn === null ? 'null' : typeof fn));
return [(json) => fn(...parse(json)), (v) => stringify({ v })];
})()`;
}

interface Described {
  kind: SandboxErrorKind;
  message: string;
}

/** One compiled function: its own QuickJS runtime (heap, stack and interrupt limits) and context. */
class Instance {
  private readonly rt: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private invoke?: QuickJSHandle;
  private toJson?: QuickJSHandle;
  private deadline = 0;

  constructor(module: QuickJSWASMModule, source: string, private readonly limits: SandboxLimits, stackBytes: number) {
    this.rt = module.newRuntime();
    this.rt.setMemoryLimit(limits.memoryBytes);
    this.rt.setMaxStackSize(stackBytes);
    this.rt.setInterruptHandler(() => Date.now() > this.deadline);
    this.ctx = this.rt.newContext();
    try {
      this.deadline = Date.now() + limits.timeoutMs;
      const res = this.ctx.evalCode(wrap(source), 'predicate.js', { type: 'global' });
      if (res.error) {
        const d = this.describe(res.error);
        throw new SandboxError(d.kind === 'thrown' ? 'compile' : d.kind, `does not compile: ${d.message}`);
      }
      const pair = res.value;
      this.invoke = this.ctx.getProp(pair, 0);
      this.toJson = this.ctx.getProp(pair, 1);
      pair.dispose();
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  /**
   * Runs the function synchronously (QuickJS blocks until it returns or the interrupt handler stops it).
   * `poisoned` tells the caller to throw this runtime away: after an interrupt, OOM or stack overflow
   * QuickJS state is not worth trusting.
   */
  call(argsJson: string): { ok: true; value: unknown } | { ok: false; error: SandboxError; poisoned: boolean } {
    const ctx = this.ctx;
    this.deadline = Date.now() + this.limits.timeoutMs;
    const arg = ctx.newString(argsJson);
    const res = ctx.callFunction(this.invoke!, ctx.undefined, arg);
    arg.dispose();
    if (res.error) return this.fail(this.describe(res.error));
    let value = res.value;
    const state = ctx.getPromiseState(value);
    if (!(state.type === 'fulfilled' && state.notAPromise)) {
      if (state.type !== 'pending') disposeState(state);
      // An async predicate: drive the job queue ourselves (there are no timers or I/O inside).
      const settled = this.settle(value);
      value.dispose();
      if (!settled.ok) return settled;
      value = settled.handle;
    }
    const out = ctx.callFunction(this.toJson!, ctx.undefined, value);
    value.dispose();
    if (out.error) {
      const d = this.describe(out.error);
      return this.fail({ kind: d.kind === 'thrown' ? 'result' : d.kind, message: `result is not JSON-serialisable: ${d.message}` });
    }
    const json = ctx.typeof(out.value) === 'string' ? ctx.getString(out.value) : undefined;
    out.value.dispose();
    if (json === undefined) return { ok: true, value: undefined };
    return { ok: true, value: (JSON.parse(json) as { v?: unknown }).v };
  }

  private settle(promise: QuickJSHandle): { ok: true; handle: QuickJSHandle } | { ok: false; error: SandboxError; poisoned: boolean } {
    for (;;) {
      const state = this.ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') return { ok: true, handle: state.value };
      if (state.type === 'rejected') return this.fail(this.describe(state.error));
      if (Date.now() > this.deadline) return this.fail({ kind: 'timeout', message: `timed out after ${this.limits.timeoutMs} ms` });
      const jobs = this.rt.executePendingJobs(100);
      if (jobs.error) return this.fail(this.describe(jobs.error));
      if (jobs.value === 0) {
        return this.fail({ kind: 'result', message: 'returned a promise that never settles (no timers or I/O exist in the sandbox)' });
      }
    }
  }

  private fail(d: Described): { ok: false; error: SandboxError; poisoned: boolean } {
    const poisoned = d.kind === 'timeout' || d.kind === 'memory' || d.kind === 'stack';
    return { ok: false, error: new SandboxError(d.kind, d.message), poisoned };
  }

  /** Reads a thrown value (and disposes its handle) into a kind and a message. */
  private describe(handle: QuickJSHandle): Described {
    const timedOut = Date.now() > this.deadline;
    let name = '';
    let message = '';
    try {
      const dumped: unknown = this.ctx.dump(handle);
      if (dumped && typeof dumped === 'object') {
        const e = dumped as { name?: unknown; message?: unknown };
        name = typeof e.name === 'string' ? e.name : '';
        message = typeof e.message === 'string' ? e.message : JSON.stringify(dumped);
      } else {
        message = String(dumped);
      }
    } catch {
      message = 'unreadable error (the runtime may be out of memory)';
    } finally {
      if (handle.alive) handle.dispose();
    }
    if (name === 'InternalError' && /interrupted/i.test(message)) {
      return { kind: 'timeout', message: `timed out after ${this.limits.timeoutMs} ms` };
    }
    if (/out of memory/i.test(message) || message.startsWith('unreadable error')) {
      return { kind: 'memory', message: `ran out of memory (limit ${Math.round(this.limits.memoryBytes / 1048576)} MiB)` };
    }
    if (/stack overflow|call stack size/i.test(message)) return { kind: 'stack', message: 'stack overflow (recursion too deep)' };
    if (timedOut && name === 'InternalError') return { kind: 'timeout', message: `timed out after ${this.limits.timeoutMs} ms` };
    return { kind: 'thrown', message: name && name !== 'Error' ? `${name}: ${message}` : message };
  }

  dispose(): void {
    this.invoke?.dispose();
    this.toJson?.dispose();
    this.ctx.dispose();
    this.rt.dispose();
  }
}

function disposeState(state: { value?: QuickJSHandle; error?: QuickJSHandle | Error }): void {
  if (state.value && 'alive' in state.value && state.value.alive) state.value.dispose();
  const e = state.error as { alive?: boolean; dispose?: () => void } | undefined;
  if (e && e.alive && typeof e.dispose === 'function') e.dispose();
}

/**
 * Sandbox backed by QuickJS compiled to WebAssembly: the guest has only the ECMAScript built-ins (no
 * require, process, fs, network, timers or host objects). Each sandbox owns its WebAssembly module, and
 * each compiled function its own runtime, so one function's exhaustion cannot touch another's.
 */
export class QuickJSSandbox implements Sandbox {
  private module?: Promise<QuickJSWASMModule>;
  private readonly live = new Set<{ dispose(): void }>();
  private disposed = false;
  private readonly defaults: SandboxLimits;
  private readonly stackBytes: number;

  constructor(options: QuickJSSandboxOptions = {}) {
    this.defaults = {
      timeoutMs: options.timeoutMs ?? DEFAULT_SANDBOX_LIMITS.timeoutMs,
      memoryBytes: options.memoryBytes ?? DEFAULT_SANDBOX_LIMITS.memoryBytes,
    };
    this.stackBytes = options.maxStackBytes ?? DEFAULT_STACK_BYTES;
  }

  private getModule(): Promise<QuickJSWASMModule> {
    this.module ??= newQuickJSWASMModule();
    return this.module;
  }

  private async newInstance(source: string, limits: SandboxLimits): Promise<Instance> {
    const module = await this.getModule();
    try {
      return new Instance(module, source, limits, this.stackBytes);
    } catch (err) {
      if (err instanceof SandboxError) throw err;
      // The WebAssembly module itself failed (an abort): start a fresh one next time.
      this.module = undefined;
      throw new SandboxError('memory', `sandbox failure: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async compile(source: string, limits: Partial<SandboxLimits> = {}): Promise<SandboxedFunction> {
    if (this.disposed) throw new SandboxError('disposed', 'the sandbox has been disposed');
    const lim: SandboxLimits = { ...this.defaults, ...stripUndefined(limits) };
    let instance: Instance | undefined = await this.newInstance(source, lim);
    let rebuilding: Promise<Instance> | undefined;
    const entry = {
      dispose: () => {
        instance?.dispose();
        instance = undefined;
      },
    };
    this.live.add(entry);

    return async (...args: unknown[]): Promise<unknown> => {
      if (this.disposed) throw new SandboxError('disposed', 'the sandbox has been disposed');
      let json: string;
      try {
        json = JSON.stringify(args);
      } catch (err) {
        throw new SandboxError('argument', `argument cannot be copied as JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!instance) {
        // One rebuild even when several calls arrive together after the runtime was thrown away.
        rebuilding ??= this.newInstance(source, lim).finally(() => (rebuilding = undefined));
        instance = await rebuilding;
      }
      let result: ReturnType<Instance['call']>;
      try {
        result = instance.call(json);
      } catch (err) {
        // A host-side failure of the runtime (the host's own stack overflowed inside WebAssembly).
        this.discard(instance);
        instance = undefined;
        const message = err instanceof Error ? err.message : String(err);
        throw new SandboxError(/call stack/i.test(message) ? 'stack' : 'memory', `sandbox failure: ${message}`);
      }
      if (result.ok) return result.value;
      if (result.poisoned) {
        this.discard(instance);
        instance = undefined;
      }
      throw result.error;
    };
  }

  private discard(instance: Instance): void {
    try {
      instance.dispose();
    } catch {
      // Freeing a runtime after an abort can fail; the module is then unusable, so replace it.
      this.module = undefined;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.live) {
      try {
        entry.dispose();
      } catch {
        // already broken; nothing more to free
      }
    }
    this.live.clear();
    this.module = undefined;
  }
}

function stripUndefined(l: Partial<SandboxLimits>): Partial<SandboxLimits> {
  const out: Partial<SandboxLimits> = {};
  if (l.timeoutMs !== undefined) out.timeoutMs = l.timeoutMs;
  if (l.memoryBytes !== undefined) out.memoryBytes = l.memoryBytes;
  return out;
}
