/** Limits applied to every evaluation of untrusted code. */
export interface SandboxLimits {
  /** Wall-clock limit per evaluation, in ms (infinite loops end here). */
  timeoutMs: number;
  /**
   * Memory limit of a compiled function, in bytes: everything it holds at once — heap objects, strings, typed
   * arrays, ArrayBuffers — counts; reaching it is a `memory` error. Its QuickJS instance is capped at this plus
   * 6 MiB for QuickJS's own data and stack, and has at least 16 MiB (the WebAssembly build's minimum).
   */
  memoryBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 1000, memoryBytes: 32 * 1024 * 1024 };

/**
 * A JavaScript arrow-function source string (e.g. `o => o.length < 100` or `(o, i) => ...`) compiled
 * inside a sandbox with no fs, network, process or host objects. Calling it runs the function on
 * JSON-copied arguments; it rejects (never returns false) on throw, timeout or memory exhaustion,
 * so the caller records an `error` outcome, not a FAIL.
 */
export interface SandboxedFunction {
  (...args: unknown[]): Promise<unknown>;
}

export interface Sandbox {
  compile(source: string, limits?: Partial<SandboxLimits>): Promise<SandboxedFunction>;
  dispose(): void;
}
