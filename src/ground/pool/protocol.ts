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
  | { type: 'done'; id: number; ok: false; error: WireError }
  /** During task `id`, the worker asks the main thread to do I/O for it (an LLM call): answered by a Reply. */
  | { type: 'call'; id: number; call: number; input: unknown };

export interface ToWorker {
  id: number;
  input: unknown;
}

/** The main thread's answer to a worker's `call`. */
export type Reply = { reply: number; ok: true; value: unknown } | { reply: number; ok: false; error: WireError };

/** An error that crossed the thread boundary, as an Error again (its name, message and cloned fields). */
export function fromWire(w: WireError): Error {
  const { name, message, ...fields } = w;
  return Object.assign(new Error(message), fields, { name });
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
