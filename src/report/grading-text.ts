/**
 * A rule checked against people's grades, in the words and figures every report uses (terminal, Markdown,
 * HTML, JUnit, the dashboard): which figure it shows, the confusion matrix, TPR/TNR with intervals, κ, and
 * the disagreements with the judge's reasons beside them. The facts are decided in core (summarize); this
 * only says them.
 */
import type { RateInterval } from '../core/alignment.js';
import type { Disagreement, GradingSummary, ValidatorSummary } from '../core/summary-types.js';
import { formatRate, NO_VALUE } from '../core/show.js';

/** The rate a report shows for a rule and its interval: the corrected one where grades corrected it, else the rule's own. */
export function shownRate(v: Pick<ValidatorSummary, 'rate' | 'ci' | 'grading'>): { rate: number | null; low: number | null; high: number | null } {
  const c = v.grading?.corrected;
  if (c) return { rate: c.rate, low: c.low, high: c.high };
  return { rate: v.rate, low: v.ci?.low ?? null, high: v.ci?.high ?? null };
}

/** Who gave the verdicts people are compared with. */
export function whose(v: Pick<ValidatorSummary, 'kind'>): 'judge' | 'rule' {
  return v.kind === 'verifier' ? 'judge' : 'rule';
}

/**
 * The figure a rule's line says, e.g. "corrected by 57 grades (judge's rate 95.0% [94.0%, 96.0%])" or
 * "judge's rate · judge not checked against people"; '' for a code validator without grades.
 */
export function figureText(v: Pick<ValidatorSummary, 'figure' | 'grading' | 'rate' | 'ci' | 'kind'>): string {
  if (!v.figure) return '';
  if (!v.grading?.corrected) return v.figure;
  const ci = v.ci ? ` [${formatRate(v.ci.low)}, ${formatRate(v.ci.high)}]` : '';
  return `${v.figure} (${whose(v)}'s rate ${formatRate(v.rate)}${ci}; pass, fail and error counts are the ${whose(v)}'s verdicts)`;
}

/**
 * Whose the pass / fail / error counts beside a shown rate are, where that rate was corrected by people's grades
 * (the counts are not): "judge's verdicts: " / "rule's verdicts: "; '' where the rate is the counts' own.
 */
export function countsWhose(v: Pick<ValidatorSummary, 'grading' | 'kind'>): string {
  return v.grading?.corrected ? `${whose(v)}'s verdicts: ` : '';
}

/**
 * Beside an aggregate over the rules' rates (overall mean, weighted, min) when any rule's shown rate was corrected
 * by grades: the aggregates are of the verdicts as given, not of the corrected rates; '' when none was corrected.
 */
export function aggregatesWhose(validators: readonly Pick<ValidatorSummary, 'grading'>[] | number): string {
  const n = typeof validators === 'number' ? validators : validators.filter((v) => v.grading?.corrected).length;
  return n ? `of the verdicts as given, not the ${n === 1 ? 'rate' : `${n} rates`} corrected by grades` : '';
}

/** Beside a rate of the tensor (a heatmap's) where the rule's rate was corrected: " judge's rate"; '' otherwise. */
export function ownRateNote(v: Pick<ValidatorSummary, 'grading' | 'kind'>): string {
  return v.grading?.corrected ? ` ${whose(v)}'s rate` : '';
}

const interval = (r: RateInterval | null) => (r ? `${formatRate(r.rate)} [${formatRate(r.low)}, ${formatRate(r.high)}]` : NO_VALUE);

/** "TPR 98.0% [89.1%, 99.9%] · TNR 50.0% [15.7%, 84.3%] · agreement 91.2% · κ 0.57", and whether a stratified draw weighted them. */
export function alignmentText(g: GradingSummary): string {
  const a = g.alignment;
  const weighted = a.weighted ? ' (weighted by the draw’s probabilities)' : '';
  return `TPR ${interval(a.tpr)} · TNR ${interval(a.tnr)} · agreement ${a.agreement ? formatRate(a.agreement.rate) : NO_VALUE} · κ ${a.kappa === null ? NO_VALUE : a.kappa.toFixed(2)}${weighted}`;
}

/** The confusion matrix as rows: a header, then the rule's PASS and FAIL against the people's. */
export function confusionRows(v: Pick<ValidatorSummary, 'kind'>, g: GradingSummary): string[][] {
  const a = g.alignment;
  const w = whose(v);
  return [
    ['', 'people PASS', 'people FAIL'],
    [`${w} PASS`, String(a.tp), String(a.fp)],
    [`${w} FAIL`, String(a.fn), String(a.tn)],
  ];
}

/** "(i=3, j=0) judge PASS, people FAIL" (i and j as in the run's JSON). */
export function disagreementHead(v: Pick<ValidatorSummary, 'kind'>, d: Disagreement): string {
  const verdict = (b: boolean) => (b ? 'PASS' : 'FAIL');
  return `(i=${d.i}, j=${d.j}) ${whose(v)} ${verdict(d.judge)}, people ${verdict(d.person)}${d.disputed ? ' (people disagree)' : ''}`;
}

/** The judge's reasons in one line, or what stands in for them. */
export function reasonsText(d: Disagreement, max = 200): string {
  if (!d.reasons?.length) return 'no reasons given';
  const s = d.reasons.join('; ').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The grades' one-line summary: "57 grades (48 agree, 9 disagree)". */
export function gradesText(g: GradingSummary): string {
  return `${g.grades} grade(s): ${g.grades - g.disagreements.length} agree, ${g.disagreements.length} disagree`;
}
