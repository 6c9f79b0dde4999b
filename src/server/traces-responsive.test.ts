import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite.js';
import { resolveLimits } from './limits.js';
import { startServer } from './start.js';
import { decodeTraceBody } from './trace-decode.js';
import { createTraceDecoder, type TraceDecoder } from './trace-pool.js';

/**
 * "No input-dependent CPU work on a server's event loop": the largest export the limits accept — gzip that
 * inflates to the limit, thousands of spans with attributes nested to the reader's depth limit — is decoded
 * while /healthz keeps answering. As in responsive.test.ts, no clock is asserted: this process is also the
 * client, so while a decode ran on this thread no /healthz reply could arrive inside it.
 */
const dir = mkdtempSync(join(tmpdir(), 'assay-traces-responsive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A valid OTLP/JSON export of about `bytes` bytes: non-GenAI spans (nothing to store), each attribute nested 8 deep. */
function hostileExport(bytes: number): string {
  let nested = '{"stringValue":"' + 'x'.repeat(40) + '"}';
  for (let i = 0; i < 8; i++) nested = `{"kvlistValue":{"values":[{"key":"k${i}","value":${nested}},{"key":"n${i}","value":{"intValue":"${i}"}}]}}`;
  const spans: string[] = [];
  let size = 60;
  for (let i = 0; size < bytes; i++) {
    const id = (i + 1).toString(16).padStart(16, '0');
    const span = `{"traceId":"${'a'.repeat(16)}${id}","spanId":"${id}","name":"GET /${i}","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[{"key":"a","value":${nested}},{"key":"b","value":${nested}}]}`;
    if (size + span.length + 1 >= bytes) break;
    spans.push(span);
    size += span.length + 1;
  }
  return `{"resourceSpans":[{"scopeSpans":[{"spans":[${spans.join(',')}]}]}]}`;
}

/** Wraps a decoder, recording when each decode ran as this thread sees it. */
function recording(decoder: TraceDecoder) {
  const runs: { start: number; end?: number }[] = [];
  const wrapped: TraceDecoder = {
    async decode(task, signal) {
      const run: (typeof runs)[number] = { start: performance.now() };
      runs.push(run);
      try {
        return await decoder.decode(task, signal);
      } finally {
        run.end = performance.now();
      }
    },
    close: () => decoder.close(),
  };
  return { wrapped, runs };
}

async function healthzDuringDecodes(decoder: TraceDecoder) {
  const { wrapped, runs } = recording(decoder);
  const store = openSqliteStore(join(dir, `s${Math.random().toString(36).slice(2)}`, 'assay.db'));
  const server = await startServer({ port: 0, log: false, store, ingest: true, traceDecoder: wrapped });
  const max = resolveLimits().maxTraceBodyBytes;
  const body = gzipSync(hostileExport(max));
  try {
    const post = () => fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body });
    let finished = false;
    const all = Promise.all([post(), post(), post()]).finally(() => (finished = true));
    const healthz: { at: number; status: number }[] = [];
    while (!finished) {
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      healthz.push({ at: performance.now(), status: res.status });
    }
    const responses = await all;
    const during = healthz.filter((h) => runs.some((r) => r.end !== undefined && h.at > r.start && h.at < r.end));
    return { statuses: responses.map((r) => r.status), runs: runs.length, healthz, during: during.length, production: await store.production.experiments() };
  } finally {
    await server.close();
    await store.close();
    await decoder.close();
  }
}

describe('decoding OTLP exports does not freeze the server', () => {
  it('the hostile export is valid, at the size limit once decompressed, and costly to decode', () => {
    const max = resolveLimits().maxTraceBodyBytes;
    const text = hostileExport(max);
    expect(text.length).toBeLessThanOrEqual(max);
    expect(text.length).toBeGreaterThan(max * 0.99);
    const outcome = decodeTraceBody({ body: gzipSync(text), protobuf: false, gzip: true, maxBytes: max });
    expect(outcome).toEqual({ ok: true, spans: [] });
  });

  it('answers /healthz while the largest accepted exports are being decoded (in worker threads)', async () => {
    const r = await healthzDuringDecodes(createTraceDecoder({ queue: 8 }));
    expect(r.statuses).toEqual([200, 200, 200]);
    expect(r.runs).toBe(3);
    expect(r.healthz.every((h) => h.status === 200)).toBe(true);
    expect(r.during).toBeGreaterThanOrEqual(2);
    expect(r.production).toEqual([]);
  }, 120_000);

  it('the same measure finds no reply inside a decode that runs on the event loop (so the test above can fail)', async () => {
    const inline: TraceDecoder = { decode: async (task) => decodeTraceBody(task), close: async () => {} };
    const r = await healthzDuringDecodes(inline);
    expect(r.statuses).toEqual([200, 200, 200]);
    expect(r.during).toBe(0);
  }, 120_000);
});
