/**
 * The corrected (graded) rate's input-population form (issue 29, docs/judges.md#the-corrected-rate-over-the-input-population).
 *
 * core/ppi.ts corrects a rule's rate over the inputs run by people's grades: p̂ = q̂·â + (1 − q̂)·b̂, with q̂ the
 * judge's PASS share and â, b̂ the person-PASS shares of the graded judge-PASS and judge-FAIL outputs. Its
 * population form keeps the estimate and makes every piece clustered by input (Miller 2024: the input is the unit):
 *
 * - q̄ = the mean over inputs of each input's judge PASS share, with the judge's population interval
 *   (core/population.ts, cluster-cp): Clopper–Pearson at n* effective trials, so its uncertainty is fed to the
 *   corrected interval as a judged share over n* outputs instead of Σ n_i;
 * - â and b̂ are ratio estimates over inputs (grades of one input are correlated: a judge may be wrong on a whole
 *   input); each counts as its effective number of grades m* = â(1 − â)/V · (z/t_{G−1})², V the cluster-robust
 *   variance of the ratio over the G inputs with such grades (Korn & Graubard 1998, as for the population rate),
 *   kept in [G, m]; a verdict whose grades all agree shows no spread, and counts as G (one grade per input);
 * - the pieces are combined by core/ppi.ts's stratified interval (exact Beta pieces, MOVER for q̄).
 *
 * With the same number of decided outputs on every input, q̄·â estimates the mean over inputs of q_i·a_i even
 * when the judge's accuracy differs from input to input (â weighs each input by its judge PASS share), so the
 * estimate targets the population mean. Coverage is measured by seeded simulation in
 * src/core/population-corrected.test.ts and `npm run -s bench:population` (the `corrected` rows).
 *
 * Refused (null form, with the reason the reports print) when there is no population claim (fewer than 2
 * inputs), or the grades were drawn with probabilities that differ within a verdict (a weighted draw has no
 * clustered form here).
 */
import { tCritical } from './cluster.js';
import { zCritical } from './intervals.js';
import { populationRate } from './population.js';
import { CORRECTED_POPULATION_METHOD, stratifiedRate, type CorrectedPopulation, type VerdictStratum } from './ppi.js';
import type { Counts } from './rate-types.js';
import { ArgumentError } from '../errors.js';

export { CORRECTED_POPULATION_METHOD, type CorrectedPopulation };

/** A graded output the rule decided: its input, the judge's verdict, the person's grade. */
export interface GradedAtInput {
  i: number;
  judge: boolean;
  person: boolean;
  probability?: number;
}

/** Effective grades of one verdict, clustered by input. */
function stratum(own: readonly GradedAtInput[], share: number, level: number): VerdictStratum {
  const m = own.length;
  if (m === 0) return { share, x: 0, m: 0 };
  const byInput = new Map<number, { x: number; m: number }>();
  for (const g of own) {
    const c = byInput.get(g.i) ?? { x: 0, m: 0 };
    c.m++;
    if (g.person) c.x++;
    byInput.set(g.i, c);
  }
  const G = byInput.size;
  const x = own.filter((g) => g.person).length;
  const a = x / m;
  let mEff = G;
  if (G >= 2 && a > 0 && a < 1) {
    let ss = 0;
    for (const c of byInput.values()) ss += (c.x - a * c.m) ** 2;
    const v = ((G / (G - 1)) * ss) / (m * m);
    const raw = v > 0 ? ((a * (1 - a)) / v) * (zCritical(level) / tCritical(level, G - 1)) ** 2 : Infinity;
    mEff = Math.min(m, Math.max(G, raw));
  }
  return { share, x: a * mEff, m: mEff };
}

/**
 * The corrected rate over the input population from each input's judged counts and the graded outputs (a subset
 * of the judged ones, each with its input index); `{ refused }` says why there is none.
 */
export function correctedPopulationRate(
  perInput: readonly Counts[],
  graded: readonly GradedAtInput[],
  level: number,
): { population: CorrectedPopulation } | { refused: string } {
  if (!(level > 0 && level < 1)) throw new ArgumentError(`correctedPopulationRate: level must be in (0, 1), got ${level}`, { key: 'level' });
  graded.forEach((g, n) => {
    if (!(Number.isInteger(g.i) && g.i >= 0 && g.i < perInput.length) || typeof g.judge !== 'boolean' || typeof g.person !== 'boolean')
      throw new ArgumentError(`correctedPopulationRate: graded[${n}] must have an input index in [0, ${perInput.length}) and boolean judge and person`, {
        key: 'graded',
      });
  });
  if (graded.length === 0) return { refused: 'no grades' };
  const judge = populationRate(perInput, level);
  if (judge === null || judge.effectiveN === null) return { refused: 'fewer than 2 inputs decided anything: no population claim' };
  for (const verdict of [true, false]) {
    const ps = new Set(graded.filter((g) => g.judge === verdict).map((g) => g.probability));
    if (ps.size > 1)
      return {
        refused: `its grades were drawn with probabilities that differ within the judge's ${verdict ? 'PASS' : 'FAIL'} verdicts: a weighted correction has no population form`,
      };
  }
  const q = judge.rate;
  const strata: [VerdictStratum, VerdictStratum] = [
    stratum(
      graded.filter((g) => g.judge),
      q,
      level,
    ),
    stratum(
      graded.filter((g) => !g.judge),
      1 - q,
      level,
    ),
  ];
  const r = stratifiedRate({ pass: q * judge.effectiveN, n: judge.effectiveN }, strata, level);
  return {
    population: {
      ...r,
      method: CORRECTED_POPULATION_METHOD,
      level,
      inputs: judge.inputs,
      grades: graded.length,
      gradedInputs: new Set(graded.map((g) => g.i)).size,
    },
  };
}
