import { alignment, type Alignment } from '../core/alignment.js';
import { correctedRate } from '../core/ppi.js';
import { mulberry32 } from '../core/prng.js';
import { UsageError } from '../errors.js';
import type { CheckedClaim } from '../core/validator.js';
import type { ClaimAnalysis, SupportStatus } from './types.js';

/**
 * People check the detector on their own knowledge base (issue 27, item 5): the claims of a batch of grounding
 * audits (`assay analyze --answers … --json`) are graded supported or not by people, and the detector — a claim
 * is "supported" when its status is STRONG or WEAK — is compared with them as a judge is (core/alignment.ts:
 * confusion matrix, TPR/TNR with exact intervals, κ; positive = supported), and the share of unsupported claims
 * is corrected by the grades (core/ppi.ts, the same prediction-powered estimate as a judge's rate). The claims
 * are graded in a seeded uniform random order, so the graded ones are a simple random sample of the audited ones.
 */

export const GROUNDING_GRADING_SCHEMA = 'assay-grounding-grading/1';

/** One claim of an audit: its answer's id, its 1-based position in the answer, its text, the detector's status. */
export interface AuditedClaim {
  answer: string;
  claim: number;
  text: string;
  status: SupportStatus;
  evidence?: string;
}

/** A person's grade of one audited claim. */
export interface ClaimGrade {
  answer: string;
  claim: number;
  supported: boolean;
  /** The claim's text as graded: checked against the audit, so a grade never lands on another claim. */
  text?: string;
  grader?: string;
}

const supportedStatus = (s: SupportStatus) => s === 'STRONG' || s === 'WEAK';

/** The audited claims of a batch report (`assay-grounding-batch/1`), in answer order; claims with an error (undecided) are left out. */
export function auditedClaims(batch: unknown, file: string): AuditedClaim[] {
  const b = batch as { schema?: unknown; results?: unknown };
  if (!b || typeof b !== 'object' || b.schema !== 'assay-grounding-batch/1' || !Array.isArray(b.results))
    throw new UsageError(
      `${file}: expected the JSON of assay analyze --answers … --json (schema "assay-grounding-batch/1" with "results"), found ${b && typeof b === 'object' ? `schema ${JSON.stringify(b.schema ?? null)}` : typeof batch}`,
      { file, path: 'schema' },
    );
  const out: AuditedClaim[] = [];
  (b.results as unknown[]).forEach((r, i) => {
    const res = r as { id?: unknown; report?: { claims_analysis?: unknown } };
    if (typeof res?.id !== 'string' && typeof res?.id !== 'number')
      throw new UsageError(`${file} field "results[${i}].id": expected a string or a number`, { file, path: `results[${i}].id` });
    if (res.report === undefined) return; // an answer that could not be analysed has no claims to grade
    const claims = res.report?.claims_analysis;
    if (!Array.isArray(claims))
      throw new UsageError(`${file} field "results[${i}].report.claims_analysis": expected an array`, { file, path: `results[${i}].report.claims_analysis` });
    claims.forEach((c: { claim?: unknown; status?: unknown }, k) => {
      if (typeof c?.claim !== 'string' || !['STRONG', 'WEAK', 'UNSUPPORTED', 'CONTRADICTED'].includes(String(c.status)))
        throw new UsageError(`${file} field "results[${i}].report.claims_analysis[${k}]": expected a claim with a status`, {
          file,
          path: `results[${i}].report.claims_analysis[${k}]`,
        });
    });
    for (const c of decidedClaims(claims as ClaimAnalysis[])) out.push({ answer: String(res.id), ...c });
  });
  return out;
}

/**
 * The claims of one audit people can grade: each decided claim with its 1-based position among all the answer's
 * claims, text, status and best evidence; a claim that could not be decided (error) is left out. One decider for
 * a batch of `assay analyze --answers` and for the `grounded` rule of a run (validators/grounded.ts).
 */
export function decidedClaims(claims: readonly Pick<ClaimAnalysis, 'claim' | 'status' | 'evidence' | 'error'>[]): CheckedClaim[] {
  const out: CheckedClaim[] = [];
  claims.forEach((c, k) => {
    if (c.error !== undefined) return;
    out.push({ claim: k + 1, text: c.claim, status: c.status, ...(typeof c.evidence?.text === 'string' ? { evidence: c.evidence.text } : {}) });
  });
  return out;
}

/** Grades from JSON Lines (`{"answer": "…", "claim": 2, "supported": true, "text"?: "…", "grader"?: "…"}`); every problem names the file, line and field. */
export function readClaimGrades(text: string, file: string): ClaimGrade[] {
  const out: ClaimGrade[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      const at = { file, line: i + 1 };
      let g: Record<string, unknown>;
      try {
        g = JSON.parse(line);
      } catch {
        throw new UsageError(`${file} line ${i + 1}: not valid JSON`, at);
      }
      const bad =
        !g || typeof g !== 'object' || Array.isArray(g)
          ? ['', 'a JSON object']
          : typeof g.answer !== 'string' && typeof g.answer !== 'number'
            ? ['answer', "the answer's id (a string or a number)"]
            : !(Number.isInteger(g.claim) && (g.claim as number) >= 1)
              ? ['claim', "the claim's position in its answer (1, 2, …)"]
              : typeof g.supported !== 'boolean'
                ? ['supported', 'true or false']
                : g.text !== undefined && typeof g.text !== 'string'
                  ? ['text', 'the claim as a string']
                  : undefined;
      if (bad)
        throw new UsageError(
          `${file} line ${i + 1}${bad[0] ? ` field "${bad[0]}"` : ''}: expected ${bad[1]}, found ${JSON.stringify(bad[0] ? g[bad[0]] : g) ?? 'nothing'}`,
          {
            ...at,
            ...(bad[0] ? { path: bad[0] } : {}),
          },
        );
      out.push({
        answer: String(g.answer),
        claim: g.claim as number,
        supported: g.supported as boolean,
        ...(typeof g.text === 'string' ? { text: g.text } : {}),
        ...(typeof g.grader === 'string' ? { grader: g.grader } : {}),
      });
    });
  return out;
}

const key = (answer: string, claim: number) => `${answer}\u0000${claim}`;

/** The claims in the seeded uniform random order people grade them in, those already graded left out. */
export function gradingOrder(claims: readonly AuditedClaim[], grades: readonly ClaimGrade[], seed: number): AuditedClaim[] {
  const done = new Set(grades.map((g) => key(g.answer, g.claim)));
  const order = claims.map((_, i) => i);
  const rnd = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.map((i) => claims[i]).filter((c) => !done.has(key(c.answer, c.claim)));
}

export interface GroundingGrading {
  schema: typeof GROUNDING_GRADING_SCHEMA;
  /** Claims the detector decided (error claims left out). */
  claims: number;
  /** The detector's share of unsupported claims (UNSUPPORTED or CONTRADICTED). */
  unsupported_rate: number;
  graded: number;
  /** The detector against people, positive = supported: tp (both supported), fp (detector supported, person not), fn, tn. */
  alignment: Alignment;
  /** The share of unsupported claims corrected by the grades, with its interval (null without grades). */
  corrected_unsupported_rate: { rate: number; low: number; high: number; grades: number; method: string } | null;
  level: number;
}

/**
 * The detector's agreement with people and the corrected unsupported rate. A grade names its claim by answer and
 * position; one whose claim is not in the audits, or whose text differs from the audited claim's, is refused
 * (naming it), and a claim graded twice counts its last grade.
 */
export function groundingGrading(claims: readonly AuditedClaim[], grades: readonly ClaimGrade[], level = 0.95): GroundingGrading {
  const byKey = new Map(claims.map((c) => [key(c.answer, c.claim), c]));
  const last = new Map<string, ClaimGrade>();
  for (const g of grades) {
    const c = byKey.get(key(g.answer, g.claim));
    if (!c)
      throw new UsageError(`grades: answer ${JSON.stringify(g.answer)} has no claim ${g.claim} in the audits (or it could not be decided)`, { path: 'claim' });
    if (g.text !== undefined && g.text.trim() !== c.text.trim())
      throw new UsageError(
        `grades: claim ${g.claim} of answer ${JSON.stringify(g.answer)} reads ${JSON.stringify(c.text)} in the audits, not ${JSON.stringify(g.text)}`,
        {
          path: 'text',
        },
      );
    last.set(key(g.answer, g.claim), g);
  }
  const pairs = [...last.entries()].map(([k, g]) => ({ judge: supportedStatus(byKey.get(k)!.status), person: g.supported }));
  const supported = claims.filter((c) => supportedStatus(c.status)).length;
  const corrected = claims.length && pairs.length ? correctedRate({ judged: { pass: supported, n: claims.length }, graded: pairs, level }) : null;
  return {
    schema: GROUNDING_GRADING_SCHEMA,
    claims: claims.length,
    unsupported_rate: claims.length ? 1 - supported / claims.length : 0,
    graded: pairs.length,
    alignment: alignment(pairs, level),
    // the corrected share of supported claims, turned into the share of unsupported ones
    corrected_unsupported_rate: corrected
      ? { rate: 1 - corrected.rate, low: 1 - corrected.high, high: 1 - corrected.low, grades: corrected.grades, method: corrected.method }
      : null,
    level,
  };
}
