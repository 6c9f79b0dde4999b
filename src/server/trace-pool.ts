import { lazyPool } from '../ground/pool/lazy.js';
import { PoolOverloadedError, PoolUnavailableError, WorkerCrashedError } from '../ground/pool/pool.js';
import { spawnModuleWorker } from '../ground/pool/spawn.js';
import type { TraceDecodeOutcome, TraceDecodeTask } from './trace-decode.js';

/** What POST /v1/traces answers when the decoding itself could not run (not the body's fault, except a crash). */
export type TraceDecodeFailure = { ok: false; status: 400 | 413 | 429 | 503; error: string; message: string; retryAfter?: number };

/** Decodes OTLP export bodies (trace-decode.ts) somewhere other than the caller's event loop. */
export interface TraceDecoder {
  decode(task: TraceDecodeTask, signal?: AbortSignal): Promise<TraceDecodeOutcome | TraceDecodeFailure>;
  close(): Promise<void>;
}

export interface TraceDecoderOptions {
  /** Worker threads (default 1: decoding is linear in a bounded body; the store is the usual bottleneck). */
  workers?: number;
  /** Exports that may wait for a free worker (the route's maxTraceRequests bounds them already). */
  queue: number;
}

/**
 * The decoder of `assay serve --ingest`: the worker pool /analyze uses (ground/pool), started on the first
 * export so a server that never receives one starts no thread. A worker that dies on a body (out of memory)
 * is replaced, and the body is refused.
 */
export function createTraceDecoder(options: TraceDecoderOptions): TraceDecoder {
  const pool = lazyPool<TraceDecodeTask, TraceDecodeOutcome>({
    size: options.workers ?? 1,
    queue: options.queue,
    spawn: () => spawnModuleWorker(new URL('./trace-worker', import.meta.url)),
  });
  return {
    async decode(task, signal) {
      try {
        return await pool.run(task, signal);
      } catch (err) {
        if (PoolOverloadedError.isInstance(err))
          return { ok: false, status: 429, error: 'busy', message: 'every decoding worker is busy; retry after 1 s', retryAfter: 1 };
        if (WorkerCrashedError.isInstance(err))
          return err.outOfMemory
            ? { ok: false, status: 413, error: 'payload_too_large', message: 'the body needs more memory to decode than the server allows' }
            : { ok: false, status: 400, error: 'invalid_export', message: 'the body is not a readable OTLP trace export' };
        if (PoolUnavailableError.isInstance(err))
          return {
            ok: false,
            status: 503,
            error: 'decoder_unavailable',
            message: `the trace decoder cannot run (${err.message.split('\n')[0].slice(0, 160)}); retry`,
            retryAfter: 5,
          };
        throw err;
      }
    },
    close: () => pool.close(),
  };
}
