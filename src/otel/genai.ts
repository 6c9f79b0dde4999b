import type { TokenUsage } from '../core/call.js';
import { productionExperimentName, type ProductionSpan } from '../core/production.js';
import type { ToolCallRecord, TrajectoryStep } from '../core/trajectory.js';
import type { AttributeValue, OtlpSpan } from './otlp.js';

/**
 * Which spans of an OTLP export are production traffic, and what each says. Two vocabularies are read:
 *
 * - OpenTelemetry's GenAI semantic conventions (`gen_ai.*`): an operation span (`chat`, `invoke_agent`, …) is
 *   a sample; inside an `invoke_agent` span, its model calls and `execute_tool` spans are its steps. Input and
 *   output from `gen_ai.input.messages` / `gen_ai.output.messages`, the older `gen_ai.prompt` /
 *   `gen_ai.completion` (also numbered, `gen_ai.prompt.0.content`), or the `gen_ai.*.message` / `gen_ai.choice` events.
 * - The AI SDK's telemetry (`ai.*`): `ai.generateText`, `ai.streamText`, `ai.generateObject`, … are samples;
 *   their `…doGenerate` / `…doStream` model calls and `ai.toolCall` spans are steps.
 *
 * The experiment is `service.name/operation`, the operation being the AI SDK's function id (or its operation),
 * or the GenAI agent's name (or the operation's name). Every other span is not production traffic and is skipped.
 */
export function productionSpansOf(spans: readonly OtlpSpan[]): ProductionSpan[] {
  const byId = new Map(spans.map((s) => [`${s.traceId}:${s.spanId}`, s]));
  const out: ProductionSpan[] = [];
  for (const s of spans) {
    const aiOperation = str(s.attributes['ai.operationId']) ?? (s.name.startsWith('ai.') ? s.name.split(' ')[0] : undefined);
    if (aiOperation) out.push(aiSdkSpan(s, aiOperation));
    else if (Object.keys(s.attributes).some((k) => k.startsWith('gen_ai.'))) {
      const parent = s.parentSpanId ? byId.get(`${s.traceId}:${s.parentSpanId}`) : undefined;
      out.push(genAiSpan(s, parent));
    }
  }
  return out;
}

function str(v: AttributeValue | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function num(v: AttributeValue | undefined): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function json(v: AttributeValue | undefined): unknown {
  if (typeof v !== 'string') return v ?? undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

// eslint-disable-next-line no-control-regex
const cleanName = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300);

function usageOf(a: Record<string, AttributeValue>): TokenUsage | undefined {
  const input =
    num(a['gen_ai.usage.input_tokens']) ?? num(a['gen_ai.usage.prompt_tokens']) ?? num(a['ai.usage.inputTokens']) ?? num(a['ai.usage.promptTokens']);
  const output =
    num(a['gen_ai.usage.output_tokens']) ?? num(a['gen_ai.usage.completion_tokens']) ?? num(a['ai.usage.outputTokens']) ?? num(a['ai.usage.completionTokens']);
  return input === undefined && output === undefined ? undefined : { promptTokens: input ?? 0, completionTokens: output ?? 0 };
}

function errorOf(s: OtlpSpan): string | undefined {
  if (s.statusCode !== 2) return undefined;
  const exception = s.events.find((e) => e.name === 'exception');
  return s.statusMessage || str(exception?.attributes['exception.message']) || 'the span ended with an error status';
}

function modelOf(a: Record<string, AttributeValue>): string | undefined {
  return str(a['gen_ai.response.model']) ?? str(a['ai.response.model']) ?? str(a['gen_ai.request.model']) ?? str(a['ai.model.id']);
}

/** Text of one message's content: a string, or the text parts of a list of parts (AI SDK and GenAI shapes). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .map((p) =>
      typeof p === 'string'
        ? p
        : p && typeof p === 'object'
          ? ((p as { text?: unknown; content?: unknown }).text ?? (p as { content?: unknown }).content)
          : undefined,
    )
    .filter((t): t is string => typeof t === 'string');
  return texts.length ? texts.join('\n') : undefined;
}

/** The last message of `role` in a list of messages (`content` or GenAI `parts`). */
function lastMessage(messages: unknown, role: string): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let n = messages.length - 1; n >= 0; n--) {
    const m = messages[n] as { role?: unknown; content?: unknown; parts?: unknown } | null;
    if (m && typeof m === 'object' && m.role === role) return contentText(m.content ?? m.parts);
  }
  return undefined;
}

function common(s: OtlpSpan, kind: 'sample' | 'step', experiment: string): ProductionSpan {
  const a = s.attributes;
  const model = modelOf(a);
  const usage = usageOf(a);
  const error = errorOf(s);
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    kind,
    experiment,
    name: cleanName(s.name),
    startMs: s.startMs,
    endMs: s.endMs,
    ...(model !== undefined ? { model } : {}),
    ...(usage ? { usage } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

function toolCallsOf(v: AttributeValue | undefined): ToolCallRecord[] {
  const calls = json(v);
  if (!Array.isArray(calls)) return [];
  return calls
    .filter((c): c is Record<string, unknown> => Boolean(c) && typeof c === 'object')
    .map((c) => {
      const raw = c.args ?? c.input ?? c.arguments;
      const args = typeof raw === 'string' ? json(raw) : raw;
      const id = c.toolCallId ?? c.id;
      return {
        ...(typeof id === 'string' ? { id } : {}),
        name: String(c.toolName ?? c.name ?? ''),
        arguments: args,
        ...(typeof raw === 'string' && args === raw ? { argumentsText: raw } : {}),
      };
    });
}

function aiSdkSpan(s: OtlpSpan, operationId: string): ProductionSpan {
  const a = s.attributes;
  const functionId = str(a['ai.telemetry.functionId']) ?? str(a['resource.name']);
  const experiment = productionExperimentName(str(s.resource['service.name']), functionId ?? operationId);
  const latencyMs = s.endMs - s.startMs;
  if (operationId === 'ai.toolCall') {
    const raw = a['ai.toolCall.args'] ?? a['ai.toolCall.input'];
    const result = a['ai.toolCall.result'] ?? a['ai.toolCall.output'];
    const id = str(a['ai.toolCall.id']);
    const error = errorOf(s);
    const toolCall: ToolCallRecord = {
      ...(id ? { id } : {}),
      name: str(a['ai.toolCall.name']) ?? '',
      arguments: json(raw),
      ...(result !== undefined ? { result: json(result) } : {}),
      ...(error ? { error } : {}),
      durationMs: latencyMs,
    };
    return { ...common(s, 'step', experiment), toolCall };
  }
  if (/\.do(Generate|Stream|Embed)$/.test(operationId)) {
    const text = str(a['ai.response.text']);
    const usage = usageOf(a);
    const finishReason = str(a['ai.response.finishReason']);
    const step: TrajectoryStep = {
      ...(text ? { text } : {}),
      toolCalls: toolCallsOf(a['ai.response.toolCalls']),
      ...(usage ? { usage } : {}),
      latencyMs,
      ...(finishReason ? { finishReason } : {}),
    };
    return { ...common(s, 'step', experiment), step };
  }
  const prompt = json(a['ai.prompt']) as { prompt?: unknown; messages?: unknown } | string | undefined;
  const input =
    typeof prompt === 'string'
      ? prompt
      : prompt && typeof prompt === 'object'
        ? (contentText(prompt.prompt) ?? lastMessage(prompt.messages, 'user') ?? str(a['ai.prompt']))
        : str(a['ai.value']);
  const output = str(a['ai.response.text']) ?? str(a['ai.response.object']);
  return { ...common(s, 'sample', experiment), ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}) };
}

/** Input and output of a GenAI span from its attributes or, in older instrumentations, its events. */
function genAiText(s: OtlpSpan): { input?: string; output?: string } {
  const a = s.attributes;
  const input =
    lastMessage(json(a['gen_ai.input.messages']), 'user') ??
    str(a['gen_ai.prompt']) ??
    str(a['gen_ai.prompt.0.content']) ??
    (() => {
      const e = [...s.events].reverse().find((x) => x.name === 'gen_ai.user.message' || x.name === 'gen_ai.content.prompt');
      return e && (str(e.attributes.content) ?? str(e.attributes['gen_ai.prompt']));
    })();
  const outputs = json(a['gen_ai.output.messages']);
  const output =
    (Array.isArray(outputs) ? lastMessage(outputs, 'assistant') : undefined) ??
    str(a['gen_ai.completion']) ??
    str(a['gen_ai.completion.0.content']) ??
    (() => {
      const e = s.events.find((x) => x.name === 'gen_ai.choice' || x.name === 'gen_ai.content.completion');
      if (!e) return undefined;
      const message = json(e.attributes.message) as { content?: unknown } | undefined;
      return contentText(message?.content) ?? str(e.attributes['gen_ai.completion']) ?? str(e.attributes.content);
    })();
  return { ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}) };
}

function genAiSpan(s: OtlpSpan, parent: OtlpSpan | undefined): ProductionSpan {
  const a = s.attributes;
  const operation = str(a['gen_ai.operation.name']);
  const experiment = productionExperimentName(str(s.resource['service.name']), str(a['gen_ai.agent.name']) ?? operation ?? s.name.split(' ')[0]);
  const parentIsAgent = parent !== undefined && str(parent.attributes['gen_ai.operation.name']) === 'invoke_agent';
  if (operation === 'execute_tool' && s.parentSpanId) {
    const id = str(a['gen_ai.tool.call.id']);
    const result = a['gen_ai.tool.call.result'];
    const error = errorOf(s);
    const raw = a['gen_ai.tool.call.arguments'];
    const toolCall: ToolCallRecord = {
      ...(id ? { id } : {}),
      name: str(a['gen_ai.tool.name']) ?? '',
      arguments: json(raw),
      ...(result !== undefined ? { result: json(result) } : {}),
      ...(error ? { error } : {}),
      durationMs: s.endMs - s.startMs,
    };
    return { ...common(s, 'step', experiment), toolCall };
  }
  const text = genAiText(s);
  if (parentIsAgent) {
    const outputs = json(a['gen_ai.output.messages']);
    const parts = Array.isArray(outputs) ? outputs.flatMap((m) => ((m as { parts?: unknown[] })?.parts ?? []) as Record<string, unknown>[]) : [];
    const toolCalls = parts.filter((p) => p && p.type === 'tool_call');
    const usage = usageOf(a);
    const finish = a['gen_ai.response.finish_reasons'];
    const step: TrajectoryStep = {
      ...(text.output ? { text: text.output } : {}),
      toolCalls: toolCallsOf(JSON.stringify(toolCalls)),
      ...(usage ? { usage } : {}),
      latencyMs: s.endMs - s.startMs,
      ...(Array.isArray(finish) && typeof finish[0] === 'string' ? { finishReason: finish[0] } : {}),
    };
    return { ...common(s, 'step', experiment), step };
  }
  return { ...common(s, 'sample', experiment), ...text };
}
