/**
 * The OTLP decoding worker thread (trace-pool.ts): gunzips, decodes and picks the GenAI spans of one export
 * at a time, off the server's event loop.
 */
import { serveTasks } from '../ground/pool/serve-tasks.js';
import { lowerThreadPriority } from '../ground/pool/spawn.js';
import { decodeTraceBody, type TraceDecodeOutcome, type TraceDecodeTask } from './trace-decode.js';

// The main thread's I/O (other requests, /healthz) comes before decoding when the cores are busy.
lowerThreadPriority();

serveTasks<TraceDecodeTask, TraceDecodeOutcome>(async () => ({ run: async (task) => decodeTraceBody(task) }));
