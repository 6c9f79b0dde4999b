/**
 * Run A (baseline) against run B (candidate), from their summaries: per validator (matched by name) and per
 * input (matched by content), B's rate minus A's with Newcombe's interval and a test (Fisher or z, see
 * compareProportions). Rates are over decided cells: errors and pending cells are not trials.
 *
 * With K validators each tested at level 1 − α, the chance that at least one of them looks "significantly
 * worse" by luck alone grows with K; `adjust: 'holm'` (Holm–Bonferroni) keeps that family-wise chance at α.
 * Per-input figures pool one input's samples, which are correlated: read them as a guide, never a gate.
 *
 * Those tests count cells as trials: a claim about the inputs run. Each validator row also carries `population`,
 * B's input-population rate minus A's, paired by input (core/population.ts populationDifference); with
 * `estimand: 'population'` (the default when both runs were decided on it) the regression gate reads it instead,
 * at level 1 − α/K per validator with `adjust: 'holm'` (Bonferroni, Holm's first step: the gate reads intervals).
 */
import { compareProportions, holmAdjust, type ProportionComparison } from './significance.js';
import { populationDifference, type PopulationDifference } from './population.js';
import type { Counts, Estimand } from './rate-types.js';
import type { RunSummary } from './summary-types.js';
import type { InputValue } from './validator.js';
import { errorShareOf } from './views.js';
import { ArgumentError } from '../errors.js';

export type PAdjust = 'none' | 'holm';

export interface ComparisonRow extends ProportionComparison {
  label: string;
  /**
   * Share of each run's checked cells that are errors (null: nothing checked): left out of the rates, so a
   * rate that looks better may only have lost its failures to errors. Shown beside every compared rate.
   */
  errorShare: { a: number | null; b: number | null };
  /** Holm-adjusted p-value, when the comparison was made with `adjust: 'holm'` (validators only). */
  adjustedP?: number | null;
  /** Validators: B's input-population rate minus A's, paired by input; null with fewer than 2 matched inputs. */
  population?: PopulationDifference | null;
}

export interface InputComparisonRow extends ComparisonRow {
  /** The input's index in A and in B. */
  iA: number;
  iB: number;
}

export interface SummaryComparison {
  level: number;
  adjust: PAdjust;
  /** Which claim the regression gate is about: the inputs run (cells as trials) or the input population (paired by input). */
  estimand: Estimand;
  validators: ComparisonRow[];
  inputs: InputComparisonRow[];
  /** Validators of one run only (not compared). */
  onlyInA: string[];
  onlyInB: string[];
  /** Validators present in both runs but with no decided cell in one of them (all errors or not run): no test. */
  untestable: string[];
  /** Inputs present in one run only. */
  inputsOnlyInA: number;
  inputsOnlyInB: number;
  /** Validators whose rate got significantly worse in B: the CI regression gate. */
  regressions: string[];
}

/** What a comparison needs of a run: its inputs (to match them by content) and its summary. */
export interface ComparedRun {
  inputs: readonly InputValue[];
  summary: RunSummary;
}

function decided(c: Counts): { pass: number; n: number } {
  return { pass: c.pass, n: c.pass + c.fail };
}

function errorShares(a: Counts, b: Counts): ComparisonRow['errorShare'] {
  return { a: errorShareOf(a), b: errorShareOf(b) };
}

/** JSON with object keys sorted, so {a, b} and {b, a} are the same input. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function inputKey(input: InputValue): string {
  return typeof input === 'string' ? `s:${input}` : `o:${canonical(input)}`;
}

export function inputText(input: InputValue): string {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/** Matches the k-th occurrence of an input in A with its k-th occurrence in B (inputs may repeat). */
export function matchInputs(a: readonly InputValue[], b: readonly InputValue[]): [number, number][] {
  const positionsB = new Map<string, number[]>();
  b.forEach((input, i) => {
    const key = inputKey(input);
    const list = positionsB.get(key);
    if (list) list.push(i);
    else positionsB.set(key, [i]);
  });
  const pairs: [number, number][] = [];
  a.forEach((input, iA) => {
    const iB = positionsB.get(inputKey(input))?.shift();
    if (iB !== undefined) pairs.push([iA, iB]);
  });
  return pairs;
}

export function compareSummaries(a: ComparedRun, b: ComparedRun, options: { level?: number; adjust?: PAdjust; estimand?: Estimand } = {}): SummaryComparison {
  const level = options.level ?? 0.95;
  const adjust = options.adjust ?? 'none';
  const estimand = options.estimand ?? (a.summary.options.estimand === 'population' && b.summary.options.estimand === 'population' ? 'population' : 'inputs');
  if (estimand !== 'inputs' && estimand !== 'population')
    throw new ArgumentError(`compareSummaries: estimand must be inputs or population, got ${JSON.stringify(estimand)}`, { key: 'estimand' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`compareSummaries: level must be in (0, 1), got ${level}`, { key: 'level' });
  const sa = a.summary;
  const sb = b.summary;
  if (sa.inputs.length !== a.inputs.length || sb.inputs.length !== b.inputs.length) {
    throw new ArgumentError('compareSummaries: a summary does not match its inputs (N differs)', { key: 'summary' });
  }
  const byNameB = new Map(sb.validators.map((v) => [v.name, v]));
  const namesA = new Set(sa.validators.map((v) => v.name));

  const validators: ComparisonRow[] = [];
  for (const va of sa.validators) {
    const vb = byNameB.get(va.name);
    if (vb)
      validators.push({ label: va.name, errorShare: errorShares(va.counts, vb.counts), ...compareProportions(decided(va.counts), decided(vb.counts), level) });
  }
  if (adjust === 'holm') {
    const adjusted = holmAdjust(validators.map((v) => v.pValue));
    validators.forEach((v, idx) => {
      v.adjustedP = adjusted[idx];
      v.significant = adjusted[idx] !== null && adjusted[idx]! < 1 - level;
      v.direction = !v.significant || v.diff === 0 || v.diff === null ? 'unchanged' : v.diff > 0 ? 'better' : 'worse';
    });
  }

  // Paired by input: each validator's per-input counts on the inputs matched between the runs.
  const matched = matchInputs(a.inputs, b.inputs);
  const kA = new Map(sa.validators.map((v, k) => [v.name, k]));
  const kB = new Map(sb.validators.map((v, k) => [v.name, k]));
  const popLevel = adjust === 'holm' && validators.length > 1 ? 1 - (1 - level) / validators.length : level;
  for (const v of validators) {
    const [ka, kb] = [kA.get(v.label)!, kB.get(v.label)!];
    v.population = populationDifference(
      matched.map(([iA, iB]) => [sa.inputs[iA].perValidator[ka].counts, sb.inputs[iB].perValidator[kb].counts] as const),
      popLevel,
    );
  }

  const inputs: InputComparisonRow[] = matched.map(([iA, iB]) => ({
    label: inputText(a.inputs[iA]),
    iA,
    iB,
    errorShare: errorShares(sa.inputs[iA].counts, sb.inputs[iB].counts),
    ...compareProportions(decided(sa.inputs[iA].counts), decided(sb.inputs[iB].counts), level),
  }));

  return {
    level,
    adjust,
    estimand,
    validators,
    inputs,
    onlyInA: sa.validators.filter((v) => !byNameB.has(v.name)).map((v) => v.name),
    onlyInB: sb.validators.filter((v) => !namesA.has(v.name)).map((v) => v.name),
    untestable: validators.filter((v) => v.pValue === null).map((v) => v.label),
    inputsOnlyInA: a.inputs.length - inputs.length,
    inputsOnlyInB: b.inputs.length - inputs.length,
    regressions: validators.filter((v) => (estimand === 'population' ? v.population?.direction === 'worse' : v.direction === 'worse')).map((v) => v.label),
  };
}
