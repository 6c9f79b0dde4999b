import type { ProductionSample, ProductionSpan } from '../core/production.js';
import type { ProductionAlarm, ProductionCheck } from './types.js';

/** The production tables' rows (SQLite and PostgreSQL alike) and the Store's records. */

export const SPAN_COLUMNS = [
  'trace_id',
  'span_id',
  'parent_span_id',
  'kind',
  'experiment',
  'name',
  'start_ms',
  'end_ms',
  'input',
  'output',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'error',
  'step_json',
] as const;

export interface SpanRow {
  seq: number | string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  kind: 'sample' | 'step';
  experiment: string;
  name: string;
  start_ms: number;
  end_ms: number;
  input: string | null;
  output: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  error: string | null;
  step_json: string | null;
}

/**
 * A span's values in SPAN_COLUMNS order. `text` turns free text into what the column holds: as it is for
 * SQLite, a JSON string for PostgreSQL (whose text cannot hold U+0000).
 */
export function spanValues(s: ProductionSpan, text: (v: string | undefined) => string | null = (v) => v ?? null): unknown[] {
  const step = s.step ? { step: s.step } : s.toolCall ? { toolCall: s.toolCall } : undefined;
  return [
    s.traceId,
    s.spanId,
    s.parentSpanId ?? null,
    s.kind,
    s.experiment,
    s.name,
    s.startMs,
    s.endMs,
    text(s.input),
    text(s.output),
    text(s.model),
    s.usage?.promptTokens ?? null,
    s.usage?.completionTokens ?? null,
    text(s.error),
    step ? JSON.stringify(step) : null,
  ];
}

/** A stored span back as a record; `text` undoes spanValues' `text`. */
export function toSpan(r: SpanRow, text: (v: string | null) => string | undefined = (v) => v ?? undefined): ProductionSpan {
  const s: ProductionSpan = {
    traceId: r.trace_id,
    spanId: r.span_id,
    kind: r.kind,
    experiment: r.experiment,
    name: r.name,
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
  };
  if (r.parent_span_id !== null) s.parentSpanId = r.parent_span_id;
  const input = text(r.input);
  const output = text(r.output);
  const model = text(r.model);
  const error = text(r.error);
  if (input !== undefined) s.input = input;
  if (output !== undefined) s.output = output;
  if (model !== undefined) s.model = model;
  if (error !== undefined) s.error = error;
  if (r.prompt_tokens !== null || r.completion_tokens !== null) s.usage = { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 };
  if (r.step_json !== null) Object.assign(s, JSON.parse(r.step_json) as Pick<ProductionSpan, 'step' | 'toolCall'>);
  return s;
}

/** A sample span and its stream position as the sample the Store returns (its trajectory is added by the caller). */
export function toSample(seq: number, s: ProductionSpan): ProductionSample {
  const { traceId, spanId, experiment, name, startMs, endMs, input, output, model, usage, error } = s;
  return {
    seq,
    experiment,
    traceId,
    spanId,
    name,
    startMs,
    endMs,
    latencyMs: Math.max(0, endMs - startMs),
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(usage ? { usage } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

export interface CheckRow {
  seq: number | string;
  outcome: ProductionCheck['outcome'];
  at_ms: number;
  reason: string | null;
}

export function toCheck(r: CheckRow, text: (v: string | null) => string | undefined = (v) => v ?? undefined): ProductionCheck {
  const reason = text(r.reason);
  return { seq: Number(r.seq), outcome: r.outcome, atMs: Number(r.at_ms), ...(reason !== undefined ? { reason } : {}) };
}

export interface AlarmRow {
  experiment: string;
  rule: string;
  kind: ProductionAlarm['kind'];
  at_seq: number | string;
  at_ms: number;
  message: string;
  raised_at: string | Date;
  /** Absent in a store before the column (opened read-only). */
  delivered?: number | boolean | null;
}

export function toAlarm(r: AlarmRow): ProductionAlarm {
  return {
    experiment: r.experiment,
    rule: r.rule,
    kind: r.kind,
    atSeq: Number(r.at_seq),
    atMs: Number(r.at_ms),
    message: r.message,
    raisedAt: typeof r.raised_at === 'string' ? r.raised_at : r.raised_at.toISOString(),
    ...(r.delivered === null || r.delivered === undefined ? {} : { delivered: Boolean(r.delivered) }),
  };
}

/** Control characters out of a rule's name or an alarm's message (they are shown on one line). */
export function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
