import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { InputValue } from '../core/validator.js';
import type { Attempt, AttemptSink, GuardResult } from './types.js';

/**
 * The guard's attempt log: two tables of its own in a SQLite file (the run store's file is fine; the tables
 * are created if absent and never touch the store's). Each attempt is written when it ends, so a process
 * killed mid-loop keeps the attempts it made.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS guard_calls (
  call_id TEXT PRIMARY KEY,
  system_id TEXT NOT NULL,
  input_json TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT,
  output TEXT,
  attempts INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost REAL,
  latency_ms REAL NOT NULL,
  finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS guard_attempts (
  call_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  system_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output TEXT,
  generation_error TEXT,
  status TEXT NOT NULL,
  validators_json TEXT NOT NULL,
  verifier_json TEXT,
  reasons_json TEXT NOT NULL,
  latency_ms REAL NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  verifier_prompt_tokens INTEGER NOT NULL,
  verifier_completion_tokens INTEGER NOT NULL,
  PRIMARY KEY (call_id, n)
) WITHOUT ROWID;
`;

export interface AttemptRow {
  call_id: string;
  n: number;
  system_id: string;
  status: Attempt['status'];
  input: InputValue;
  output: string | null;
  generation_error: string | null;
  validators: Attempt['validators'];
  verifier: Attempt['verifier'] | null;
  reasons: string[];
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  verifier_prompt_tokens: number;
  verifier_completion_tokens: number;
}

export interface CallRow {
  call_id: string;
  system_id: string;
  accepted: boolean;
  reason: GuardResult['reason'];
  detail: string | null;
  output: string | null;
  attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number | null;
  latency_ms: number;
}

export interface AttemptLog extends AttemptSink {
  listAttempts(callId: string): AttemptRow[];
  getCall(callId: string): CallRow | undefined;
  listCalls(limit?: number): CallRow[];
}

export function openAttemptLog(path: string): AttemptLog {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const insertAttempt = db.prepare(
    `INSERT OR REPLACE INTO guard_attempts VALUES (@call_id, @n, @system_id, @started_at, @input_json, @output, @generation_error, @status,
      @validators_json, @verifier_json, @reasons_json, @latency_ms, @prompt_tokens, @completion_tokens, @verifier_prompt_tokens, @verifier_completion_tokens)`,
  );
  const insertCall = db.prepare(
    `INSERT OR REPLACE INTO guard_calls VALUES (@call_id, @system_id, @input_json, @accepted, @reason, @detail, @output, @attempts,
      @prompt_tokens, @completion_tokens, @cost, @latency_ms, @finished_at)`,
  );
  const callRow = (r: Record<string, unknown>): CallRow => ({
    call_id: r.call_id as string,
    system_id: r.system_id as string,
    accepted: r.accepted === 1,
    reason: r.reason as CallRow['reason'],
    detail: r.detail as string | null,
    output: r.output as string | null,
    attempts: r.attempts as number,
    prompt_tokens: r.prompt_tokens as number,
    completion_tokens: r.completion_tokens as number,
    cost: r.cost as number | null,
    latency_ms: r.latency_ms as number,
  });

  return {
    recordAttempt(callId, systemId, a) {
      insertAttempt.run({
        call_id: callId,
        n: a.n,
        system_id: systemId,
        started_at: a.startedAt,
        input_json: JSON.stringify(a.input),
        output: a.output ?? null,
        generation_error: a.generationError ?? null,
        status: a.status,
        validators_json: JSON.stringify(a.validators),
        verifier_json: a.verifier ? JSON.stringify(a.verifier) : null,
        reasons_json: JSON.stringify(a.reasons),
        latency_ms: a.latencyMs,
        prompt_tokens: a.usage.system.promptTokens,
        completion_tokens: a.usage.system.completionTokens,
        verifier_prompt_tokens: a.usage.verifier.promptTokens,
        verifier_completion_tokens: a.usage.verifier.completionTokens,
      });
    },
    recordResult(systemId, input, r) {
      insertCall.run({
        call_id: r.callId,
        system_id: systemId,
        input_json: JSON.stringify(input),
        accepted: r.accepted ? 1 : 0,
        reason: r.reason,
        detail: r.detail ?? null,
        output: r.output ?? null,
        attempts: r.attempts.length,
        prompt_tokens: r.usage.total.promptTokens,
        completion_tokens: r.usage.total.completionTokens,
        cost: r.cost?.total ?? null,
        latency_ms: r.latencyMs,
        finished_at: new Date().toISOString(),
      });
    },
    listAttempts(callId) {
      const rows = db.prepare('SELECT * FROM guard_attempts WHERE call_id = ? ORDER BY n').all(callId) as Record<string, unknown>[];
      return rows.map((r) => ({
        call_id: r.call_id as string,
        n: r.n as number,
        system_id: r.system_id as string,
        status: r.status as Attempt['status'],
        input: JSON.parse(r.input_json as string) as InputValue,
        output: r.output as string | null,
        generation_error: r.generation_error as string | null,
        validators: JSON.parse(r.validators_json as string) as Attempt['validators'],
        verifier: r.verifier_json ? (JSON.parse(r.verifier_json as string) as Attempt['verifier']) : null,
        reasons: JSON.parse(r.reasons_json as string) as string[],
        latency_ms: r.latency_ms as number,
        prompt_tokens: r.prompt_tokens as number,
        completion_tokens: r.completion_tokens as number,
        verifier_prompt_tokens: r.verifier_prompt_tokens as number,
        verifier_completion_tokens: r.verifier_completion_tokens as number,
      }));
    },
    getCall(callId) {
      const r = db.prepare('SELECT * FROM guard_calls WHERE call_id = ?').get(callId) as Record<string, unknown> | undefined;
      return r ? callRow(r) : undefined;
    },
    listCalls(limit = 100) {
      return (db.prepare('SELECT * FROM guard_calls ORDER BY finished_at DESC LIMIT ?').all(limit) as Record<string, unknown>[]).map(callRow);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
