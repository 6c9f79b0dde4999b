import { auditContentKey, checkAudit, checkClaimGrades, newAuditId, runOf, unknownAudit } from './audits.js';
import type { Query } from './postgres-rows.js';
import type { AuditRecord, AuditStore, ClaimGradeRecord, NewAudit, NewClaimGrade } from './types.js';

const iso = (t: string | Date) => new Date(t).toISOString();

/** The run link as stored: the rule is a name people gave, kept as JSON like the batch's name. */
const pgRunOf = (r: { run_id: string | null; rule: string | null }) =>
  runOf({ run_id: r.run_id, rule: r.rule === null ? null : (JSON.parse(r.rule) as string) });

/** Audit batches and their claim grades in a PostgreSQL store (tables audits, audit_grades: migration 9; run and content key: 10). Text people gave is kept as json (U+0000 included). */
export class PostgresAudits implements AuditStore {
  private table = false;

  constructor(private readonly q: Query) {}

  /** Whether the audits tables exist (a store from before them, opened read-only, so not migrated, has none); once there, they stay. */
  private async hasTable(): Promise<boolean> {
    return (this.table ||= (await this.q<{ t: string | null }>(`SELECT to_regclass('audits') AS t`)).rows[0].t !== null);
  }

  /** The run columns, or NULLs in a store from before them opened read-only (not migrated); once there, they stay. */
  private runCols = false;

  private async runColumns(): Promise<string> {
    if (this.runCols) return 'run_id, rule::text AS rule';
    const { rows } = await this.q(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'audits' AND column_name = 'run_id'`,
    );
    this.runCols = rows.length > 0;
    return this.runCols ? 'run_id, rule::text AS rule' : 'NULL AS run_id, NULL AS rule';
  }

  async create(audit: NewAudit): Promise<{ audit: AuditRecord; created: boolean }> {
    const checked = checkAudit(audit);
    const key = auditContentKey(checked);
    const rec: AuditRecord = { id: newAuditId(), createdAt: new Date().toISOString(), ...checked };
    // The unique content key decides, also between two processes importing at once.
    const { rows } = await this.q(
      `INSERT INTO audits (id, name, created_at, claims, run_id, rule, content_key) VALUES ($1, $2::json, $3, $4::json, $5, $6::json, $7)
       ON CONFLICT (content_key) DO NOTHING RETURNING id`,
      [rec.id, JSON.stringify(rec.name), rec.createdAt, JSON.stringify(rec.claims), rec.run?.id ?? null, rec.run ? JSON.stringify(rec.run.rule) : null, key],
    );
    if (rows.length) return { audit: rec, created: true };
    const found = await this.q<{ id: string }>(`SELECT id FROM audits WHERE content_key = $1`, [key]);
    return { audit: (await this.get(found.rows[0].id))!, created: false };
  }

  async get(auditId: string): Promise<AuditRecord | undefined> {
    if (!(await this.hasTable())) return undefined;
    const { rows } = await this.q<{ id: string; name: string; created_at: string | Date; claims: string; run_id: string | null; rule: string | null }>(
      `SELECT id, name::text AS name, created_at, claims::text AS claims, ${await this.runColumns()} FROM audits WHERE id = $1`,
      [auditId],
    );
    const r = rows[0];
    return r && { id: r.id, name: JSON.parse(r.name), createdAt: iso(r.created_at), claims: JSON.parse(r.claims), ...pgRunOf(r) };
  }

  async list() {
    if (!(await this.hasTable())) return [];
    const { rows } = await this.q<{ id: string; name: string; created_at: string | Date; n: number; run_id: string | null; rule: string | null }>(
      `SELECT id, name::text AS name, created_at, json_array_length(claims)::int AS n, ${await this.runColumns()} FROM audits ORDER BY created_at DESC, id DESC`,
    );
    return rows.map((r) => ({ id: r.id, name: JSON.parse(r.name) as string, createdAt: iso(r.created_at), claims: r.n, ...pgRunOf(r) }));
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
