import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { SandboxError, type SandboxErrorKind } from './errors.js';
import type { GuestClock } from './cpu-time.js';
import type { SandboxLimits } from './types.js';

/**
 * Evaluates to [invoke, toJson]. JSON.parse/stringify and the built-ins the copy relies on are captured
 * before the user's code runs, so a predicate that replaces them cannot break how its own arguments and
 * results are copied.
 *
 * The result is copied out only if it is plain data, which JSON keeps as it is: JSON.stringify would turn
 * `new Boolean(false)` into `false` and `{ toJSON: () => true }` into `true`, so a predicate returning an
 * object would pass as a boolean. Those (and other objects that are not plain: Date, Map, class instances)
 * make the call reject instead.
 */
function wrap(source: string): string {
  const body = source.trim().replace(/;+\s*$/, '');
  return `(() => {
const parse = JSON.parse, stringify = JSON.stringify, protoOf = Object.getPrototypeOf, isArray = Array.isArray;
const OBJECT = Object.prototype, ARRAY = Array.prototype, TypeErr = TypeError;
const BOXED = [[Boolean.prototype, 'a Boolean object (new Boolean)'], [Number.prototype, 'a Number object (new Number)'], [String.prototype, 'a String object (new String)']];
function plain(key, value) {
  const original = this[key];
  if (original !== null && typeof original === 'object') {
    const proto = protoOf(original);
    const boxed = BOXED.find((b) => b[0] === proto);
    if (boxed) throw new TypeErr(boxed[1] + ' is not plain JSON data; return a primitive');
    if (typeof original.toJSON === 'function') throw new TypeErr('an object with a toJSON method is not plain JSON data');
    if (!(proto === OBJECT || proto === null || (proto === ARRAY && isArray(original)))) throw new TypeErr('an object that is not a plain object or array is not plain JSON data');
  }
  return value;
}
const fn = (
${body}
);
if (typeof fn !== 'function') throw new TypeError('expected a function expression, found ' + (fn === null ? 'null' : typeof fn));
return [(json) => fn(...parse(json)), (v) => stringify({ __proto__: null, v }, plain)];
})()`;
}

interface Described {
  kind: SandboxErrorKind;
  message: string;
}

/**
 * One compiled function: its own QuickJS runtime (heap, stack and interrupt limits) and context. Lives in
 * the sandbox worker; the interrupt handler is the cheap first line of defence against overrunning the
 * deadline, the host's watchdog (which can terminate the worker) the hard one. Both measure the guest's own
 * running time (`clock`: the thread's CPU time where it can be read), started by the worker just before
 * guest code runs: making the runtime and context is not part of it.
 */
export class Instance {
  private readonly rt: QuickJSRuntime;
  private readonly ctx: QuickJSContext;
  private invoke?: QuickJSHandle;
  private toJson?: QuickJSHandle;

  constructor(
    module: QuickJSWASMModule,
    private readonly source: string,
    private readonly limits: SandboxLimits,
    stackBytes: number,
    private readonly clock: GuestClock,
  ) {
    this.rt = module.newRuntime();
    this.rt.setMemoryLimit(limits.memoryBytes);
    this.rt.setMaxStackSize(stackBytes);
    this.rt.setInterruptHandler(() => this.clock.expired());
    this.ctx = this.rt.newContext();
  }

  /** Evaluates the source (guest code: the clock must have been started); throws a SandboxError if it does not give a function. */
  compile(): void {
    try {
      const res = this.ctx.evalCode(wrap(this.source), 'predicate.js', { type: 'global' });
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
   * Runs the function synchronously (QuickJS blocks until it returns, the interrupt handler stops it, or
   * the host terminates the worker); the clock must have been started.
   * `poisoned` tells the caller to throw this runtime away: after an interrupt, OOM or stack overflow
   * QuickJS state is not worth trusting.
   */
  call(argsJson: string): { ok: true; json: string | undefined } | { ok: false; error: SandboxError; poisoned: boolean } {
    const ctx = this.ctx;
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
      return this.fail({
        kind: d.kind === 'thrown' ? 'result' : d.kind,
        message: `result cannot be copied out as JSON: ${d.message.replace(/^TypeError: /, '')}`,
      });
    }
    // `{"v":...}`, or undefined when stringify gave undefined; the host parses it (one copy across threads).
    const json = ctx.typeof(out.value) === 'string' ? ctx.getString(out.value) : undefined;
    out.value.dispose();
    return { ok: true, json };
  }

  private settle(promise: QuickJSHandle): { ok: true; handle: QuickJSHandle } | { ok: false; error: SandboxError; poisoned: boolean } {
    for (;;) {
      const state = this.ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') return { ok: true, handle: state.value };
      if (state.type === 'rejected') return this.fail(this.describe(state.error));
      if (this.clock.expired()) return this.fail({ kind: 'timeout', message: `timed out after ${this.limits.timeoutMs} ms` });
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
    const timedOut = this.clock.expired();
    let name = '';
    let message = '';
    let nullish: string | undefined;
    try {
      const dumped: unknown = this.ctx.dump(handle);
      // A bare null is what QuickJS throws when it runs out of memory so far that it cannot allocate its own
      // "out of memory" error (issue 30: four of five small-object bombs ended with a message reading "null").
      // By then the memory is freed again, so it cannot be told from a function that throws null itself: the
      // message says both.
      if (dumped === null || dumped === undefined) nullish = String(dumped);
      else if (dumped && typeof dumped === 'object') {
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
    if (nullish !== undefined)
      return {
        kind: 'memory',
        message: `ran out of memory (limit ${Math.round(this.limits.memoryBytes / 1048576)} MiB): the runtime threw ${nullish}, which it does when it cannot allocate even its out-of-memory error (a function that throws ${nullish} itself reads the same)`,
      };
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
