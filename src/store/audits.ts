import { createHash } from 'node:crypto';
import { pushAll } from '../core/arrays.js';
import { UsageError } from '../errors.js';
import { GradeError } from './errors.js';
import { CONTROL, gradedAtProblem, newRunId } from './validate.js';
import type { AuditClaimRecord, AuditRecord, AuditRun, AuditStore, ClaimGradeRecord, NewAudit, NewClaimGrade } from './types.js';
import { assayCommandLine } from '../invocation.js';

/** The checks every adapter of `store.audits` makes, and the in-memory adapter (tests, library use). */

const STATUSES = ['STRONG', 'WEAK', 'UNSUPPORTED', 'CONTRADICTED'];
const claimKey = (answer: string, claim: number) => `${answer}\u0000${claim}`;

/** A batch as stored (claims copied, fields checked); GradeError naming the claim and field otherwise. */
export function checkAudit(audit: NewAudit): NewAudit {
  if (typeof audit?.name !== 'string' || audit.name.trim() === '' || audit.name.length > 200 || CONTROL.test(audit.name))
    throw new GradeError(`audit: name must be 1 to 200 characters without control characters, found ${JSON.stringify(audit?.name)}`, 'name');
  if (!Array.isArray(audit.claims)) throw new GradeError('audit: claims must be an array', 'claims');
  const seen = new Set<string>();
  const claims = audit.claims.map((c, n): AuditClaimRecord => {
    const at = `audit claims[${n}]`;
    const bad =
      typeof c?.answer !== 'string'
        ? ['answer', "the answer's id as a string"]
        : !(Number.isInteger(c.claim) && c.claim >= 1)
          ? ['claim', "the claim's position in its answer (1, 2, …)"]
          : typeof c.text !== 'string'
            ? ['text', 'the claim as a string']
            : !STATUSES.includes(c.status)
              ? ['status', STATUSES.join(', ')]
              : c.evidence !== undefined && typeof c.evidence !== 'string'
                ? ['evidence', 'text']
                : undefined;
    if (bad)
      throw new GradeError(
        `${at} field "${bad[0]}": expected ${bad[1]}, found ${JSON.stringify((c as unknown as Record<string, unknown>)?.[bad[0]]) ?? 'nothing'}`,
        bad[0],
        n,
      );
    const k = claimKey(c.answer, c.claim);
    if (seen.has(k)) throw new GradeError(`${at}: claim ${c.claim} of answer ${JSON.stringify(c.answer)} appears twice`, 'claim', n);
    seen.add(k);
    return { answer: c.answer, claim: c.claim, text: c.text, status: c.status, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}) };
  });
  const run = audit.run;
  if (run !== undefined && !(typeof run?.id === 'string' && run.id !== '' && typeof run.rule === 'string' && run.rule !== ''))
    throw new GradeError(`audit: run must name the run's id and its rule, found ${JSON.stringify(run)}`, 'run');
  return { name: audit.name.trim(), claims, ...(run ? { run: { id: run.id, rule: run.rule } } : {}) };
}

/**
 * What makes two batches the same (import is idempotent by it): the claims, in any order, and the run they came
 * from — not the name. A SHA-256 of their canonical JSON, kept with the batch under a unique index.
 */
export function auditContentKey(audit: { claims: readonly AuditClaimRecord[]; run?: AuditRun }): string {
  const claims = [...audit.claims]
    .sort((a, b) => (a.answer === b.answer ? a.claim - b.claim : a.answer < b.answer ? -1 : 1))
    .map((c) => [c.answer, c.claim, c.text, c.status, c.evidence ?? null]);
  return createHash('sha256')
    .update(JSON.stringify({ run: audit.run ? [audit.run.id, audit.run.rule] : null, claims }))
    .digest('hex');
}

export function unknownAudit(auditId: string): UsageError {
  return new UsageError(`no audit batch with id "${auditId}" in the store (list them with: ${assayCommandLine('audits')})`, { path: 'auditId' });
}

/** Grades checked against their batch, all before any is stored; a refused one's GradeError carries its position. */
export function checkClaimGrades(audit: AuditRecord, grades: readonly NewClaimGrade[], now = new Date()): (NewClaimGrade & { gradedAt: string })[] {
  const claims = new Set(audit.claims.map((c) => claimKey(c.answer, c.claim)));
  return grades.map((g, n) => {
    const at = `audit ${audit.id} grade ${n + 1}`;
    if (typeof g?.answer !== 'string' || !Number.isInteger(g.claim) || !claims.has(claimKey(g.answer, g.claim)))
      throw new GradeError(`${at}: answer ${JSON.stringify(g?.answer)} has no claim ${JSON.stringify(g?.claim)} in the batch`, 'claim', n);
    if (typeof g.supported !== 'boolean') throw new GradeError(`${at}: supported must be true or false, found ${JSON.stringify(g.supported)}`, 'supported', n);
    if (typeof g.grader !== 'string' || g.grader.trim() === '' || g.grader.length > 200 || CONTROL.test(g.grader))
      throw new GradeError(`${at}: grader must be a name of 1 to 200 characters without control characters, found ${JSON.stringify(g.grader)}`, 'grader', n);
    let gradedAt = now.toISOString();
    if (g.gradedAt !== undefined) {
      const problem = gradedAtProblem(g.gradedAt, now);
      if (typeof problem === 'string') throw new GradeError(`${at}: gradedAt ${problem}, found ${JSON.stringify(g.gradedAt)}`, 'gradedAt', n);
      gradedAt = new Date(problem).toISOString();
    }
    return { answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader.trim(), gradedAt };
  });
}

/** Audit ids read like run ids, with an `a-` in front so neither is taken for the other. */
export const newAuditId = (now = new Date()) => `a-${newRunId(now)}`;

export class MemoryAudits implements AuditStore {
  private byId = new Map<string, AuditRecord>();
  private byKey = new Map<string, string>();
  private grades = new Map<string, ClaimGradeRecord[]>();
  private nextId = 1;

  async create(audit: NewAudit): Promise<{ audit: AuditRecord; created: boolean }> {
    const checked = checkAudit(audit);
    const key = auditContentKey(checked);
    const known = this.byKey.get(key);
    if (known) return { audit: structuredClone(this.byId.get(known)!), created: false };
    let id = newAuditId();
    while (this.byId.has(id)) id = newAuditId();
    const rec: AuditRecord = { id, createdAt: new Date().toISOString(), ...checked };
    this.byId.set(id, rec);
    this.byKey.set(key, id);
    this.grades.set(id, []);
    return { audit: structuredClone(rec), created: true };
  }

  async get(auditId: string): Promise<AuditRecord | undefined> {
    const a = this.byId.get(auditId);
    return a && structuredClone(a);
  }

  async list() {
    return [...this.byId.values()]
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
      .map(({ claims, ...a }) => ({ ...a, claims: claims.length }));
  }

  async recordGrades(auditId: string, grades: readonly NewClaimGrade[]): Promise<ClaimGradeRecord[]> {
    const audit = this.byId.get(auditId);
    if (!audit) throw unknownAudit(auditId);
    const stored = checkClaimGrades(audit, grades).map((g) => ({ ...g, id: this.nextId++, auditId }));
    pushAll(this.grades.get(auditId)!, stored);
    return structuredClone(stored);
  }

  async listGrades(auditId: string): Promise<ClaimGradeRecord[]> {
    const list = this.grades.get(auditId);
    if (!list) throw unknownAudit(auditId);
    return structuredClone(list);
  }
}

/** A batch's run link as stored (both columns, or neither). */
export function runOf(r: { run_id: string | null; rule: string | null }): { run?: { id: string; rule: string } } {
  return r.run_id !== null && r.rule !== null ? { run: { id: r.run_id, rule: r.rule } } : {};
}
