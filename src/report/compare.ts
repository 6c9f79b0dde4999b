import { displayWidth } from './width.js';
import { compareSummaries, type ComparisonRow, type PAdjust, type SummaryComparison } from '../core/compare.js';
import type { Estimand, RunSummary } from '../core/summary-types.js';
import type { RunRecord } from '../store/types.js';
import { formatRate, formatRateChange, NO_VALUE, formatLevel } from '../core/show.js';
import { maxOf, pushAll } from '../core/arrays.js';

export type { ComparisonRow, InputComparisonRow } from '../core/compare.js';

/** The comparison of two stored runs as reports show it: the core's figures with the runs' identities. */
export interface RunComparison extends SummaryComparison {
  a: { id: string; name: string; createdAt: string; shape: string };
  b: { id: string; name: string; createdAt: string; shape: string };
}

function side(run: RunRecord) {
  return { id: run.id, name: run.name, createdAt: run.createdAt, shape: `${run.N}×${run.M}×${run.K}` };
}

/** Run A (baseline) against run B (candidate); see compareSummaries in core/compare.ts for the statistics. */
export function compareRuns(
  a: { run: RunRecord; summary: RunSummary },
  b: { run: RunRecord; summary: RunSummary },
  options: { level?: number; adjust?: PAdjust; estimand?: Estimand } = {},
): RunComparison {
  const c = compareSummaries({ inputs: a.run.inputs, summary: a.summary }, { inputs: b.run.inputs, summary: b.summary }, options);
  return { a: side(a.run), b: side(b.run), ...c };
}

/** A p-value for people: three significant digits, scientific below 0.001, a floor where doubles give out. */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return NO_VALUE;
  if (p < 1e-15) return '<1e-15';
  return p < 0.001 ? p.toExponential(1) : p.toPrecision(3);
}

export function testName(test: 'fisher' | 'z' | null): string {
  return test === 'fisher' ? 'Fisher' : test === 'z' ? 'z-test' : 'no test';
}

/** Pad or cut to a display width in terminal columns (CJK characters take two, combining marks none). */
function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  let s = text;
  if (displayWidth(s) > width) {
    const chars = [...s];
    while (chars.length && displayWidth(chars.join('') + '…') > width) chars.pop();
    s = chars.join('') + '…';
  }
  const pad = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'left' ? s + pad : pad + s;
}

/** What the change column says, in words and a glyph (never colour alone). */
export function changeWord(r: ComparisonRow): string {
  if (r.pValue === null) return '? not testable';
  return r.direction === 'worse' ? '✗ WORSE' : r.direction === 'better' ? '✓ better' : '· no significant change';
}

function row(r: ComparisonRow, width: number, adjusted: boolean): string {
  const p = adjusted && r.adjustedP !== undefined ? r.adjustedP : r.pValue;
  const test = r.pValue === null ? NO_VALUE : `p=${formatP(p)} ${testName(r.test)}`;
  const ci = r.ci ? `[${formatRateChange(r.ci.low)}, ${formatRateChange(r.ci.high)}]` : NO_VALUE;
  return [
    fit(r.label, width),
    fit(`${formatRate(r.a.rate)} (${r.a.pass}/${r.a.n})`, 16, 'right'),
    fit(`${formatRate(r.b.rate)} (${r.b.pass}/${r.b.n})`, 16, 'right'),
    fit(formatRateChange(r.diff), 8, 'right'),
    fit(ci, 18, 'right'),
    fit(test, 18, 'right'),
    `  ${changeWord(r)}`,
  ].join(' ');
}

function header(first: string, width: number, adjusted: boolean): string {
  return [
    fit(first, width),
    fit('A', 16, 'right'),
    fit('B', 16, 'right'),
    fit('B−A', 8, 'right'),
    fit('interval', 18, 'right'),
    fit(adjusted ? 'test (Holm p)' : 'test', 18, 'right'),
    '  change',
  ].join(' ');
}

/**
 * The validators whose rates left errors out in either run, with both shares: a rate that "improved" may only
 * have lost its failures to errors. '' when neither run had any.
 */
function errorsLine(rows: readonly ComparisonRow[]): string {
  const withErrors = rows.filter((r) => r.errorShare.a || r.errorShare.b);
  if (!withErrors.length) return '';
  return `errors left out of these rates (share of checked cells): ${withErrors.map((r) => `${r.label} A ${formatRate(r.errorShare.a)}, B ${formatRate(r.errorShare.b)}`).join('; ')}`;
}

/** The comparison as terminal text: per validator, then the inputs that changed the most. */
export function formatComparison(c: RunComparison, maxInputs = 15): string {
  const holm = c.adjust === 'holm';
  const lines: string[] = [];
  lines.push(
    `A ${c.a.id} (${c.a.name}, ${c.a.shape})  →  B ${c.b.id} (${c.b.name}, ${c.b.shape}), level ${formatLevel(c.level)}${holm ? ', Holm-adjusted' : ''}`,
  );
  if (c.validators.length) {
    const vw = maxOf(
      c.validators.map((v) => Math.min(30, displayWidth(v.label))),
      10,
    );
    lines.push('', header('validator', vw, holm));
    pushAll(
      lines,
      c.validators.map((v) => row(v, vw, holm)),
    );
  } else {
    lines.push('', 'no validator in common: nothing to compare');
  }
  // The other claim: the input population, paired by input.
  const paired = c.validators.filter((v) => v.population);
  if (paired.length) {
    const gate =
      c.estimand === 'population' ? ' — the gate reads these' : ' — the gate reads the rows above (inputs run); --estimand population gates on these';
    lines.push(
      '',
      `the input population, B − A paired by input (paired t interval${holm && c.validators.length > 1 ? ', Bonferroni over the validators' : ''})${gate}:`,
    );
    for (const v of paired) {
      const p = v.population!;
      const word = p.direction === 'worse' ? '✗ WORSE' : p.direction === 'better' ? '✓ better' : '· no significant change';
      lines.push(`  ${v.label}: ${formatRateChange(p.diff)} [${formatRateChange(p.low)}, ${formatRateChange(p.high)}] over ${p.inputs} inputs  ${word}`);
    }
  }
  const errs = errorsLine(c.validators);
  if (errs) lines.push(errs);
  if (c.onlyInA.length) lines.push(`validators only in A (not compared): ${c.onlyInA.join(', ')}`);
  if (c.onlyInB.length) lines.push(`validators only in B (not compared): ${c.onlyInB.join(', ')}`);
  if (c.untestable.length) lines.push(`not testable (no decided cell in A or B, e.g. all errors): ${c.untestable.join(', ')}`);
  const inputs = [...c.inputs].sort((x, y) => (x.pValue ?? 2) - (y.pValue ?? 2) || Math.abs(y.diff ?? 0) - Math.abs(x.diff ?? 0)).slice(0, maxInputs);
  if (inputs.length) {
    lines.push('', `inputs (${inputs.length} of ${c.inputs.length} matched, smallest p first; a guide only: samples of one input are correlated)`);
    lines.push(header('input', 30, false));
    pushAll(
      lines,
      inputs.map((r) => row(r, 30, false)),
    );
  }
  if (c.inputsOnlyInA || c.inputsOnlyInB) lines.push(`inputs only in A: ${c.inputsOnlyInA}, only in B: ${c.inputsOnlyInB}`);
  lines.push('', verdictLine(c));
  return lines.join('\n') + '\n';
}

export function verdictLine(c: RunComparison): string {
  if (c.regressions.length) return `✗ significantly worse in B${c.estimand === 'population' ? ' (input population)' : ''}: ${c.regressions.join(', ')}`;
  if (!c.validators.length) return '? no validator in common';
  if (c.untestable.length === c.validators.length) return '? no validator could be tested (no decided cell in A or B)';
  return '✓ no validator got significantly worse';
}
