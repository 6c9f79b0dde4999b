import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { aiSdkCall, recordingProvider, type ReadableSpan } from '../otel/testing/spans.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { ProductionStore } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-traces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const open: { server: ServerHandle; store: SqliteStore }[] = [];
afterEach(async () => {
  for (const { server, store } of open.splice(0)) {
    await server.close();
    await store.close();
  }
});

async function serve(
  options: { limits?: NonNullable<Parameters<typeof startServer>[0]>['limits']; token?: string; production?: (p: ProductionStore) => ProductionStore } = {},
) {
  const store = openSqliteStore(join(dir, `s${n++}`, 'assay.db'));
  const served = options.production ? Object.assign(Object.create(store) as SqliteStore, { production: options.production(store.production) }) : store;
  const server = await startServer({ port: 0, log: false, store: served, ingest: true, limits: options.limits, token: options.token });
  open.push({ server, store });
  return { server, store };
}

function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

function recorded(): { spans: ReadableSpan[]; ids: { traceId: string; spanId: string }[] } {
  const { provider, memory } = recordingProvider('shop');
  const ids = [
    aiSdkCall(provider, {
      functionId: 'answer',
      prompt: 'Where is order 7?',
      answer: 'Order 7 shipped today.',
      tool: { name: 'lookup', args: { order: 7 }, result: { status: 'shipped' } },
    }),
    aiSdkCall(provider, { functionId: 'answer', prompt: 'Do you ship to Oslo?', answer: 'Yes, in 3 days.' }),
    aiSdkCall(provider, { functionId: 'answer', prompt: 'Refund?', answer: '', error: 'HTTP 503 from the provider' }),
  ];
  return { spans: memory.getFinishedSpans() as ReadableSpan[], ids };
}

describe('POST /v1/traces', () => {
  it('an OTLP/HTTP JSON export with GenAI attributes, posted twice, is one stored production sample per span', async () => {
    const { server, store } = await serve();
    const { spans, ids } = recorded();
    const exporter = new JsonExporter({ url: `${server.url}/v1/traces` });
    expect((await exportOnce(exporter, spans)).code).toBe(0);
    expect((await exportOnce(exporter, spans)).code).toBe(0);
    await exporter.shutdown();

    expect(await store.production.experiments()).toEqual([expect.objectContaining({ name: 'shop/answer', samples: 3 })]);
    const samples = await store.production.list('shop/answer');
    expect(samples.map((s) => s.spanId)).toEqual(ids.map((i) => i.spanId));
    const [first, second, third] = samples;
    expect(first).toMatchObject({
      traceId: ids[0].traceId,
      input: 'Where is order 7?',
      output: 'Order 7 shipped today.',
      model: 'gpt-4o-mini',
      usage: { promptTokens: 50, completionTokens: 20 },
      latencyMs: 365,
    });
    expect(first.trajectory?.steps).toEqual([
      expect.objectContaining({
        toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { order: 7 }, result: { status: 'shipped' }, durationMs: 30 }],
        finishReason: 'tool-calls',
        usage: { promptTokens: 20, completionTokens: 8 },
      }),
      expect.objectContaining({ text: 'Order 7 shipped today.', toolCalls: [], finishReason: 'stop' }),
    ]);
    expect(second.trajectory?.steps).toHaveLength(1);
    expect(second.error).toBeUndefined();
    expect(third.error).toBe('HTTP 503 from the provider');
    // The dashboard shows them: the experiment in the list, its samples on its page.
    const list = await (await fetch(`${server.url}/production`)).text();
    expect(list).toContain('href="/production/experiment?name=shop%2Fanswer"');
    expect(list).toMatch(/<td[^>]*data-label="samples"><div>3<\/div>/);
    const page = await fetch(`${server.url}/production/experiment?name=${encodeURIComponent('shop/answer')}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    for (const shown of ['Where is order 7?', 'Order 7 shipped today.', ids[0].traceId, 'error: HTTP 503 from the provider', '50 + 20'])
      expect(text).toContain(shown);
    expect((await fetch(`${server.url}/production/experiment?name=nope`)).status).toBe(404);
    // Every span of the three calls is stored once: 3 samples, 5 steps.
    const rows = store.db.prepare(`SELECT kind, count(*) AS n FROM production_spans GROUP BY kind ORDER BY kind`).all();
    expect(rows).toEqual([
      { kind: 'sample', n: 3 },
      { kind: 'step', n: 5 },
    ]);
  });

  it('takes protobuf, gzip-compressed, from the official exporter, with the server token', async () => {
    const token = 'a-token-of-twenty-chars';
    const { server, store } = await serve({ token });
    const { spans } = recorded();
    const refused = new ProtoExporter({ url: `${server.url}/v1/traces` });
    expect((await exportOnce(refused, spans)).code).not.toBe(0);
    await refused.shutdown();
    expect(await store.production.experiments()).toEqual([]);
    const exporter = new ProtoExporter({ url: `${server.url}/v1/traces`, compression: 'gzip' as never, headers: { Authorization: `Bearer ${token}` } });
    expect((await exportOnce(exporter, spans)).code).toBe(0);
    expect((await exportOnce(exporter, spans)).code).toBe(0);
    await exporter.shutdown();
    const samples = await store.production.list('shop/answer');
    expect(samples.map((s) => [s.input, s.output])).toEqual([
      ['Where is order 7?', 'Order 7 shipped today.'],
      ['Do you ship to Oslo?', 'Yes, in 3 days.'],
      ['Refund?', ''],
    ]);
    expect(samples[0].trajectory?.steps[0].toolCalls[0]).toMatchObject({ name: 'lookup', result: { status: 'shipped' } });
  });

  it('reads GenAI semantic-convention spans (gen_ai.*) and skips spans without GenAI attributes', async () => {
    const { server, store } = await serve();
    const attr = (key: string, v: string | number) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) } });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [attr('service.name', 'support')] },
          scopeSpans: [
            {
              scope: { name: 'openai' },
              spans: [
                {
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'EEE19B7EC3C1B174',
                  name: 'chat gpt-4o',
                  kind: 3,
                  startTimeUnixNano: '1767225600000000000',
                  endTimeUnixNano: '1767225600450000000',
                  attributes: [
                    attr('gen_ai.operation.name', 'chat'),
                    attr('gen_ai.request.model', 'gpt-4o'),
                    attr('gen_ai.usage.input_tokens', 9),
                    attr('gen_ai.usage.output_tokens', 4),
                    attr('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi there' }] }])),
                    attr(
                      'gen_ai.output.messages',
                      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }], finish_reason: 'stop' }]),
                    ),
                  ],
                  status: {},
                },
                { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b175', name: 'GET /', startTimeUnixNano: 1, endTimeUnixNano: 2 },
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const [s] = await store.production.list('support/chat');
    expect(s).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      input: 'Hi there',
      output: 'Hello!',
      model: 'gpt-4o',
      usage: { promptTokens: 9, completionTokens: 4 },
      latencyMs: 450,
    });
    expect(await store.production.experiments()).toHaveLength(1);
  });

  it('answers malformed, oversized and hostile bodies 4xx with a one-line reason, and writes nothing', async () => {
    const max = 64 * 1024;
    const { server, store } = await serve({ limits: { maxTraceBodyBytes: max } });
    const post = (body: BodyInit, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
      fetch(`${server.url}/v1/traces`, { method: 'POST', headers, body });
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'ai.generateText', startTimeUnixNano: '1', endTimeUnixNano: '2' };
    const good = { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] };
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      ['not JSON', () => post('{"resourceSpans": ['), 400, /not valid JSON/],
      ['not UTF-8', () => post(new Uint8Array([0x7b, 0xff, 0x7d])), 400, /UTF-8/],
      ['an array', () => post('[]'), 400, /body: expected an object, found an array/],
      [
        'a bad span id, after a good span',
        () => post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span, { ...span, spanId: 'xyz' }] }] }] })),
        400,
        /resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.spanId: expected 16 hex digits, not all zero, found "xyz"/,
      ],
      [
        'an all-zero trace id',
        () => post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span, traceId: '0'.repeat(32) }] }] }] })),
        400,
        /traceId/,
      ],
      [
        'end before start',
        () => post(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span, startTimeUnixNano: '5000000', endTimeUnixNano: '1000000' }] }] }] })),
        400,
        /endTimeUnixNano/,
      ],
      ['not protobuf', () => post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { 'Content-Type': 'application/x-protobuf' }), 400, /protobuf/],
      ['oversized', () => post(JSON.stringify({ ...good, pad: 'x'.repeat(max) })), 413, /exceeds the 65536-byte limit/],
      [
        'a gzip bomb',
        () => post(gzipSync(JSON.stringify({ ...good, pad: ' '.repeat(50 * max) })), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
        413,
        /once decompressed/,
      ],
      ['corrupt gzip', () => post(new Uint8Array([1, 2, 3]), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }), 400, /gzip/],
      ['brotli', () => post('{}', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }), 415, /Content-Encoding/],
      ['text/plain', () => post('{}', { 'Content-Type': 'text/plain' }), 415, /x-protobuf/],
      [
        'deep nesting',
        () =>
          post(
            JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span, attributes: [{ key: 'k', value: 'NEST' }] }] }] }] }).replace(
              '"NEST"',
              nest(1200),
            ),
          ),
        200,
        /^$/,
      ],
    ];
    for (const [what, response, status, message] of cases) {
      const res = await response();
      const body = (await res.json()) as { message?: string };
      expect(res.status, what).toBe(status);
      if (status !== 200) {
        expect(body.message, what).toMatch(message);
        expect(body.message, what).not.toContain('\n');
      }
    }
    // Only the deeply nested (but well-formed) export was stored, its value cut at the nesting limit.
    expect((await store.production.list('unknown_service/ai.generateText')).length).toBe(1);
    expect(await store.production.experiments()).toHaveLength(1);
  });

  it('answers 429 with Retry-After while the store is behind, and 404 when the server does not ingest', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const { server, store } = await serve({
      limits: { maxTraceRequests: 1 },
      production: (p) =>
        Object.assign(Object.create(p) as ProductionStore, { ingest: async (...a: Parameters<ProductionStore['ingest']>) => (await held, p.ingest(...a)) }),
    });
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [{ spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'ai.generateText', startTimeUnixNano: '1', endTimeUnixNano: '2' }] }],
        },
      ],
    });
    const post = () => fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const first = post();
    // The first export is being stored (held); the next is refused until it is done.
    let second: Response;
    for (;;) {
      second = await post();
      if (second.status === 429) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(second.headers.get('retry-after')).toBe('1');
    expect(((await second.json()) as { message: string }).message).toMatch(/retry after 1 s/);
    release();
    expect((await first).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect(await store.production.list('unknown_service/ai.generateText')).toHaveLength(1);

    const plain = await startServer({ port: 0, log: false, store });
    try {
      const res = await fetch(`${plain.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toMatch(/assay serve --ingest/);
    } finally {
      await plain.close();
    }
  });
});

/** An AnyValue nested `depth` deep, as JSON text (built as text: JSON.stringify would recurse as deep). */
function nest(depth: number): string {
  return '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth) + '{"stringValue":"x"}' + '}]}}'.repeat(depth);
}
