import { visibleControls } from '../core/text.js';
import { writeFile } from 'node:fs/promises';
import { displayWidth } from './width.js';
import { claimReasons } from '../ground/reasons.js';
import { RISKS, type AnswerOutcome, type Risk } from '../ground/ci.js';
import type { ClaimAnalysis, GroundingReport } from '../ground/types.js';
import { xmlEscape } from './junit.js';
import { mdCell } from './markdown.js';
import { STDOUT } from './targets.js';
import { ReportWriteError } from './write.js';
import { NO_VALUE } from '../core/show.js';
import { maxOf } from '../core/arrays.js';

/**
 * The reports of `assay analyze` over many answers (`--answers`): a terminal table, JSON, JUnit and Markdown.
 * Every status, risk and outcome shown is read from the reports and from answerOutcome (src/ground/ci.ts),
 * never decided again here.
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

export interface GroundingBatch {
  /** The knowledge base the answers were audited against. */
  kb: string;
  failOn?: Risk;
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

export function summarizeBatch(b: GroundingBatch): BatchSummary {
  const s: BatchSummary = {
    answers: b.results.length,
    passed: 0,
    failed: 0,
    errors: 0,
    risk: { LOW: 0, MEDIUM: 0, HIGH: 0 },
    claims: 0,
    unsupported: 0,
    contradicted: 0,
  };
  let usage: BatchSummary['usage'];
  for (const r of b.results) {
    if (r.outcome === 'pass') s.passed++;
    else if (r.outcome === 'fail') s.failed++;
    else s.errors++;
    if (!r.report) continue;
    s.risk[r.report.hallucination_risk]++;
    s.claims += r.report.claims_analysis.length;
    s.unsupported += r.report.unsupported_claims.length;
    s.contradicted += r.report.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length;
    const c = r.report.checker;
    if (c?.usage) {
      usage ??= { promptTokens: 0, completionTokens: 0 };
      usage.promptTokens += c.usage.promptTokens;
      usage.completionTokens += c.usage.completionTokens;
    }
    if (c?.cost_usd !== undefined) s.cost_usd = (s.cost_usd ?? 0) + c.cost_usd;
  }
  if (usage) s.usage = usage;
  return s;
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

function footer(b: GroundingBatch, s: BatchSummary): string {
  const risks = RISKS.map((r) => `${s.risk[r]} ${r}`).join(', ');
  const parts = [`${s.answers} answer${s.answers === 1 ? '' : 's'}: ${risks}`];
  if (b.failOn) parts.push(`${s.failed} at or above fail-on ${b.failOn}`);
  if (s.errors) parts.push(`${s.errors} not decided (errors)`);
  return parts.join('; ');
}

const MARK: Record<AnswerOutcome, string> = { pass: 'ok', fail: 'FAIL', error: 'ERROR' };
/** Columns of figures, right-aligned: confidence, claims, unsupported, contradicted. */
const NUMERIC = new Set([3, 5, 6, 7]);

/** The terminal summary: one row per answer, the flagged claims of failed and undecided answers, a footer. */
export function formatBatchTable(b: GroundingBatch, o: { color?: boolean } = {}): string {
  const s = summarizeBatch(b);
  const paint = (text: string, outcome: AnswerOutcome) => (o.color && outcome !== 'pass' ? `\x1b[${outcome === 'fail' ? 31 : 33}m${text}\x1b[0m` : text);
  const rows = [['', 'id', 'risk', 'confidence', 'coverage', 'claims', 'unsupported', 'contradicted']];
  for (const r of b.results) {
    const rep = r.report;
    rows.push([
      MARK[r.outcome],
      visibleControls(r.id),
      rep?.hallucination_risk ?? NO_VALUE,
      rep ? rep.confidence_score.toFixed(2) : NO_VALUE,
      rep?.evidence_coverage ?? NO_VALUE,
      rep ? String(rep.claims_analysis.length) : NO_VALUE,
      rep ? String(rep.unsupported_claims.length) : NO_VALUE,
      rep ? String(rep.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length) : NO_VALUE,
    ]);
  }
  const widths = rows[0].map((_, c) => maxOf(rows.map((r) => displayWidth(r[c]))));
  const lines = rows.map((r, i) =>
    r
      .map((cell, c) => {
        const pad = ' '.repeat(widths[c] - displayWidth(cell));
        const text = NUMERIC.has(c) ? pad + cell : cell + pad;
        return c === 0 && i > 0 ? paint(text, b.results[i - 1].outcome) : text;
      })
      .join('  ')
      .trimEnd(),
  );
  const details: string[] = [];
  for (const r of b.results) {
    if (r.outcome === 'pass') continue;
    // Ids, claims and reasons come from the answers: their bidi and control characters are shown as marks.
    details.push(
      '',
      `${paint(MARK[r.outcome], r.outcome)} ${visibleControls(`${r.id}${r.line !== undefined ? ` (line ${r.line})` : ''}: ${outcomeReason(r, b.failOn)}`)}`,
    );
    for (const c of r.report ? flagged(r.report) : []) {
      details.push(visibleControls(`  [${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`));
      for (const why of claimReasons(c)) details.push(visibleControls(`    ${why}`));
    }
  }
  const cost = costText(s);
  return [...lines, ...details, '', footer(b, s), ...(cost ? [cost] : [])].join('\n') + '\n';
}

export const GROUNDING_BATCH_SCHEMA = 'assay-grounding-batch/1';

export function renderBatchJson(b: GroundingBatch): string {
  const summary = summarizeBatch(b);
  return (
    JSON.stringify(
      {
        schema: GROUNDING_BATCH_SCHEMA,
        kb: b.kb,
        fail_on: b.failOn ?? null,
        summary,
        results: b.results.map((r) => ({
          id: r.id,
          ...(r.line !== undefined ? { line: r.line } : {}),
          query: r.query,
          outcome: r.outcome,
          reason: outcomeReason(r, b.failOn),
          ...(r.report ? { report: r.report } : { error: r.error ?? 'could not be analysed' }),
        })),
      },
      null,
      2,
    ) + '\n'
  );
}

/**
 * JUnit: one testcase per answer, so a CI system lists each. `fail` → <failure type="risk-at-or-above-fail-on">,
 * an answer that could not be analysed → <error type="infrastructure">, a partial report below fail-on →
 * <error type="partial">; the flagged claims in the body. Never a failure for an error.
 */
export function renderBatchJunit(b: GroundingBatch): string {
  const s = summarizeBatch(b);
  const totals = `tests="${s.answers}" failures="${s.failed}" errors="${s.errors}" skipped="0" time="0.000"`;
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="assay" ${totals}>`, `  <testsuite name="assay analyze" ${totals}>`];
  out.push('    <properties>');
  out.push(`      <property name="kb" value="${xmlEscape(b.kb)}"/>`);
  out.push(`      <property name="failOn" value="${b.failOn ?? ''}"/>`);
  if (s.cost_usd !== undefined) out.push(`      <property name="costUsd" value="${s.cost_usd}"/>`);
  out.push('    </properties>');
  for (const r of b.results) {
    const reason = outcomeReason(r, b.failOn);
    const body = r.report
      ? flagged(r.report)
          .map((c) => [`[${c.status} ${c.support_score.toFixed(2)}] ${c.claim}`, ...claimReasons(c).map((x) => `  ${x}`)].join('\n'))
          .join('\n')
      : (r.error ?? '');
    out.push(`    <testcase classname="assay.grounding" name="${xmlEscape(r.id)}" time="0">`);
    if (r.outcome === 'fail') out.push(`      <failure type="risk-at-or-above-fail-on" message="${xmlEscape(reason)}">${xmlEscape(body)}</failure>`);
    else if (r.outcome === 'error')
      out.push(`      <error type="${r.report ? 'partial' : 'infrastructure'}" message="${xmlEscape(reason)}">${xmlEscape(body)}</error>`);
    out.push(`      <system-out>${xmlEscape(`${r.query}\n${reason}${body ? `\n${body}` : ''}`)}</system-out>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return out.join('\n') + '\n';
}

/** Markdown for a CI job summary: a heading with the outcome, a table of answers, the flagged claims folded. */
export function renderBatchMarkdown(b: GroundingBatch): string {
  const s = summarizeBatch(b);
  const head = s.failed ? '❌' : s.errors ? '🛑' : '✅';
  const icon: Record<AnswerOutcome, string> = { pass: '✅', fail: '❌', error: '🛑' };
  const L = [`## ${head} assay analyze: ${mdCell(footer(b, s))}`, ''];
  L.push(`Knowledge base \`${mdCell(b.kb)}\`${b.failOn ? `; an answer fails at risk ${b.failOn} or above` : ''}.`, '');
  L.push('| | id | risk | confidence | coverage | claims | unsupported | contradicted |', '|---|---|---|---:|---|---:|---:|---:|');
  for (const r of b.results) {
    const rep = r.report;
    const contradicted = rep ? rep.claims_analysis.filter((c) => c.status === 'CONTRADICTED').length : undefined;
    L.push(
      `| ${icon[r.outcome]} | ${mdCell(r.id)} | ${rep?.hallucination_risk ?? NO_VALUE} | ${rep ? rep.confidence_score.toFixed(2) : NO_VALUE} | ${rep?.evidence_coverage ?? NO_VALUE} | ${rep?.claims_analysis.length ?? NO_VALUE} | ${rep?.unsupported_claims.length ?? NO_VALUE} | ${contradicted ?? NO_VALUE} |`,
    );
  }
  const cost = costText(s);
  if (cost) L.push('', cost);
  for (const r of b.results) {
    if (r.outcome === 'pass') continue;
    L.push('', `<details><summary>${icon[r.outcome]} ${mdCell(r.id)}: ${mdCell(outcomeReason(r, b.failOn))}</summary>`, '');
    L.push(`Query: ${mdCell(r.query)}`, '');
    for (const c of r.report ? flagged(r.report) : []) {
      L.push(`- **${c.status}** ${c.support_score.toFixed(2)}: ${mdCell(c.claim)}`);
      for (const why of claimReasons(c)) L.push(`  - ${mdCell(why)}`);
    }
    L.push('', '</details>');
  }
  return L.join('\n') + '\n';
}

/** Writes each requested report (`-` for stdout); returns the files written. Targets are checked before any work. */
export async function writeBatchReports(targets: { json?: string; junit?: string; markdown?: string }, b: GroundingBatch): Promise<string[]> {
  const render = { json: renderBatchJson, junit: renderBatchJunit, markdown: renderBatchMarkdown };
  const written: string[] = [];
  for (const flag of ['json', 'junit', 'markdown'] as const) {
    const file = targets[flag];
    if (!file) continue;
    const text = render[flag](b);
    if (file === STDOUT) {
      process.stdout.write(text);
      continue;
    }
    try {
      await writeFile(file, text, 'utf8');
    } catch (err) {
      throw new ReportWriteError(`--${flag}: could not write ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
    }
    written.push(file);
  }
  return written;
}
