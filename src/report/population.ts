import type { PopulationRate } from '../core/population.js';
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
