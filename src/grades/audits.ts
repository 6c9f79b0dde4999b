import { UsageError } from '../errors.js';
import { groundingGrading, type GroundingGrading } from '../ground/grading.js';
import type { AuditClaimRecord, AuditRecord, AuditRun, ClaimGradeRecord, NewAudit, NewClaimGrade, RunRecord, SampleRecord, Store } from '../store/types.js';

/**
 * The `grounded` rule of an experiment graded per claim (issue 27, item 5): the claims each output's audit
 * decided are kept with its sample (SampleRecord.claims), and become a stored audit batch linked to the run —
 * the same batches, grades, grading page and estimate as a batch of `assay analyze --answers`.
 */

/** The answer id of output (i, j): input and sample counted from 1, as `assay show --sample 3,2` takes them. */
const runAnswerId = (i: number, j: number): string => `${i + 1},${j + 1}`;

/** The names of the run's columns whose samples kept claims (its grounded rules), in column order. */
function claimRules(run: RunRecord, samples: readonly SampleRecord[]): string[] {
  const has = new Set<number>();
  for (const s of samples) s.claims?.forEach((c, k) => c !== undefined && has.add(k));
  return run.validators.filter((_, k) => has.has(k)).map((v) => v.name);
}

/**
 * The batch of a run's grounded rule: every stored output's decided claims, answer by answer. `rule` may be left
 * out when one rule kept claims; the run's outputs whose check was an error (no audit) have none.
 */
export function runAuditBatch(run: RunRecord, samples: readonly SampleRecord[], rule?: string): NewAudit {
  const rules = claimRules(run, samples);
  if (rules.length === 0)
    throw new UsageError(
      `run ${run.id} kept no claims of a grounded rule (it has none, none of its outputs was audited yet, or it ran on an assay from before claims were kept)`,
      { path: 'runId' },
    );
  if (rule === undefined && rules.length > 1)
    throw new UsageError(`run ${run.id} has ${rules.length} grounded rules (${rules.join(', ')}): name one with --rule`, { path: 'rule' });
  const name = rule ?? rules[0];
  if (!rules.includes(name))
    throw new UsageError(`run ${run.id} has no grounded rule named ${JSON.stringify(name)} that kept claims (it has: ${rules.join(', ')})`, { path: 'rule' });
  const k = run.validators.findIndex((v) => v.name === name);
  const claims: AuditClaimRecord[] = [];
  for (const s of [...samples].sort((a, b) => a.i - b.i || a.j - b.j))
    for (const c of s.claims?.[k] ?? []) claims.push({ answer: runAnswerId(s.i, s.j), ...c });
  return { name: run.name, run: { id: run.id, rule: name }, claims };
}

/** A stored batch's grading summary, from its stored grades (the latest grade of a claim counts). */
export type AuditSummary = { id: string; name: string; created_at: string; run?: AuditRun } & GroundingGrading;

export function auditSummary(audit: AuditRecord, grades: readonly ClaimGradeRecord[]): AuditSummary {
  return { id: audit.id, name: audit.name, created_at: audit.createdAt, ...(audit.run ? { run: audit.run } : {}), ...groundingGrading(audit.claims, grades) };
}

/** The summaries of the batches made of a run's grounded rules, newest first (`assay show <run>`). */
export async function runAuditSummaries(store: Store, runId: string): Promise<AuditSummary[]> {
  const out: AuditSummary[] = [];
  for (const a of await store.audits.list()) {
    if (a.run?.id !== runId) continue;
    const audit = await store.audits.get(a.id);
    if (audit) out.push(auditSummary(audit, await store.audits.listGrades(a.id)));
  }
  return out;
}

/**
 * The grades a new batch of a run's rule takes from the run's earlier batches of that rule, oldest first, in the
 * order they were given: those of a claim the new batch has word for word (the same output and position, text,
 * status and evidence). A batch taken before a resumed run finished so loses none of the grading done on it.
 */
export async function carriedGrades(store: Store, audit: AuditRecord): Promise<NewClaimGrade[]> {
  const run = audit.run;
  if (!run) return [];
  const at = (c: { answer: string; claim: number }) => `${c.answer}\u0000${c.claim}`;
  const same = (a: AuditClaimRecord, b: AuditClaimRecord) => a.text === b.text && a.status === b.status && (a.evidence ?? null) === (b.evidence ?? null);
  const here = new Map(audit.claims.map((c) => [at(c), c]));
  const older = (await store.audits.list()).filter((a) => a.id !== audit.id && a.run?.id === run.id && a.run.rule === run.rule).reverse();
  const out: NewClaimGrade[] = [];
  for (const a of older) {
    const before = await store.audits.get(a.id);
    if (!before) continue;
    const theirs = new Map(before.claims.map((c) => [at(c), c]));
    for (const g of await store.audits.listGrades(a.id)) {
      const mine = here.get(at(g));
      const was = theirs.get(at(g));
      if (mine && was && same(mine, was)) out.push({ answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader, gradedAt: g.gradedAt });
    }
  }
  return out;
}
