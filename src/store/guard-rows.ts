import type { GuardAttemptRecord, GuardCallRecord } from './types.js';

/**
 * The guard's attempt log as table rows, shared by the SQL adapters: two tables, guard_calls and
 * guard_attempts (their layout is that of the attempt log assay kept in its own SQLite tables before it
 * joined the Store, so existing files read on). JSON-valued columns travel as JSON text both ways.
 */

export interface GuardAttemptRow {
  call_id: string;
  n: number;
  system_id: string;
  started_at: string | Date;
  input_json: string;
  output: string | null;
  generation_error: string | null;
  status: string;
  validators_json: string;
  verifier_json: string | null;
  reasons_json: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  verifier_prompt_tokens: number;
  verifier_completion_tokens: number;
}

export interface GuardCallRow {
  call_id: string;
  system_id: string;
  input_json: string;
  accepted: number | boolean;
  reason: string;
  detail: string | null;
  output: string | null;
  attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number | null;
  latency_ms: number;
  finished_at: string | Date;
}

export const GUARD_ATTEMPT_COLUMNS = [
  'call_id',
  'n',
  'system_id',
  'started_at',
  'input_json',
  'output',
  'generation_error',
  'status',
  'validators_json',
  'verifier_json',
  'reasons_json',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'verifier_prompt_tokens',
  'verifier_completion_tokens',
] as const;

export const GUARD_CALL_COLUMNS = [
  'call_id',
  'system_id',
  'input_json',
  'accepted',
  'reason',
  'detail',
  'output',
  'attempts',
  'prompt_tokens',
  'completion_tokens',
  'cost',
  'latency_ms',
  'finished_at',
] as const;

const iso = (v: string | Date) => (v instanceof Date ? v.toISOString() : v);

/** Column values in GUARD_ATTEMPT_COLUMNS order; `text` encodes a string column (Postgres keeps them as JSON). */
export function guardAttemptValues(a: GuardAttemptRecord, text: (s: string | undefined) => unknown = (s) => s ?? null): unknown[] {
  return [
    a.callId,
    a.n,
    a.systemId,
    a.startedAt,
    JSON.stringify(a.input),
    text(a.output),
    text(a.generationError),
    a.status,
    JSON.stringify(a.validators),
    a.verifier ? JSON.stringify(a.verifier) : null,
    JSON.stringify(a.reasons),
    a.latencyMs,
    a.usage.system.promptTokens,
    a.usage.system.completionTokens,
    a.usage.verifier.promptTokens,
    a.usage.verifier.completionTokens,
  ];
}

export function guardCallValues(c: GuardCallRecord, accepted: (b: boolean) => unknown, text: (s: string | undefined) => unknown = (s) => s ?? null): unknown[] {
  return [
    c.callId,
    c.systemId,
    JSON.stringify(c.input),
    accepted(c.accepted),
    c.reason,
    text(c.detail),
    text(c.output),
    c.attempts,
    c.usage.promptTokens,
    c.usage.completionTokens,
    c.cost,
    c.latencyMs,
    c.finishedAt,
  ];
}

export function toGuardAttempt(
  r: GuardAttemptRow,
  text: (v: unknown) => string | undefined = (v) => (v === null ? undefined : (v as string)),
): GuardAttemptRecord {
  const a: GuardAttemptRecord = {
    callId: r.call_id,
    n: r.n,
    systemId: r.system_id,
    status: r.status as GuardAttemptRecord['status'],
    input: JSON.parse(r.input_json),
    validators: JSON.parse(r.validators_json),
    reasons: JSON.parse(r.reasons_json),
    latencyMs: r.latency_ms,
    usage: {
      system: { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens },
      verifier: { promptTokens: r.verifier_prompt_tokens, completionTokens: r.verifier_completion_tokens },
    },
    startedAt: iso(r.started_at),
  };
  const output = text(r.output);
  const generationError = text(r.generation_error);
  if (output !== undefined) a.output = output;
  if (generationError !== undefined) a.generationError = generationError;
  if (r.verifier_json !== null) a.verifier = JSON.parse(r.verifier_json);
  return a;
}

export function toGuardCall(r: GuardCallRow, text: (v: unknown) => string | undefined = (v) => (v === null ? undefined : (v as string))): GuardCallRecord {
  const c: GuardCallRecord = {
    callId: r.call_id,
    systemId: r.system_id,
    input: JSON.parse(r.input_json),
    accepted: r.accepted === true || r.accepted === 1,
    reason: r.reason as GuardCallRecord['reason'],
    attempts: r.attempts,
    usage: { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens },
    cost: r.cost,
    latencyMs: r.latency_ms,
    finishedAt: iso(r.finished_at),
  };
  const detail = text(r.detail);
  const output = text(r.output);
  if (detail !== undefined) c.detail = detail;
  if (output !== undefined) c.output = output;
  return c;
}
