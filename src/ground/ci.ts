import { UsageError } from '../errors.js';
import type { GroundingReport } from './types.js';
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

/**
 * Exit code of `assay analyze`: 1 when an answer fails, else 3 when one could not be decided, else 0. From the
 * outcomes, or from a batch's counts (a streamed batch keeps no list of outcomes).
 */
export function analyzeExitCode(outcomes: readonly AnswerOutcome[] | { failed: number; errors: number }): 0 | 1 | 3 {
  const { failed, errors } = Array.isArray(outcomes)
    ? { failed: outcomes.includes('fail'), errors: outcomes.includes('error') }
    : { failed: (outcomes as { failed: number }).failed > 0, errors: (outcomes as { errors: number }).errors > 0 };
  if (failed) return 1;
  return errors ? 3 : 0;
}

// Answers files are read in answers.ts (streamed); these names stay importable from here.
export { checkAnswersFile, readAnswers, readAnswersFile, type AnswerLine } from './answers.js';

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
