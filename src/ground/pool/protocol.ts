/**
 * Messages between a WorkerPool and its worker threads. A worker announces once that it is ready (its
 * state loaded) or that it could not load; then it runs one task at a time and answers each with its id.
 */

/** An error as it crosses the thread boundary: the class name, its message and any fields the caller maps. */
export interface WireError {
  name: string;
  message: string;
  [field: string]: unknown;
}

export type FromWorker =
  | { type: 'ready'; info: unknown }
  | { type: 'failed'; error: WireError }
  | { type: 'done'; id: number; ok: true; value: unknown }
  | { type: 'done'; id: number; ok: false; error: WireError };

export interface ToWorker {
  id: number;
  input: unknown;
}

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const out: WireError = { name: err.name, message: err.message };
  // Own enumerable fields that survive structured cloning (status, field, exitCode, where …).
  for (const [k, v] of Object.entries(err)) {
    try {
      out[k] = structuredClone(v);
    } catch {
      // a function, a socket …: stays behind
    }
  }
  return out;
}
