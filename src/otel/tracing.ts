import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';
import type { TokenUsage } from '../core/call.js';
import type { Trajectory } from '../core/trajectory.js';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';

/**
 * The spans a run emits, through `@opentelemetry/api` and OpenTelemetry's GenAI semantic conventions:
 *
 *   assay.run <name>                 the run (assay.run.id, the N×M×K design, its status)
 *   └ assay.sample                   one sample (i, j): tokens and cost; each rule's outcome as an `assay.check` event
 *     ├ chat <model>                 the generation (gen_ai.operation.name chat, gen_ai.usage.*); an agent's steps:
 *     │ └ execute_tool <tool>        its tool calls (gen_ai.tool.name, gen_ai.tool.call.id)
 *     └ chat <judge>                 a verifier's judge call (assay.rule, tokens, cost)
 *
 * Nothing is recorded unless a tracer provider is registered: by the application (assay as a library) or by
 * `assay run` when the standard OTEL_EXPORTER_OTLP_* variables are set (otel/sdk.ts). Spans of a sample are
 * made when it is done, with the times it took, so tracing adds nothing to the calls themselves.
 */

const TRACER = 'assay';

function tracer() {
  return trace.getTracer(TRACER);
}

/** Input and output text are recorded only when asked (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), as GenAI instrumentations do. */
function captureContent(): boolean {
  return /^(1|true)$/i.test(process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '');
}

export interface RunTrace {
  /** The context samples' spans are made in (undefined when nothing records). */
  readonly context?: Context;
  end(status: string, error?: unknown): void;
}

const NOOP: RunTrace = { end: () => {} };

/** Start a run's span; a no-op object when no tracer provider records. */
export function startRunTrace(run: { id: string; name: string; N: number; M: number; K: number; systemId: string }): RunTrace {
  const span = tracer().startSpan(`assay.run ${run.name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'assay.run.id': run.id,
      'assay.experiment': run.name,
      'assay.system': run.systemId,
      'assay.design.inputs': run.N,
      'assay.design.samples': run.M,
      'assay.design.rules': run.K,
    },
  });
  if (!span.isRecording()) return NOOP;
  return {
    context: trace.setSpan(context.active(), span),
    end(status, error) {
      span.setAttribute('assay.run.status', status);
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}

function usageAttributes(u: TokenUsage | undefined): Attributes {
  return u ? { 'gen_ai.usage.input_tokens': u.promptTokens, 'gen_ai.usage.output_tokens': u.completionTokens } : {};
}

export interface SampleTrace {
  parent: Context;
  i: number;
  j: number;
  input: InputValue;
  /** Wall-clock start (ms since the epoch) and end. */
  startMs: number;
  endMs: number;
  systemId: string;
  attempts: number;
  /** The generation, or its failure. */
  output?: string;
  generationError?: string;
  generation?: { latencyMs: number; usage?: TokenUsage; costUsd?: number; model?: string; trajectory?: Trajectory; cached?: boolean };
  rules: readonly Validator[];
  /** Per rule: its result, or undefined when not run (settled by a stop rule). */
  results: readonly (CheckResult | undefined)[];
  usage?: TokenUsage;
  costUsd?: number;
}

/** Record one finished sample's spans (see the file comment). */
export function traceSample(t: SampleTrace): void {
  const capture = captureContent();
  const sample = tracer().startSpan(
    'assay.sample',
    {
      startTime: t.startMs,
      attributes: {
        'assay.sample.i': t.i,
        'assay.sample.j': t.j,
        'assay.attempts': t.attempts,
        ...usageAttributes(t.usage),
        ...(t.costUsd !== undefined ? { 'assay.cost.usd': t.costUsd } : {}),
        ...(capture ? { 'assay.input': typeof t.input === 'string' ? t.input : JSON.stringify(t.input) } : {}),
      },
    },
    t.parent,
  );
  const inSample = trace.setSpan(t.parent, sample);
  const g = t.generation;
  const genStart = t.startMs;
  const genEnd = g ? Math.min(t.endMs, genStart + g.latencyMs) : t.endMs;
  const chat = tracer().startSpan(
    `chat ${g?.model ?? t.systemId}`,
    {
      kind: SpanKind.CLIENT,
      startTime: genStart,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': t.systemId.split(':')[0],
        ...(g?.model ? { 'gen_ai.request.model': g.model } : {}),
        ...usageAttributes(g?.usage),
        ...(g?.costUsd !== undefined ? { 'assay.cost.usd': g.costUsd } : {}),
        ...(g?.cached ? { 'assay.cached': true } : {}),
        ...(capture && t.output !== undefined
          ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: t.output }] }]) }
          : {}),
      },
    },
    inSample,
  );
  if (t.generationError !== undefined) {
    chat.setStatus({ code: SpanStatusCode.ERROR, message: t.generationError });
    sample.setStatus({ code: SpanStatusCode.ERROR, message: t.generationError });
  }
  // An agent's tool calls, placed in time after the model step that asked for them.
  if (g?.trajectory) {
    const inChat = trace.setSpan(inSample, chat);
    let at = genStart;
    for (const step of g.trajectory.steps) {
      at += step.latencyMs ?? 0;
      for (const call of step.toolCalls) {
        const duration = call.durationMs ?? 0;
        const tool = tracer().startSpan(
          `execute_tool ${call.name}`,
          {
            kind: SpanKind.INTERNAL,
            startTime: Math.min(at, genEnd),
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': call.name,
              ...(call.id ? { 'gen_ai.tool.call.id': call.id } : {}),
              ...(capture ? { 'gen_ai.tool.call.arguments': JSON.stringify(call.arguments ?? call.argumentsText ?? null) } : {}),
            },
          },
          inChat,
        );
        if (call.error !== undefined) tool.setStatus({ code: SpanStatusCode.ERROR, message: call.error });
        tool.end(Math.min(at + duration, genEnd));
        at += duration;
      }
    }
  }
  chat.end(genEnd);
  t.rules.forEach((rule, k) => {
    const r = t.results[k];
    if (!r) return;
    const reason = r.outcome === 'error' ? r.error : r.reasons?.join('; ');
    sample.addEvent(
      'assay.check',
      { 'assay.rule': rule.name, 'assay.rule.kind': rule.kind ?? 'validator', 'assay.outcome': r.outcome, ...(reason ? { 'assay.reason': reason } : {}) },
      genEnd,
    );
    if (rule.kind === 'verifier') {
      const judge = tracer().startSpan(
        `chat ${rule.name}`,
        {
          kind: SpanKind.CLIENT,
          startTime: genEnd,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'assay.rule': rule.name,
            'assay.judge': true,
            'assay.outcome': r.outcome,
            ...usageAttributes(r.usage),
            ...(r.costUsd !== undefined ? { 'assay.cost.usd': r.costUsd } : {}),
          },
        },
        inSample,
      );
      if (r.outcome === 'error') judge.setStatus({ code: SpanStatusCode.ERROR, message: r.error ?? 'error' });
      judge.end(t.endMs);
    }
  });
  sample.end(t.endMs);
}
