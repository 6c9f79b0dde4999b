import type { PopulationRate } from '../core/population.js';
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

/** Which claim the verdicts are about, as the run's header line says it. */
export function estimandText(s: Pick<RunSummary, 'options'>): string {
  return s.options.estimand === 'population' ? 'verdicts on the input population' : 'verdicts on the inputs run';
}

/** One line per rule with a population figure, indented as the lines of why: "  polite: input population 80.0% [44.4%, 97.5%] …". */
export function populationLines(validators: readonly ValidatorSummary[]): string[] {
  return validators.flatMap((v) => (v.population ? [`  ${v.name}: ${populationText(v.population)}`] : []));
}

/** HTML: the population figure of a rule, under its verdict's why. */
export function populationHtml(v: ValidatorSummary): string {
  return v.population ? `<br><span class="muted population" data-testid="population">${esc(populationText(v.population))}</span>` : '';
}
