import type Database from 'better-sqlite3';
import { checkAudit, checkClaimGrades, newAuditId, unknownAudit } from './audits.js';
import type { AuditRecord, AuditStore, ClaimGradeRecord, NewAudit, NewClaimGrade } from './types.js';

/** Audit batches and their claim grades in a SQLite store (tables audits, audit_grades: migration 10). */
export class SqliteAudits implements AuditStore {
  private table = false;

  constructor(private readonly db: Database.Database) {}

  /** Whether the audits tables exist (a store from before them, opened read-only, has none); once there, they stay. */
  private hasTable(): boolean {
    return (this.table ||= Boolean(this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audits'`).get()));
  }

  async create(audit: NewAudit): Promise<AuditRecord> {
    const checked = checkAudit(audit);
    const rec: AuditRecord = { id: newAuditId(), createdAt: new Date().toISOString(), ...checked };
    this.db
      .prepare(`INSERT INTO audits (id, name, created_at, claims_json) VALUES (?, ?, ?, ?)`)
      .run(rec.id, rec.name, rec.createdAt, JSON.stringify(rec.claims));
    return rec;
  }

  async get(auditId: string): Promise<AuditRecord | undefined> {
    if (!this.hasTable()) return undefined;
    const r = this.db.prepare(`SELECT id, name, created_at, claims_json FROM audits WHERE id = ?`).get(auditId) as
      { id: string; name: string; created_at: string; claims_json: string } | undefined;
    return r && { id: r.id, name: r.name, createdAt: r.created_at, claims: JSON.parse(r.claims_json) };
  }

  async list() {
    if (!this.hasTable()) return [];
    const rows = this.db.prepare(`SELECT id, name, created_at, json_array_length(claims_json) AS n FROM audits ORDER BY created_at DESC, id DESC`).all() as {
      id: string;
      name: string;
      created_at: string;
      n: number;
    }[];
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, claims: r.n }));
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
    const rows = this.db.prepare(`SELECT id, answer, claim, supported, grader, graded_at FROM audit_grades WHERE audit_id = ? ORDER BY id`).all(auditId) as {
      id: number;
      answer: string;
      claim: number;
      supported: number;
      grader: string;
      graded_at: string;
    }[];
    return rows.map((r) => ({ id: r.id, auditId, answer: r.answer, claim: r.claim, supported: r.supported === 1, grader: r.grader, gradedAt: r.graded_at }));
  }
}
