import * as guardRows from './guard-rows.js';
import { jsonText, textOf, type Query } from './postgres-rows.js';
import type { GuardAttemptRecord, GuardCallRecord, GuardLog } from './types.js';
import { pageBounds } from './validate.js';

/** The guard's attempt log in a PostgreSQL store (tables guard_calls and guard_attempts, store/guard-rows.ts). */
export class PostgresGuardLog implements GuardLog {
  constructor(private readonly q: Query) {}

  async recordAttempt(a: GuardAttemptRecord): Promise<void> {
    await this.q(upsert('guard_attempts', guardRows.GUARD_ATTEMPT_COLUMNS, ['call_id', 'n']), guardRows.guardAttemptValues(a, textOf));
  }

  async recordCall(c: GuardCallRecord): Promise<void> {
    await this.q(
      upsert('guard_calls', guardRows.GUARD_CALL_COLUMNS, ['call_id']),
      guardRows.guardCallValues(c, (b) => b, textOf),
    );
  }

  async getCall(callId: string): Promise<GuardCallRecord | undefined> {
    const { rows } = await this.q<guardRows.GuardCallRow>('SELECT * FROM guard_calls WHERE call_id = $1', [callId]);
    return rows[0] && guardRows.toGuardCall(rows[0], jsonText);
  }

  async listAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    const { rows } = await this.q<guardRows.GuardAttemptRow>('SELECT * FROM guard_attempts WHERE call_id = $1 ORDER BY n', [callId]);
    return rows.map((r) => guardRows.toGuardAttempt(r, jsonText));
  }

  async listCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const { limit, offset } = pageBounds(filter);
    const { rows } = await this.q<guardRows.GuardCallRow>(
      `SELECT * FROM guard_calls ORDER BY finished_at DESC, call_id DESC ${limit !== undefined ? `LIMIT ${limit}` : ''} OFFSET ${offset}`,
    );
    return rows.map((r) => guardRows.toGuardCall(r, jsonText));
  }
}

function upsert(table: string, columns: readonly string[], key: string[]): string {
  const marks = columns.map((_, n) => `$${n + 1}`).join(', ');
  const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${marks}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${set.join(', ')}`;
}
