import { gunzipSync } from 'node:zlib';
import type { ProductionSpan } from '../core/production.js';
import { productionSpansOf } from '../otel/genai.js';
import { decodeOtlpJson, decodeOtlpProtobuf, OtlpError, type OtlpSpan } from '../otel/otlp.js';

/** One OTLP export body to read: its bytes as received, how they are encoded, and the size limit once decompressed. */
export interface TraceDecodeTask {
  body: Uint8Array;
  protobuf: boolean;
  gzip: boolean;
  maxBytes: number;
}

/** The production spans of an export, or why the body is refused (the route's status, error code and one-line message). */
export type TraceDecodeOutcome = { ok: true; spans: ProductionSpan[] } | { ok: false; status: 400 | 413; error: string; message: string };

/**
 * Gunzip, decode (protobuf or JSON) and pick the GenAI spans of one export: CPU work whose cost depends on the
 * body, so the server runs it in a worker thread (trace-pool.ts), never on its event loop. Never throws for a
 * bad body: the outcome says what the route answers.
 */
export function decodeTraceBody(task: TraceDecodeTask): TraceDecodeOutcome {
  let body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  if (task.gzip) {
    try {
      body = gunzipSync(body, { maxOutputLength: task.maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || /too large|maxOutputLength/i.test(String((err as Error).message)))
        return { ok: false, status: 413, error: 'payload_too_large', message: `the body exceeds the ${task.maxBytes}-byte limit once decompressed` };
      return { ok: false, status: 400, error: 'invalid_gzip', message: 'the body is not valid gzip' };
    }
  }
  let spans: OtlpSpan[];
  try {
    if (task.protobuf) spans = decodeOtlpProtobuf(body);
    else {
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(body);
      } catch {
        return { ok: false, status: 400, error: 'invalid_encoding', message: 'the body is not valid UTF-8' };
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { ok: false, status: 400, error: 'invalid_json', message: 'the body is not valid JSON' };
      }
      spans = decodeOtlpJson(value);
    }
  } catch (err) {
    if (OtlpError.isInstance(err)) return { ok: false, status: 400, error: 'invalid_export', message: err.message };
    // A stack overflow on a hostile nesting, or any decoder failure: still the body's fault.
    return { ok: false, status: 400, error: 'invalid_export', message: 'the body is not a readable OTLP trace export' };
  }
  return { ok: true, spans: productionSpansOf(spans) };
}
