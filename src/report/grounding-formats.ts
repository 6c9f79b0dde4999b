import { visibleControls } from '../core/text.js';
import { displayWidth } from './width.js';
import { claimReasons } from '../ground/reasons.js';
import { RISKS, type AnswerOutcome, type Risk } from '../ground/ci.js';
import type { ClaimAnalysis, GroundingReport } from '../ground/types.js';
import { xmlEscape } from './junit.js';
import { mdCell } from './markdown.js';
import { NO_VALUE } from '../core/show.js';

/**
 * The reports of `assay analyze` over many answers (`--answers`) — a terminal table, JSON, JUnit and Markdown —
 * as parts: text from the batch's summary, and text for each answer, written as the answer is done. Every
 * status, risk and outcome shown is read from the reports and from answerOutcome (src/ground/ci.ts), never
 * decided again here. grounding.ts puts the parts together, in memory or streamed.
 */

export interface AnswerResult {
  id: string;
  /** The line of the answers file (absent for a single --answer). */
  line?: number;
  query: string;
  outcome: AnswerOutcome;
  report?: GroundingReport;
  /** Why there is no report (the analysis could not be done). */
  error?: string;
}

/** What a batch's reports say besides its answers. */
export interface BatchMeta {
  /** The knowledge base the answers were audited against. */
  kb: string;
  failOn?: Risk;
}

export interface GroundingBatch extends BatchMeta {
  results: AnswerResult[];
}

export interface BatchSummary {
  answers: number;
  passed: number;
  failed: number;
  errors: number;
  /** Analysed answers by risk. */
  risk: Record<Risk, number>;
  claims: number;
  unsupported: number;
  contradicted: number;
  /** Tokens and USD of the claim checker's calls over every answer, when it made any. */
  usage?: { promptTokens: number; completionTokens: number };
  cost_usd?: number;
}

const contradictions = (r: GroundingReport) => r.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length;

/** The batch summary, one answer at a time: counts only, whatever the number of answers. */
export class BatchTally {
  private readonly s: BatchSummary = {
    answers: 0,
    passed: 0,
    failed: 0,
    errors: 0,
    risk: { LOW: 0, MEDIUM: 0, HIGH: 0 },
    claims: 0,
    unsupported: 0,
    contradicted: 0,
  };
  private usage?: BatchSummary['usage'];

  add(r: AnswerResult): void {
    const s = this.s;
    s.answers++;
    if (r.outcome === 'pass') s.passed++;
    else if (r.outcome === 'fail') s.failed++;
    else s.errors++;
    if (!r.report) return;
    s.risk[r.report.hallucination_risk]++;
    s.claims += r.report.claims_analysis.length;
    s.unsupported += r.report.unsupported_claims.length;
    s.contradicted += contradictions(r.report);
    const c = r.report.checker;
    if (c?.usage) {
      this.usage ??= { promptTokens: 0, completionTokens: 0 };
      this.usage.promptTokens += c.usage.promptTokens;
      this.usage.completionTokens += c.usage.completionTokens;
    }
    if (c?.cost_usd !== undefined) s.cost_usd = (s.cost_usd ?? 0) + c.cost_usd;
  }

  summary(): BatchSummary {
    const s = { ...this.s, risk: { ...this.s.risk } };
    if (this.usage) s.usage = { ...this.usage };
    return s;
  }
}

/** Why an answer has its outcome, in one line. */
export function outcomeReason(r: AnswerResult, failOn?: Risk): string {
  if (!r.report) return r.error ?? 'could not be analysed';
  const risk = `risk ${r.report.hallucination_risk} (confidence ${r.report.confidence_score.toFixed(2)})`;
  const errors = r.report.claims_analysis.filter((c) => c.error).length;
  if (r.outcome === 'fail') return `${risk}, at or above fail-on ${failOn}`;
  if (r.outcome === 'error')
    return `${risk} with ${errors} claim(s) that could not be scored: it might be higher, so it is not shown to be below fail-on ${failOn}`;
  return failOn ? `${risk}, below fail-on ${failOn}` : risk;
}

/** Claims that are not supported (or could not be scored), for the lists under failing answers. */
function flagged(report: GroundingReport): ClaimAnalysis[] {
  return report.claims_analysis.filter((c) => c.error || (c.status !== 'STRONG' && c.status !== 'WEAK'));
}

const usd = (x: number) => `$${x < 0.01 ? x.toFixed(6) : x.toFixed(4)}`;

function costText(s: BatchSummary): string {
  if (!s.usage && s.cost_usd === undefined) return '';
  const tokens = s.usage ? `${s.usage.promptTokens + s.usage.completionTokens} tokens` : '';
  return `claim checker: ${[tokens, s.cost_usd !== undefined ? usd(s.cost_usd) : 'unpriced'].filter(Boolean).join(', ')}`;
}

function footer(b: BatchMeta, s: BatchSummary): string {
  const risks = RISKS.map((r) => `${s.risk[r]} ${r}`).join(', ');
  const parts = [`${s.answers} answer${s.answers === 1 ? '' : 's'}: ${risks}`];
  if (b.failOn) parts.push(`${s.failed} at or above fail-on ${b.failOn}`);
  if (s.errors) parts.push(`${s.errors} not decided (errors)`);
  return parts.join('; ');
}

/** Lines as the reports write them: each ended by a newline. */
const lines = (xs: readonly string[]) => xs.map((x) => `${x}\n`).join('');

/**
 * A report as parts, in order: `fixed` text written from the summary once every answer is in; `each` text of
 * one answer; `table` rows whose column widths depend on every row (each answer's cells kept, padded at the end).
 */
export type BatchPart =
  | { fixed: (s: BatchSummary) => string }
  | { each: (r: AnswerResult, index: number) => string }
  | { table: { head: string[]; cells: (r: AnswerResult) => string[]; numeric: ReadonlySet<number> } };

export type BatchFormat = 'table' | 'json' | 'junit' | 'markdown';

const MARK: Record<AnswerOutcome, string> = { pass: 'ok', fail: 'FAIL', error: 'ERROR' };

/** ANSI colour for a failed (red) or undecided (yellow) answer's mark. */
export function paintMark(text: string, outcome: AnswerOutcome, color: boolean): string {
  return color && outcome !== 'pass' ? `\x1b[${outcome === 'fail' ? 31 : 33}m${text}\x1b[0m` : text;
}

/** One row of the terminal table, padded to the columns' widths (right-aligned figures), its mark painted. */
export function tableLine(cells: readonly string[], widths: readonly number[], numeric: ReadonlySet<number>, paint?: (text: string) => string): string {
  return cells
    .map((cell, c) => {
      const pad = ' '.repeat(widths[c] - displayWidth(cell));
      const text = numeric.has(c) ? pad + cell : cell + pad;
      return c === 0 && paint ? paint(text) : text;
    })
    .join('  ')
    .trimEnd();
}

/** The terminal summary: one row per answer, the flagged claims of failed and undecided answers, a footer. */
function tableParts(b: BatchMeta, color: boolean): BatchPart[] {
  return [
    {
      table: {
        head: ['', 'id', 'risk', 'confidence', 'coverage', 'claims', 'unsupported', 'contradicted'],
        // Columns of figures, right-aligned: confidence, claims, unsupported, contradicted.
        numeric: new Set([3, 5, 6, 7]),
        cells: (r) => {
          const rep = r.report;
          return [
            MARK[r.outcome],
            visibleControls(r.id),
            rep?.hallucination_risk ?? NO_VALUE,
            rep ? rep.confidence_score.toFixed(2) : NO_VALUE,
            rep?.evidence_coverage ?? NO_VALUE,
            rep ? String(rep.claims_analysis.length) : NO_VALUE,
            rep ? String(rep.unsupported_claims.length) : NO_VALUE,
            rep ? String(contradictions(rep)) : NO_VALUE,
          ];
        },
      },
    },
    {
      each: (r) => {
        if (r.outcome === 'pass') return '';
        // Ids, claims and reasons come from the answers: their bidi and control characters are shown as marks.
        const L = [
          '',
          `${paintMark(MARK[r.outcome], r.outcome, color)} ${visibleControls(`${r.id}${r.line !== undefined ? ` (line ${r.line})` : ''}: ${outcomeReason(r, b.failOn)}`)}`,
        ];
        for (const c of r.report ? flagged(r.report) : []) {
          L.push(visibleControls(`  [${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`));
          for (const why of claimReasons(c)) L.push(visibleControls(`    ${why}`));
        }
        return lines(L);
      },
    },
    {
      fixed: (s) => {
        const cost = costText(s);
        return lines(['', footer(b, s), ...(cost ? [cost] : [])]);
      },
    },
  ];
}

export const GROUNDING_BATCH_SCHEMA = 'assay-grounding-batch/1';

/** The JSON report: the summary, then `results` written one answer at a time (as JSON.stringify(…, null, 2) would). */
function jsonParts(b: BatchMeta): BatchPart[] {
  const top = (s: BatchSummary) => JSON.stringify({ schema: GROUNDING_BATCH_SCHEMA, kb: b.kb, fail_on: b.failOn ?? null, summary: s, results: [] }, null, 2);
  return [
    // The document up to `"results": [`; for no answers, the whole of it.
    { fixed: (s) => (s.answers ? `${top(s).slice(0, -'[]\n}'.length)}[\n` : `${top(s)}\n`) },
    {
      each: (r, i) => {
        const item = {
          id: r.id,
          ...(r.line !== undefined ? { line: r.line } : {}),
          query: r.query,
          outcome: r.outcome,
          reason: outcomeReason(r, b.failOn),
          ...(r.report ? { report: r.report } : { error: r.error ?? 'could not be analysed' }),
        };
        // An element of `results`, two levels in; JSON.stringify writes no raw line break inside a string.
        return `${i ? ',\n' : ''}    ${JSON.stringify(item, null, 2).replace(/\n/g, '\n    ')}`;
      },
    },
    { fixed: (s) => (s.answers ? '\n  ]\n}\n' : '') },
  ];
}

/**
 * JUnit: one testcase per answer, so a CI system lists each. `fail` → <failure type="risk-at-or-above-fail-on">,
 * an answer that could not be analysed → <error type="infrastructure">, a partial report below fail-on →
 * <error type="partial">; the flagged claims in the body. Never a failure for an error.
 */
function junitParts(b: BatchMeta): BatchPart[] {
  return [
    {
      fixed: (s) => {
        const totals = `tests="${s.answers}" failures="${s.failed}" errors="${s.errors}" skipped="0" time="0.000"`;
        const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="assay" ${totals}>`, `  <testsuite name="assay analyze" ${totals}>`];
        out.push('    <properties>');
        out.push(`      <property name="kb" value="${xmlEscape(b.kb)}"/>`);
        out.push(`      <property name="failOn" value="${b.failOn ?? ''}"/>`);
        if (s.cost_usd !== undefined) out.push(`      <property name="costUsd" value="${s.cost_usd}"/>`);
        out.push('    </properties>');
        return lines(out);
      },
    },
    {
      each: (r) => {
        const reason = outcomeReason(r, b.failOn);
        const body = r.report
          ? flagged(r.report)
              .map((c) => [`[${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`, ...claimReasons(c).map((x) => `  ${x}`)].join('\n'))
              .join('\n')
          : (r.error ?? '');
        const out = [`    <testcase classname="assay.grounding" name="${xmlEscape(r.id)}" time="0">`];
        if (r.outcome === 'fail') out.push(`      <failure type="risk-at-or-above-fail-on" message="${xmlEscape(reason)}">${xmlEscape(body)}</failure>`);
        else if (r.outcome === 'error')
          out.push(`      <error type="${r.report ? 'partial' : 'infrastructure'}" message="${xmlEscape(reason)}">${xmlEscape(body)}</error>`);
        out.push(`      <system-out>${xmlEscape(`${r.query}\n${reason}${body ? `\n${body}` : ''}`)}</system-out>`);
        out.push('    </testcase>');
        return lines(out);
      },
    },
    { fixed: () => lines(['  </testsuite>', '</testsuites>']) },
  ];
}

const ICON: Record<AnswerOutcome, string> = { pass: '✅', fail: '❌', error: '🛑' };

/** Markdown for a CI job summary: a heading with the outcome, a table of answers, the flagged claims folded. */
function markdownParts(b: BatchMeta): BatchPart[] {
  return [
    {
      fixed: (s) => {
        const head = s.failed ? '❌' : s.errors ? '🛑' : '✅';
        return lines([
          `## ${head} assay analyze: ${mdCell(footer(b, s))}`,
          '',
          `Knowledge base \`${mdCell(b.kb)}\`${b.failOn ? `; an answer fails at risk ${b.failOn} or above` : ''}.`,
          '',
          '| | id | risk | confidence | coverage | claims | unsupported | contradicted |',
          '|---|---|---|---:|---|---:|---:|---:|',
        ]);
      },
    },
    {
      each: (r) => {
        const rep = r.report;
        const contradicted = rep ? contradictions(rep) : undefined;
        return lines([
          `| ${ICON[r.outcome]} | ${mdCell(r.id)} | ${rep?.hallucination_risk ?? NO_VALUE} | ${rep ? rep.confidence_score.toFixed(2) : NO_VALUE} | ${rep?.evidence_coverage ?? NO_VALUE} | ${rep?.claims_analysis.length ?? NO_VALUE} | ${rep?.unsupported_claims.length ?? NO_VALUE} | ${contradicted ?? NO_VALUE} |`,
        ]);
      },
    },
    {
      fixed: (s) => {
        const cost = costText(s);
        return cost ? lines(['', cost]) : '';
      },
    },
    {
      each: (r) => {
        if (r.outcome === 'pass') return '';
        const L = ['', `<details><summary>${ICON[r.outcome]} ${mdCell(r.id)}: ${mdCell(outcomeReason(r, b.failOn))}</summary>`, ''];
        L.push(`Query: ${mdCell(r.query)}`, '');
        for (const c of r.report ? flagged(r.report) : []) {
          L.push(`- **${c.status}** ${c.support_score.toFixed(2)}: ${mdCell(c.claim)}`);
          for (const why of claimReasons(c)) L.push(`  - ${mdCell(why)}`);
        }
        L.push('', '</details>');
        return lines(L);
      },
    },
  ];
}

/** The parts of a report. `color`: paint the terminal table's marks. */
export function batchParts(format: BatchFormat, b: BatchMeta, o: { color?: boolean } = {}): BatchPart[] {
  if (format === 'table') return tableParts(b, Boolean(o.color));
  if (format === 'json') return jsonParts(b);
  return format === 'junit' ? junitParts(b) : markdownParts(b);
}
