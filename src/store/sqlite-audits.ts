import type Database from 'better-sqlite3';
import { auditContentKey, checkAudit, checkClaimGrades, newAuditId, runOf, unknownAudit } from './audits.js';
import type { AuditRecord, AuditStore, ClaimGradeRecord, NewAudit, NewClaimGrade } from './types.js';

/** Audit batches and their claim grades in a SQLite store (tables audits, audit_grades: migration 10; run and content key: 11). */
export class SqliteAudits implements AuditStore {
  private table = false;

  constructor(private readonly db: Database.Database) {}

  /** Whether the audits tables exist (a store from before them, opened read-only, has none); once there, they stay. */
  private hasTable(): boolean {
    return (this.table ||= Boolean(this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audits'`).get()));
  }

  private runCols = false;

  /** The run columns, or NULLs in a store from before them opened read-only (not migrated); once there, they stay. */
  private runColumns(): string {
    this.runCols ||= (this.db.prepare(`SELECT name FROM pragma_table_info('audits')`).all() as { name: string }[]).some((c) => c.name === 'run_id');
    return this.runCols ? 'run_id, rule' : 'NULL AS run_id, NULL AS rule';
  }

  async create(audit: NewAudit): Promise<{ audit: AuditRecord; created: boolean }> {
    const checked = checkAudit(audit);
    const key = auditContentKey(checked);
    const rec: AuditRecord = { id: newAuditId(), createdAt: new Date().toISOString(), ...checked };
    // The unique content key decides, also between two processes importing at once.
    const added = this.db
      .prepare(
        `INSERT INTO audits (id, name, created_at, claims_json, run_id, rule, content_key) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (content_key) DO NOTHING`,
      )
      .run(rec.id, rec.name, rec.createdAt, JSON.stringify(rec.claims), rec.run?.id ?? null, rec.run?.rule ?? null, key).changes;
    if (added) return { audit: rec, created: true };
    const { id } = this.db.prepare(`SELECT id FROM audits WHERE content_key = ?`).get(key) as { id: string };
    return { audit: (await this.get(id))!, created: false };
  }

  async get(auditId: string): Promise<AuditRecord | undefined> {
    if (!this.hasTable()) return undefined;
    const r = this.db.prepare(`SELECT id, name, created_at, claims_json, ${this.runColumns()} FROM audits WHERE id = ?`).get(auditId) as
      { id: string; name: string; created_at: string; claims_json: string; run_id: string | null; rule: string | null } | undefined;
    return r && { id: r.id, name: r.name, createdAt: r.created_at, claims: JSON.parse(r.claims_json), ...runOf(r) };
  }

  async list() {
    if (!this.hasTable()) return [];
    const rows = this.db
      .prepare(`SELECT id, name, created_at, json_array_length(claims_json) AS n, ${this.runColumns()} FROM audits ORDER BY created_at DESC, id DESC`)
      .all() as {
      id: string;
      name: string;
      created_at: string;
      n: number;
      run_id: string | null;
      rule: string | null;
    }[];
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, claims: r.n, ...runOf(r) }));
  }

  async recordGrades(auditId: string, grades: readonly NewClaimGrade[]): Promise<ClaimGradeRecord[]> {
    const audit = await this.get(auditId);
    if (!audit) throw unknownAudit(auditId);
    const checked = checkClaimGrades(audit, grades);
    const insert = this.db.prepare(`INSERT INTO audit_grades (audit_id, answer, claim, supported, grader, graded_at) VALUES (?, ?, ?, ?, ?, ?)`);
    return this.db.transaction(() =>
      checked.map((g) => ({ ...g, auditId, id: Number(insert.run(auditId, g.answer, g.claim, g.supported ? 1 : 0, g.grader, g.gradedAt).lastInsertRowid) })),
    )();
  }

  async listGrades(auditId: string): Promise<ClaimGradeRecord[]> {
    if (!this.hasTable() || !this.db.prepare(`SELECT 1 FROM audits WHERE id = ?`).get(auditId)) throw unknownAudit(auditId);
    // Rows as arrays: a batch may have 100,000 grades, read on every grading page (issue 30).
    const rows = this.db
      .prepare(`SELECT id, answer, claim, supported, grader, graded_at FROM audit_grades WHERE audit_id = ? ORDER BY id`)
      .raw(true)
      .all(auditId) as [number, string, number, number, string, string][];
    return rows.map(([id, answer, claim, supported, grader, gradedAt]) => ({ id, auditId, answer, claim, supported: supported === 1, grader, gradedAt }));
  }
}
