/**
 * How well each candidate assertion agrees with the labels (people's grades, with `--run`): the confusion
 * matrix, TPR/TNR/agreement with exact intervals and Cohen's κ, from core/alignment.ts, the same figures a
 * judge gets against people (docs/judges.md). "Positive" is PASS, as there: an assertion that passes an
 * output calls it good. So TPR = 1 − the assertion's FFR and TNR = its coverage, over its non-error cells
 * (an ERROR cell is no verdict: left out, and counted). The selected set is one more rule: it fails an
 * output when any member fails it (errors count as not failing, as in selection). Pure.
 */
import { alignment, type Alignment } from '../core/alignment.js';
import { Outcome } from '../core/outcome.js';
import type { EvaluationMatrix } from './types.js';
import { orNoValue } from '../core/show.js';
import { maxOf } from '../core/arrays.js';

export interface AssertionAgreement {
  /** The assertion's name, or null for the selected set taken together. */
  id: string | null;
  alignment: Alignment;
  /** Cells left out because the assertion could not say (ERROR). */
  errors: number;
}

export function assertionAgreement(m: EvaluationMatrix, level = 0.95): AssertionAgreement[] {
  const A = m.assertions.length;
  return m.assertions.map((id, a) => {
    const pairs: { judge: boolean; person: boolean }[] = [];
    let errors = 0;
    m.examples.forEach((ex, e) => {
      const c = m.cells[e * A + a];
      if (c === Outcome.PASS || c === Outcome.FAIL) pairs.push({ judge: c === Outcome.PASS, person: ex.label === 'good' });
      else errors++;
    });
    return { id, alignment: alignment(pairs, level), errors };
  });
}

/** The selected set as one rule: it fails an example when any member's cell is FAIL. */
export function setAgreement(m: EvaluationMatrix, selected: readonly string[], level = 0.95): AssertionAgreement {
  const A = m.assertions.length;
  const cols = selected.map((s) => m.assertions.indexOf(s));
  const pairs = m.examples.map((ex, e) => ({ judge: !cols.some((a) => m.cells[e * A + a] === Outcome.FAIL), person: ex.label === 'good' }));
  return { id: null, alignment: alignment(pairs, level), errors: 0 };
}

const f3 = (x: number | null | undefined) => orNoValue(x, (v) => v.toFixed(3));
const ci = (r: Alignment['agreement']) => orNoValue(r, (v) => `[${v.low.toFixed(3)}, ${v.high.toFixed(3)}]`);

/** The agreement table of the terminal: one line per assertion (selected ones marked ✓), then the set. */
export function formatAgreement(rows: AssertionAgreement[], set: AssertionAgreement | undefined, selected: readonly string[], heading: string): string[] {
  const chosen = new Set(selected);
  const width = Math.min(
    48,
    maxOf(
      rows.map((r) => (r.id ?? '').length),
      10,
    ),
  );
  const line = (mark: string, name: string, r: AssertionAgreement) => {
    const a = r.alignment;
    return (
      `${mark} ${name.padEnd(width)} ${String(a.n).padStart(4)}${[a.tp, a.fp, a.fn, a.tn].map((x) => String(x).padStart(4)).join('')}` +
      `  ${f3(a.agreement?.rate).padEnd(5)} ${ci(a.agreement).padEnd(16)} ${f3(a.tpr?.rate).padStart(5)} ${f3(a.tnr?.rate).padStart(5)} ${orNoValue(a.kappa, (v) => v.toFixed(2)).padStart(5)}` +
      (r.errors ? `  (${r.errors} ERROR cells left out)` : '')
    );
  };
  return [
    heading,
    `  ${'assertion'.padEnd(width)}    n  tp  fp  fn  tn  agree 95% CI             TPR   TNR     κ`,
    ...rows.map((r) => line(chosen.has(r.id!) ? '✓' : ' ', r.id!, r)),
    ...(set ? [line(' ', 'selected set', set)] : []),
  ];
}
