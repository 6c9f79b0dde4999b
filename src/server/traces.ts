import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { promisify } from 'node:util';
import { gunzip, type InputType, type ZlibOptions } from 'node:zlib';
import { productionSpansOf } from '../otel/genai.js';
import { decodeOtlpJson, decodeOtlpProtobuf, OtlpError, type OtlpSpan } from '../otel/otlp.js';
import type { ProductionStore } from '../store/types.js';
import { checkMediaType } from './analyze.js';
import type { ServerLimits } from './limits.js';
import { thrownMessage } from '../errors.js';

const gunzipAsync = promisify(gunzip) as (buf: InputType, options: ZlibOptions) => Promise<Buffer>;

type Status = 400 | 404 | 413 | 415 | 429 | 503;

function fail(c: Context, status: Status, error: string, message: string, retryAfter?: number) {
  if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
  return c.json({ error, message }, status);
}

/** What the route has taken in since the server started (for logs and tests). */
export interface TraceIngestStats {
  requests: number;
  spans: number;
  stored: number;
  duplicates: number;
  refused: number;
}

/**
 * POST /v1/traces: the OTLP/HTTP trace receiver (protobuf or JSON, optionally gzip). The GenAI spans of an
 * export become production samples (otel/genai.ts) stored through `store.production`, once per span id: an
 * exporter retrying a batch adds nothing. The answer comes after the store has committed, so a 200 means
 * the spans are durable; anything else means nothing of the request was kept and the exporter may retry.
 *
 * Memory is bounded: at most `maxTraceRequests` exports are read, decoded and stored at once, each at most
 * `maxTraceBodyBytes` (compressed and uncompressed); beyond, 429 with Retry-After, which OTLP exporters honour
 * (the store falling behind holds requests in flight and so turns into backpressure). Decoding runs on this
 * thread, linear in a body bounded by that limit.
 */
export function registerTraces(app: Hono, store: ProductionStore | undefined, limits: ServerLimits): TraceIngestStats {
  const stats: TraceIngestStats = { requests: 0, spans: 0, stored: 0, duplicates: 0, refused: 0 };
  let inFlight = 0;
  const max = limits.maxTraceBodyBytes;
  app.post(
    '/v1/traces',
    async (c, next) => {
      if (!store) return fail(c, 404, 'ingest_off', 'this server does not take traces: start it with assay serve --ingest');
      if (inFlight >= limits.maxTraceRequests) {
        stats.refused++;
        return fail(c, 429, 'busy', `${inFlight} exports are being stored already; retry after 1 s`, 1);
      }
      inFlight++;
      try {
        return await next();
      } finally {
        inFlight--;
      }
    },
    bodyLimit({ maxSize: max, onError: (c) => fail(c, 413, 'payload_too_large', `the body exceeds the ${max}-byte limit`) }),
    async (c) => {
      stats.requests++;
      const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
      const protobuf = type === 'application/x-protobuf' || type === 'application/protobuf';
      if (!protobuf) {
        const media = checkMediaType(c.req.header('content-type'));
        if (media)
          return fail(c, 415, 'unsupported_media_type', `${media.replace('application/json (UTF-8)', 'application/x-protobuf or application/json (UTF-8)')}`);
      }
      const encoding = (c.req.header('content-encoding') ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== 'gzip')
        return fail(c, 415, 'unsupported_encoding', `expected Content-Encoding gzip or none, found ${encoding.slice(0, 40)}`);
      let body: Buffer = Buffer.from(await c.req.arrayBuffer());
      if (encoding === 'gzip') {
        try {
          body = await gunzipAsync(body, { maxOutputLength: max });
        } catch (err) {
          if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || /too large|maxOutputLength/i.test(String((err as Error).message)))
            return fail(c, 413, 'payload_too_large', `the body exceeds the ${max}-byte limit once decompressed`);
          return fail(c, 400, 'invalid_gzip', 'the body is not valid gzip');
        }
      }
      let spans: OtlpSpan[];
      try {
        if (protobuf) spans = decodeOtlpProtobuf(body);
        else {
          let text: string;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(body);
          } catch {
            return fail(c, 400, 'invalid_encoding', 'the body is not valid UTF-8');
          }
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            return fail(c, 400, 'invalid_json', 'the body is not valid JSON');
          }
          spans = decodeOtlpJson(value);
        }
      } catch (err) {
        if (OtlpError.isInstance(err)) return fail(c, 400, 'invalid_export', err.message);
        // A stack overflow on a hostile nesting, or any decoder failure: still the body's fault.
        return fail(c, 400, 'invalid_export', 'the body is not a readable OTLP trace export');
      }
      const production = productionSpansOf(spans);
      stats.spans += production.length;
      try {
        const { stored, duplicates } = await store!.ingest(production);
        stats.stored += stored;
        stats.duplicates += duplicates;
      } catch (err) {
        const line = thrownMessage(err).split('\n')[0].slice(0, 200);
        return fail(c, 503, 'store_unavailable', `the spans could not be stored (${line}); retry`, 5);
      }
      // The OTLP answer: an ExportTraceServiceResponse with nothing rejected (empty in protobuf, {} in JSON).
      if (protobuf) return c.body(new Uint8Array(0), 200, { 'Content-Type': 'application/x-protobuf' });
      return c.json({}, 200);
    },
  );
  return stats;
}
