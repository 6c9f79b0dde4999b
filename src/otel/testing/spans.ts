import type { Attributes } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';

/**
 * Test support: spans as an instrumented app makes them, through the official OpenTelemetry SDK (kept in
 * memory, for a test to export with an official OTLP exporter). `aiSdkCall` shapes them as the AI SDK's
 * telemetry does: `ai.generateText` holding `ai.generateText.doGenerate` model calls and `ai.toolCall` spans.
 */
export function recordingProvider(service = 'shop'): { provider: BasicTracerProvider; memory: InMemorySpanExporter } {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  return { provider, memory };
}

export interface AiSdkCall {
  functionId?: string;
  prompt: string;
  answer: string;
  /** A tool the model calls first (its result comes back before the final answer). */
  tool?: { name: string; args: unknown; result: unknown };
  error?: string;
  startMs?: number;
}

/** One `generateText` call as the AI SDK's telemetry records it; returns the top span's ids. */
export function aiSdkCall(provider: BasicTracerProvider, call: AiSdkCall): { traceId: string; spanId: string } {
  const tracer = provider.getTracer('ai');
  const t0 = call.startMs ?? 1_767_225_600_000;
  const common: Attributes = {
    'ai.model.id': 'gpt-4o-mini',
    'ai.model.provider': 'openai.chat',
    ...(call.functionId ? { 'ai.telemetry.functionId': call.functionId } : {}),
  };
  const top = tracer.startSpan(
    'ai.generateText',
    {
      startTime: t0,
      attributes: {
        ...common,
        'ai.operationId': 'ai.generateText',
        'operation.name': `ai.generateText${call.functionId ? ` ${call.functionId}` : ''}`,
        'ai.prompt': JSON.stringify({ prompt: call.prompt }),
      },
    },
    ROOT_CONTEXT,
  );
  const ctx = trace.setSpan(ROOT_CONTEXT, top);
  let t = t0 + 5;
  if (call.tool) {
    const step = tracer.startSpan(
      'ai.generateText.doGenerate',
      {
        startTime: t,
        attributes: {
          ...common,
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.response.toolCalls': JSON.stringify([
            { toolCallType: 'function', toolCallId: 'call-1', toolName: call.tool.name, args: JSON.stringify(call.tool.args) },
          ]),
          'ai.response.finishReason': 'tool-calls',
          'gen_ai.system': 'openai.chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 20,
          'gen_ai.usage.output_tokens': 8,
        },
      },
      ctx,
    );
    step.end(t + 100);
    t += 110;
    const tool = tracer.startSpan(
      'ai.toolCall',
      {
        startTime: t,
        attributes: {
          'ai.operationId': 'ai.toolCall',
          'ai.toolCall.name': call.tool.name,
          'ai.toolCall.id': 'call-1',
          'ai.toolCall.args': JSON.stringify(call.tool.args),
          'ai.toolCall.result': JSON.stringify(call.tool.result),
        },
      },
      ctx,
    );
    tool.end(t + 30);
    t += 40;
  }
  const last = tracer.startSpan(
    'ai.generateText.doGenerate',
    {
      startTime: t,
      attributes: {
        ...common,
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.response.text': call.answer,
        'ai.response.finishReason': 'stop',
        'gen_ai.system': 'openai.chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 12,
      },
    },
    ctx,
  );
  last.end(t + 200);
  top.setAttributes({ 'ai.response.text': call.answer, 'ai.usage.promptTokens': call.tool ? 50 : 30, 'ai.usage.completionTokens': call.tool ? 20 : 12 });
  if (call.error) top.setStatus({ code: 2, message: call.error });
  top.end(t + 210);
  return { traceId: top.spanContext().traceId, spanId: top.spanContext().spanId };
}

export type { ReadableSpan };
