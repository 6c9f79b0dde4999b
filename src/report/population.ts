import { planPopulation, type PopulationDesign, type PopulationRate } from '../core/population.js';
import type { CorrectedPopulation } from '../core/ppi.js';
import { formatLevel, formatRate } from '../core/show.js';
import type { RunSummary, ValidatorSummary } from '../core/summary-types.js';
import { esc } from './html-layout.js';

/**
 * The two claims every report labels (docs/verdicts.md#two-claims-the-inputs-run-and-the-input-population): a
 * rule's `rate` and interval are about the inputs run; `population` about the inputs you will meet (the input as
 * the unit). One wording for the terminal, Markdown, HTML and dashboard, and the Vitest message.
 */

/** What the rate column's interval is about: "inputs run". */
export const INPUTS_RUN = 'inputs run';

/** "input population 80.0% [44.4%, 97.5%] over 10 inputs (95% CI, inputs as the unit; design effect 20.0)". */
export function populationText(p: PopulationRate): string {
  const deff = p.designEffect !== null ? `; design effect ${p.designEffect.toFixed(1)}` : '';
  const left = p.leftOut ? `; ${p.leftOut} input${p.leftOut === 1 ? '' : 's'} with nothing decided left out` : '';
  return `input population ${formatRate(p.rate)} [${formatRate(p.low)}, ${formatRate(p.high)}] over ${p.inputs} inputs (${formatLevel(p.level)} CI, inputs as the unit${deff}${left})`;
}

/** "corrected input population 80.0% [61.2%, 91.0%] over 40 inputs (98.75% CI at grading look 2, inputs as the unit; 40 grades on 32 inputs)". */
export function correctedPopulationText(p: CorrectedPopulation, look?: { index: number }): string {
  const at = look ? ` at grading look ${look.index}` : '';
  return `corrected input population ${formatRate(p.rate)} [${formatRate(p.low)}, ${formatRate(p.high)}] over ${p.inputs} inputs (${formatLevel(p.level)} CI${at}, inputs as the unit; ${p.grades} grades on ${p.gradedInputs} inputs)`;
}

/**
 * A rule's population figure as every report shows it: where grades corrected its rate, the corrected population
 * figure — or, when that cannot be had, the reason beside the judge's figure, labelled as the judge's; else its own.
 * undefined when it has none.
 */
export function rulePopulationText(v: Pick<ValidatorSummary, 'population' | 'grading'>): string | undefined {
  const c = v.grading?.corrected;
  if (c?.population) return correctedPopulationText(c.population, c.look);
  if (c && v.population) return `corrected input population: none (${c.populationRefused ?? 'not computed'}) · judge's ${populationText(v.population)}`;
  return v.population ? populationText(v.population) : undefined;
}

/** Which claim the verdicts are about, as the run's header line says it. */
export function estimandText(s: Pick<RunSummary, 'options'>): string {
  return s.options.estimand === 'population' ? 'verdicts on the input population' : 'verdicts on the inputs run';
}

/** One line per rule with a population figure, indented as the lines of why: "  polite: input population 80.0% [44.4%, 97.5%] …". */
export function populationLines(validators: readonly ValidatorSummary[]): string[] {
  return validators.flatMap((v) => {
    const text = rulePopulationText(v);
    return text ? [`  ${v.name}: ${text}`] : [];
  });
}

/** HTML: the population figure of a rule, under its verdict's why. */
export function populationHtml(v: ValidatorSummary): string {
  const text = rulePopulationText(v);
  return text ? `<br><span class="muted population" data-testid="population">${esc(text)}</span>` : '';
}

/** A population interval wider than this is "wide": a run's report then says how to narrow it. */
export const WIDE_POPULATION = 0.1;

/**
 * When a rule's population interval is wide (N ≥ 2): one line with the inputs-vs-samples plan `assay plan` gives
 * (core/population.ts planPopulation, from this run's ICC), for an interval WIDE_POPULATION wide — the fewest
 * outputs, and the design at this run's samples per input. undefined when narrow enough or no design reaches it.
 */
export function populationPlanText(p: PopulationRate, M: number): string | undefined {
  if (p.high - p.low <= WIDE_POPULATION) return undefined;
  const samples = [...new Set([1, 2, 3, 5, 10, 20, 50, 100, M])].sort((a, b) => a - b);
  const designs = planPopulation({ rate: p.rate, icc: p.icc ?? 0, width: WIDE_POPULATION, level: p.level, samples });
  if (!designs.length) return undefined;
  const fewest = designs.reduce((a, d) => (d.outputs < a.outputs ? d : a));
  const same = designs.find((d) => d.samples === M);
  const show = (d: PopulationDesign) => `${d.inputs} inputs × ${d.samples} sample${d.samples === 1 ? '' : 's'} (${d.outputs} outputs)`;
  const alt = same && same !== fewest ? `, or ${show(same)} at this run's samples per input` : '';
  const icc = p.icc === null ? 'no between-input spread seen, planned as none' : `ICC ${p.icc.toFixed(2)}`;
  return `population interval ${formatRate(p.high - p.low)} wide; for ${formatRate(WIDE_POPULATION)} (${formatLevel(p.level)}, ${icc}): about ${show(fewest)}${alt} — assay plan prices inputs against samples`;
}

/** One plan line per rule whose population interval is wide: "  polite: population interval 44.4% wide; for 10.0% …". */
export function populationPlanLines(validators: readonly ValidatorSummary[], M: number): string[] {
  return validators.flatMap((v) => {
    const text = v.population ? populationPlanText(v.population, M) : undefined;
    return text ? [`  ${v.name}: ${text}`] : [];
  });
}
