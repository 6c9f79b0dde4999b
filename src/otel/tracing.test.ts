import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Validator } from '../core/validator.js';
import type { SystemUnderTest } from '../providers/types.js';
import { runExperiment } from '../run/runner.js';
import { MemoryStore } from '../store/memory.js';
import { decodeOtlpJson, type OtlpSpan } from './otlp.js';
import { startTracingFromEnv } from './sdk.js';
import { startRunTrace } from './tracing.js';

let server: Server | undefined;
afterEach(async () => {
  trace.disable();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A receiver of OTLP/HTTP JSON exports: every span posted to it, read by assay's own OTLP reader. */
async function receiver(): Promise<{ url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      spans.push(...decodeOtlpJson(JSON.parse(body)));
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, spans };
}

const agent: SystemUnderTest = {
  id: 'agent:shop',
  async generate(input) {
    return {
      text: `answer to ${String(input)}`,
      latencyMs: 40,
      usage: { promptTokens: 30, completionTokens: 10 },
      costUsd: 0.002,
      trajectory: {
        steps: [
          { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: input }, result: 'found', durationMs: 5 }], latencyMs: 10 },
          { text: `answer to ${String(input)}`, toolCalls: [], latencyMs: 20 },
        ],
        ended: 'final',
      },
    };
  },
};

const rules: Validator[] = [
  { name: 'short', message: 'too long', predicate: (o) => o.length < 12, minSuccess: 0.5 },
  {
    name: 'judge',
    message: 'judged',
    minSuccess: 0.5,
    kind: 'verifier',
    predicate: () => true,
    evaluate: async () => ({ outcome: 'pass', reasons: ['fine'], usage: { promptTokens: 100, completionTokens: 3 }, costUsd: 0.0004 }),
  },
];

describe('traces out', () => {
  it('a run emits run → sample → model call, tool call and judge call spans through the official SDK over OTLP/HTTP', async () => {
    const { url, spans } = await receiver();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'assay-test' }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    trace.setGlobalTracerProvider(provider);
    await using store = new MemoryStore();
    const result = await runExperiment({
      experiment: { name: 'shop', inputs: ['a', 'bb'], samples: 2, validators: rules, serialisable: {} },
      system: agent,
      store,
    });
    expect(result.status).toBe('complete');
    await provider.forceFlush();
    await provider.shutdown();

    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [run] = byName('assay.run shop');
    expect(run.attributes).toMatchObject({ 'assay.run.id': result.run.id, 'assay.run.status': 'complete', 'assay.design.inputs': 2, 'assay.design.rules': 2 });
    expect(run.resource['service.name']).toBe('assay-test');
    const samples = byName('assay.sample');
    expect(samples).toHaveLength(4);
    for (const s of samples) {
      expect(s.traceId).toBe(run.traceId);
      expect(s.parentSpanId).toBe(run.spanId);
      expect(s.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 130, 'gen_ai.usage.output_tokens': 13 });
      expect(s.attributes['assay.cost.usd']).toBeCloseTo(0.0024, 10);
      const checks = s.events.filter((e) => e.name === 'assay.check').map((e) => [e.attributes['assay.rule'], e.attributes['assay.outcome']]);
      expect(checks).toEqual([
        ['short', s.attributes['assay.sample.i'] === 0 ? 'pass' : 'fail'],
        ['judge', 'pass'],
      ]);
      const children = spans.filter((c) => c.parentSpanId === s.spanId);
      const chat = children.find((c) => c.name === 'chat agent:shop')!;
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 10,
        'assay.cost.usd': 0.002,
      });
      const judge = children.find((c) => c.name === 'chat judge')!;
      expect(judge.attributes).toMatchObject({ 'assay.judge': true, 'assay.outcome': 'pass', 'gen_ai.usage.input_tokens': 100 });
      const [tool] = spans.filter((c) => c.parentSpanId === chat.spanId);
      expect(tool).toMatchObject({
        name: 'execute_tool lookup',
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'c1' },
      });
      expect(tool.startMs).toBeGreaterThanOrEqual(chat.startMs);
      expect(tool.endMs).toBeLessThanOrEqual(chat.endMs);
      // Content stays out unless asked for.
      expect(chat.attributes['gen_ai.output.messages']).toBeUndefined();
    }
  });

  it('assay run sets the SDK up from the standard OTEL_EXPORTER_OTLP_* variables, and only then', async () => {
    const { url, spans } = await receiver();
    expect(await startTracingFromEnv({})).toBeUndefined();
    const warnings: string[] = [];
    expect(
      await startTracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, (w) => warnings.push(w)),
    ).toBeUndefined();
    expect(warnings[0]).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc: assay exports traces over http\/json or http\/protobuf only/);
    const saved = { ...process.env };
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = url;
    process.env.OTEL_SERVICE_NAME = 'ci-evals';
    try {
      const tracing = await startTracingFromEnv(process.env);
      expect(tracing).toBeDefined();
      await using store = new MemoryStore();
      await runExperiment({ experiment: { name: 'env', inputs: ['a'], samples: 1, validators: rules.slice(0, 1), serialisable: {} }, system: agent, store });
      await tracing!.shutdown();
    } finally {
      process.env = saved;
    }
    expect(spans.map((s) => s.name).sort()).toEqual(['assay.run env', 'assay.sample', 'chat agent:shop', 'execute_tool lookup']);
    expect(spans[0].resource['service.name']).toBe('ci-evals');
  });

  it('is a no-op without a tracer provider', () => {
    expect(startRunTrace({ id: 'r', name: 'x', N: 1, M: 1, K: 1, systemId: 's' }).context).toBeUndefined();
  });
});
