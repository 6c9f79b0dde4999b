import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ProductionStore } from '../store/types.js';
import { checkMediaType } from './analyze.js';
import type { ServerLimits } from './limits.js';
import { thrownMessage } from '../errors.js';
import type { TraceDecoder } from './trace-pool.js';

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
 * (the store falling behind holds requests in flight and so turns into backpressure). Gunzip and decoding run
 * in `decoder`'s worker threads (trace-pool.ts): this thread only reads the body, stores and answers.
 */
export function registerTraces(app: Hono, store: ProductionStore | undefined, limits: ServerLimits, decoder: TraceDecoder): TraceIngestStats {
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
      const body = new Uint8Array(await c.req.arrayBuffer());
      const outcome = await decoder.decode({ body, protobuf, gzip: encoding === 'gzip', maxBytes: max }, c.req.raw.signal);
      if (!outcome.ok) {
        if (outcome.status === 429) stats.refused++;
        return fail(c, outcome.status, outcome.error, outcome.message, 'retryAfter' in outcome ? outcome.retryAfter : undefined);
      }
      const production = outcome.spans;
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
