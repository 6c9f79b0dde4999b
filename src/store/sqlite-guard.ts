import type Database from 'better-sqlite3';
import * as guardRows from './guard-rows.js';
import type { GuardAttemptRecord, GuardCallRecord, GuardLog } from './types.js';
import { pageBounds } from './validate.js';

/** The guard's attempt log in a SQLite store (tables guard_calls and guard_attempts, store/guard-rows.ts). */
export class SqliteGuardLog implements GuardLog {
  // Prepared on first use: a read-only store from before the attempt log joined it has no guard tables.
  private upsertAttempt?: Database.Statement;
  private upsertCall?: Database.Statement;

  constructor(private readonly db: Database.Database) {}

  async recordAttempt(a: GuardAttemptRecord): Promise<void> {
    this.upsertAttempt ??= this.db.prepare(
      `INSERT OR REPLACE INTO guard_attempts (${guardRows.GUARD_ATTEMPT_COLUMNS.join(', ')}) VALUES (${guardRows.GUARD_ATTEMPT_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.upsertAttempt.run(...guardRows.guardAttemptValues(a));
  }

  async recordCall(c: GuardCallRecord): Promise<void> {
    this.upsertCall ??= this.db.prepare(
      `INSERT OR REPLACE INTO guard_calls (${guardRows.GUARD_CALL_COLUMNS.join(', ')}) VALUES (${guardRows.GUARD_CALL_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.upsertCall.run(...guardRows.guardCallValues(c, (b) => (b ? 1 : 0)));
  }

  async getCall(callId: string): Promise<GuardCallRecord | undefined> {
    const row = this.db.prepare(`SELECT * FROM guard_calls WHERE call_id = ?`).get(callId) as guardRows.GuardCallRow | undefined;
    return row && guardRows.toGuardCall(row);
  }

  async listAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    return (this.db.prepare(`SELECT * FROM guard_attempts WHERE call_id = ? ORDER BY n`).all(callId) as guardRows.GuardAttemptRow[]).map((r) =>
      guardRows.toGuardAttempt(r),
    );
  }

  async listCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const { limit, offset } = pageBounds(filter);
    const rows = this.db
      .prepare(`SELECT * FROM guard_calls ORDER BY finished_at DESC, call_id DESC LIMIT ${limit ?? -1} OFFSET ${offset}`)
      .all() as guardRows.GuardCallRow[];
    return rows.map((r) => guardRows.toGuardCall(r));
  }
}
