import type { TokenUsage } from './call.js';
import type { ToolCallRecord, Trajectory, TrajectoryStep } from './trajectory.js';

/**
 * Production traffic: the calls a deployed LLM feature made, as its OpenTelemetry spans told them (src/otel
 * reads OTLP into these records). A GenAI span that starts an operation (the AI SDK's `ai.generateText`, a
 * `gen_ai.*` chat span) is one *sample* of a production experiment named by its service and operation; the
 * spans inside it (the AI SDK's model calls `…doGenerate` and tool calls `ai.toolCall`, `execute_tool` spans)
 * are its *steps*, assembled into the agent's trajectory (core/trajectory.ts) when the sample is read.
 * Spans are stored once per (trace id, span id): a retried export adds nothing.
 */

/** One GenAI span as stored: a sample, or a step of one (its parent span is the sample). */
export interface ProductionSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits; with traceId, the span's identity (idempotence). */
  spanId: string;
  parentSpanId?: string;
  kind: 'sample' | 'step';
  /** `service/operation`: the production experiment of a sample (steps carry their sample's when known). */
  experiment: string;
  /** The span's name, e.g. `ai.generateText` or `chat gpt-4o`. */
  name: string;
  /** Span start and end, ms since the epoch. */
  startMs: number;
  endMs: number;
  input?: string;
  output?: string;
  model?: string;
  usage?: TokenUsage;
  /** The span's status said it failed: an infrastructure error, never a failure of a rule. */
  error?: string;
  /** A model-call step: the step as the trajectory keeps it. */
  step?: TrajectoryStep;
  /** A tool-call step. */
  toolCall?: ToolCallRecord;
}

/** A stored sample of a production experiment, with the position in its stream. */
export interface ProductionSample {
  /** Position in the store's stream of samples, increasing in the order they were stored (the monitor's cursor). */
  seq: number;
  experiment: string;
  traceId: string;
  spanId: string;
  name: string;
  startMs: number;
  endMs: number;
  latencyMs: number;
  input?: string;
  output?: string;
  model?: string;
  usage?: TokenUsage;
  error?: string;
  /** Assembled from the sample's step spans, when it has any. */
  trajectory?: Trajectory;
}

/** A production experiment and the extent of its stream. */
export interface ProductionExperiment {
  name: string;
  samples: number;
  firstMs: number;
  lastMs: number;
}

/** The experiment of a span: `service/operation`, each part trimmed and never empty. */
export function productionExperimentName(service: string | undefined, operation: string | undefined): string {
  const clean = (s: string | undefined, fallback: string) => (s ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim() || fallback; // eslint-disable-line no-control-regex
  return `${clean(service, 'unknown_service')}/${clean(operation, 'unknown_operation')}`;
}

/**
 * A sample's trajectory from its step spans (any order): model-call steps in order of start, each tool-call
 * span joined to the call of the same id its model step asked for (or, unmatched, a step of its own).
 * Undefined when there are no steps.
 */
export function trajectoryOfSteps(steps: readonly ProductionSpan[]): Trajectory | undefined {
  if (steps.length === 0) return undefined;
  const ordered = [...steps].sort((a, b) => a.startMs - b.startMs || a.spanId.localeCompare(b.spanId));
  const out: TrajectoryStep[] = [];
  const byId = new Map<string, ToolCallRecord>();
  for (const s of ordered) {
    if (!s.step) continue;
    const step: TrajectoryStep = { ...s.step, toolCalls: s.step.toolCalls.map((c) => ({ ...c })) };
    for (const c of step.toolCalls) if (c.id) byId.set(c.id, c);
    out.push(step);
  }
  for (const s of ordered) {
    if (!s.toolCall) continue;
    const asked = s.toolCall.id ? byId.get(s.toolCall.id) : undefined;
    if (asked) {
      if (s.toolCall.result !== undefined) asked.result = s.toolCall.result;
      if (s.toolCall.error !== undefined) asked.error = s.toolCall.error;
      if (s.toolCall.durationMs !== undefined) asked.durationMs = s.toolCall.durationMs;
    } else out.push({ toolCalls: [{ ...s.toolCall }], latencyMs: s.endMs - s.startMs });
  }
  return out.length ? { steps: out, ended: 'final' } : undefined;
}
