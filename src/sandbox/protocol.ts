import type { SandboxErrorKind } from './errors.js';
import type { SandboxLimits } from './types.js';

/**
 * Messages between the host (QuickJSSandbox) and its worker. The host posts arrays of requests (one
 * postMessage per microtask, so concurrent calls share a message); the worker answers with arrays of
 * replies. `rq` numbers requests, `fn` names a compiled function.
 */
export type Request =
  /** Remember a function's source (no reply; compiled lazily on its first compile or call). */
  | { op: 'define'; fn: number; source: string; limits: SandboxLimits }
  /** Compile now and say whether it compiles. */
  | { op: 'compile'; rq: number; fn: number }
  /** Call with JSON-encoded arguments (an array). */
  | { op: 'call'; rq: number; fn: number; args: string }
  /** The function is unreachable on the host: free its runtime. */
  | { op: 'forget'; fn: number };

export type Reply =
  /** `json` is `{"v":...}`, or absent when the result has no JSON form (undefined). */
  { rq: number; ok: true; json?: string } | { rq: number; ok: false; kind: SandboxErrorKind; message: string };

export interface WorkerInit {
  /** Int32Array view, slots below: what the worker is running, for the host's watchdog. */
  watch: SharedArrayBuffer;
  stackBytes: number;
}

/** rq being evaluated, 0 when idle. */
export const RUNNING = 0;
/** Its deadline on the wall clock, ms, as nowInt32(). */
export const DEADLINE = 1;
/** The worker thread's CPU time (ms, folded into an int32 like nowInt32) when it started, if CPU_KNOWN is 1. */
export const CPU_START = 2;
export const CPU_KNOWN = 3;
/** The worker thread's Linux thread id (the host reads its CPU time with it), 0 if unknown. Set once. */
export const TID = 4;
export const WATCH_SLOTS = 5;

/**
 * Date.now() folded into an int32 (mod 2^32), so it fits an Int32Array for Atomics. Differences of two
 * such values are exact while the true difference is under 2^31 ms (24 days), which deadlines are.
 */
export const nowInt32 = (): number => Date.now() | 0;
