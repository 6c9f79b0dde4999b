import { checkAudit, checkClaimGrades, newAuditId, unknownAudit } from './audits.js';
import type { Query } from './postgres-rows.js';
import type { AuditRecord, AuditStore, ClaimGradeRecord, NewAudit, NewClaimGrade } from './types.js';

const iso = (t: string | Date) => new Date(t).toISOString();

/** Audit batches and their claim grades in a PostgreSQL store (tables audits, audit_grades: migration 9). Text people gave is kept as json (U+0000 included). */
export class PostgresAudits implements AuditStore {
  private table = false;

  constructor(private readonly q: Query) {}

  /** Whether the audits tables exist (a store from before them, opened read-only, so not migrated, has none); once there, they stay. */
  private async hasTable(): Promise<boolean> {
    return (this.table ||= (await this.q<{ t: string | null }>(`SELECT to_regclass('audits') AS t`)).rows[0].t !== null);
  }

  async create(audit: NewAudit): Promise<AuditRecord> {
    const checked = checkAudit(audit);
    const rec: AuditRecord = { id: newAuditId(), createdAt: new Date().toISOString(), ...checked };
    await this.q(`INSERT INTO audits (id, name, created_at, claims) VALUES ($1, $2::json, $3, $4::json)`, [
      rec.id,
      JSON.stringify(rec.name),
      rec.createdAt,
      JSON.stringify(rec.claims),
    ]);
    return rec;
  }

  async get(auditId: string): Promise<AuditRecord | undefined> {
    if (!(await this.hasTable())) return undefined;
    const { rows } = await this.q<{ id: string; name: string; created_at: string | Date; claims: string }>(
      `SELECT id, name::text AS name, created_at, claims::text AS claims FROM audits WHERE id = $1`,
      [auditId],
    );
    const r = rows[0];
    return r && { id: r.id, name: JSON.parse(r.name), createdAt: iso(r.created_at), claims: JSON.parse(r.claims) };
  }

  async list() {
    if (!(await this.hasTable())) return [];
    const { rows } = await this.q<{ id: string; name: string; created_at: string | Date; n: number }>(
      `SELECT id, name::text AS name, created_at, json_array_length(claims)::int AS n FROM audits ORDER BY created_at DESC, id DESC`,
    );
    return rows.map((r) => ({ id: r.id, name: JSON.parse(r.name) as string, createdAt: iso(r.created_at), claims: r.n }));
  }

  async recordGrades(auditId: string, grades: readonly NewClaimGrade[]): Promise<ClaimGradeRecord[]> {
    const audit = await this.get(auditId);
    if (!audit) throw unknownAudit(auditId);
    const checked = checkClaimGrades(audit, grades);
    if (!checked.length) return [];
    // One statement (one transaction: all or none), one array per column.
    const { rows } = await this.q<{ id: string }>(
      `INSERT INTO audit_grades (audit_id, answer, claim, supported, grader, graded_at)
       SELECT $1, a, c, s, g, t FROM unnest($2::json[], $3::int[], $4::bool[], $5::json[], $6::timestamptz[]) AS u (a, c, s, g, t) RETURNING id`,
      [
        auditId,
        checked.map((g) => JSON.stringify(g.answer)),
        checked.map((g) => g.claim),
        checked.map((g) => g.supported),
        checked.map((g) => JSON.stringify(g.grader)),
        checked.map((g) => g.gradedAt),
      ],
    );
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    return checked.map((g, n) => ({ ...g, auditId, id: ids[n] }));
  }

  async listGrades(auditId: string): Promise<ClaimGradeRecord[]> {
    if (!(await this.hasTable()) || !(await this.q(`SELECT 1 FROM audits WHERE id = $1`, [auditId])).rows.length) throw unknownAudit(auditId);
    const { rows } = await this.q<{ id: string; answer: string; claim: number; supported: boolean; grader: string; graded_at: string | Date }>(
      `SELECT id, answer::text AS answer, claim, supported, grader::text AS grader, graded_at FROM audit_grades WHERE audit_id = $1 ORDER BY id`,
      [auditId],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      auditId,
      answer: JSON.parse(r.answer),
      claim: r.claim,
      supported: r.supported,
      grader: JSON.parse(r.grader),
      gradedAt: iso(r.graded_at),
    }));
  }
}
