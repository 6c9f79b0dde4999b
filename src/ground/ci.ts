import { readFileSync } from 'node:fs';
import { withoutBom } from '../core/text.js';
import { UsageError } from '../errors.js';
import { extractClaims } from './claims/claims.js';
import { MAX_ANSWER_CHARS, MAX_QUERY_CHARS, type GroundingReport } from './types.js';
import { formatRate } from '../core/show.js';

/**
 * Grounding in CI: when an audited answer fails the job. One function decides it (answerOutcome), from the
 * report's one risk (decided by aggregate in score.ts, never again here); the exit code, the terminal table and
 * the JSON, JUnit and Markdown reports all read its outcome.
 */

export type Risk = GroundingReport['hallucination_risk'];
export const RISKS: readonly Risk[] = ['LOW', 'MEDIUM', 'HIGH'];
export type RiskFlag = 'low' | 'medium' | 'high';

/** `low|medium|high` (any case) as a risk level, or a usage error naming `where`. */
export function parseRisk(value: string, where: string): Risk {
  const r = value.toUpperCase() as Risk;
  if (!RISKS.includes(r)) throw new UsageError(`${where}: expected low, medium or high, found ${JSON.stringify(value)}`, { path: where });
  return r;
}

/** Whether `risk` is at `level` or above (LOW < MEDIUM < HIGH). */
export function riskAtOrAbove(risk: Risk, level: Risk): boolean {
  return RISKS.indexOf(risk) >= RISKS.indexOf(level);
}

/**
 * - `fail`: the risk is at or above `failOn`;
 * - `error`: the answer could not be analysed (no report: the LLM, the embedder or the claim checker failed), or,
 *   with `failOn`, the report is partial and below it — claims that could not be scored might have raised the
 *   risk, so the answer is not shown to pass;
 * - `pass` otherwise (without `failOn`, every analysed answer passes: the reports only inform).
 */
export type AnswerOutcome = 'pass' | 'fail' | 'error';

export function answerOutcome(report: GroundingReport | undefined, failOn?: Risk): AnswerOutcome {
  if (!report) return 'error';
  if (failOn === undefined) return 'pass';
  if (riskAtOrAbove(report.hallucination_risk, failOn)) return 'fail';
  return report.partial ? 'error' : 'pass';
}

/** Exit code of `assay analyze`: 1 when an answer fails, else 3 when one could not be decided, else 0. */
export function analyzeExitCode(outcomes: readonly AnswerOutcome[]): 0 | 1 | 3 {
  if (outcomes.includes('fail')) return 1;
  return outcomes.includes('error') ? 3 : 0;
}

/** One line of an answers file: what to audit. */
export interface AnswerLine {
  /** The line's `id`, else its line number ("line 7"). */
  id: string;
  line: number;
  query: string;
  /** Absent only when an LLM generates it (--llm / --llm-model). */
  answer?: string;
}

const KEYS = ['id', 'query', 'answer'];

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/**
 * An answers file (JSON Lines: `{"query": …, "answer": …}` a line, `id` optional), checked whole before anything
 * is analysed: each problem names the file, the line and the field, what was expected and what was found.
 * Blank lines are skipped. `maxClaims`: the engine's per-answer limit, checked here so a batch never stops halfway.
 */
export function readAnswersFile(file: string, o: { generate: boolean; maxClaims?: number; flag?: string }): AnswerLine[] {
  const flag = o.flag ?? '--answers';
  let text: string;
  try {
    text = withoutBom(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message.split('\n')[0]}`, { file, path: flag });
  }
  const problems: { line: number; message: string }[] = [];
  const rows: AnswerLine[] = [];
  const ids = new Map<string, number>();
  const maxClaims = o.maxClaims ?? 200;
  text.split('\n').forEach((raw, n) => {
    const line = n + 1;
    if (!raw.trim()) return;
    const bad = (field: string | undefined, message: string) => problems.push({ line, message: `${field ? `${field}: ` : ''}${message}` });
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return bad(undefined, `expected a JSON object {"query": …, "answer": …}, found unreadable JSON (${(err as Error).message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return bad(undefined, `expected a JSON object {"query": …, "answer": …}, found ${describe(value)}`);
    const obj = value as Record<string, unknown>;
    const unknown = Object.keys(obj).filter((k) => !KEYS.includes(k));
    if (unknown.length) return bad(unknown[0], `unknown key (expected query, answer and optionally id)`);
    const { id, query, answer } = obj;
    if (typeof query !== 'string' || !query.trim()) return bad('query', `expected a non-empty string, found ${describe(query)}`);
    if (query.length > MAX_QUERY_CHARS)
      return bad('query', `expected at most ${MAX_QUERY_CHARS.toLocaleString('en')} characters, found ${query.length.toLocaleString('en')}`);
    if (id !== undefined && !(typeof id === 'string' && id.trim()) && !(typeof id === 'number' && Number.isFinite(id)))
      return bad('id', `expected a non-empty string or a number, found ${describe(id)}`);
    const key = id === undefined ? `line ${line}` : String(id);
    const before = ids.get(key);
    if (before !== undefined) return bad('id', `expected a unique id, found ${JSON.stringify(key)} (also on line ${before})`);
    ids.set(key, line);
    if (answer === undefined || answer === null) {
      if (!o.generate) return bad('answer', 'expected a string, found nothing (only with --llm or --llm-model may the answer be left out, to be generated)');
      rows.push({ id: key, line, query });
      return;
    }
    if (typeof answer !== 'string') return bad('answer', `expected a string, found ${describe(answer)}`);
    if (!answer.trim()) return bad('answer', 'expected an answer to audit, found an empty string');
    // Checked before its claims are extracted: that is the work the limit bounds.
    if (answer.length > MAX_ANSWER_CHARS)
      return bad(
        'answer',
        `expected at most ${MAX_ANSWER_CHARS.toLocaleString('en')} characters (split a longer text into answers), found ${answer.length.toLocaleString('en')}`,
      );
    const claims = extractClaims(answer).length;
    if (claims === 0) return bad('answer', 'expected an answer with a claim to verify, found none (no sentence with words or numbers)');
    if (claims > maxClaims) return bad('answer', `expected at most ${maxClaims} claims per answer, found ${claims}`);
    rows.push({ id: key, line, query, answer });
  });
  if (problems.length) {
    const shown = problems.slice(0, 10).map((p) => `${file}:${p.line}: ${p.message}`);
    if (problems.length > 10) shown.push(`… and ${problems.length - 10} more`);
    throw new UsageError(shown.join('\n'), { file, line: problems[0].line, path: flag });
  }
  if (rows.length === 0) throw new UsageError(`${file}: expected at least one line {"query": …, "answer": …}, found none`, { file, path: flag });
  return rows;
}

/** What makes an output fail the `grounded` check (its options). */
export interface GroundedCriteria {
  /** The highest risk that passes. */
  maxRisk?: Risk;
  /** The least evidence coverage (share of claims supported) that passes. */
  minSupport?: number;
  /** One CONTRADICTED claim fails. */
  noContradiction?: boolean;
}

/**
 * The `grounded` check's outcome for one report: `fail` with a reason per unmet criterion, or `pass`. A partial
 * report (claims that could not be scored) is an `error`: those claims could have raised or lowered the risk and
 * the coverage — unless a contradicted claim already fails it, which no other claim can undo.
 */
export function groundedOutcome(r: GroundingReport, c: GroundedCriteria): { outcome: 'pass' | 'fail' | 'error'; reasons: string[] } {
  const contradicted = r.claims_analysis.filter((x) => x.status === 'CONTRADICTED');
  const coverage = Number(r.coverage);
  const reasons: string[] = [];
  if (c.noContradiction && contradicted.length)
    reasons.push(
      `${contradicted.length} contradicted claim${contradicted.length === 1 ? '' : 's'}: ${contradicted.map((x) => JSON.stringify(x.claim)).join(', ')}`,
    );
  if (r.partial && !reasons.length) {
    const errors = r.claims_analysis.filter((x) => x.error);
    return {
      outcome: 'error',
      reasons: [`${errors.length} of ${r.claims_analysis.length} claims could not be scored (${errors[0]?.error ?? 'unknown'}): the audit is partial`],
    };
  }
  if (!r.partial) {
    if (c.maxRisk && riskAtOrAbove(r.hallucination_risk, c.maxRisk) && r.hallucination_risk !== c.maxRisk)
      reasons.push(`risk ${r.hallucination_risk} (confidence ${r.confidence_score.toFixed(2)}) above maxRisk ${c.maxRisk}`);
    if (c.minSupport !== undefined && coverage < c.minSupport)
      reasons.push(`${formatRate(coverage)} of the claims supported, below minSupport ${formatRate(c.minSupport)}`);
  }
  return { outcome: reasons.length ? 'fail' : 'pass', reasons };
}
