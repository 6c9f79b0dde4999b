/**
 * Seeded simulation of clustered binary designs (N inputs × M samples) for the population interval's coverage:
 * per-input rates drawn from a population, each input's M samples Bernoulli at its rate. Shared by
 * src/core/population.test.ts and `npm run -s bench:population`.
 */
import type { Counts } from '../rate-types.js';
import { populationRate, type PopulationMethod } from '../population.js';
import { binomial } from './prng.js';

/** A population of per-input rates: its name, its mean, and a draw. */
export interface RatePopulation {
  name: string;
  mean: number;
  draw: (rand: () => number) => number;
}

/** One Gamma(shape, 1) draw (Marsaglia & Tsang 2000; shape < 1 by the boost u^(1/shape)). */
function gamma(rand: () => number, shape: number): number {
  if (shape < 1) return gamma(rand, shape + 1) * Math.pow(rand() || 1e-300, 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      // Box–Muller normal.
      x = Math.sqrt(-2 * Math.log(rand() || 1e-300)) * Math.cos(2 * Math.PI * rand());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u || 1e-300) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Beta(a, b) per-input rates (U-shaped when a, b < 1). */
export function betaPopulation(a: number, b: number, name = `beta(${a}, ${b})`): RatePopulation {
  return {
    name,
    mean: a / (a + b),
    draw: (rand) => {
      const x = gamma(rand, a);
      const y = gamma(rand, b);
      return x + y > 0 ? x / (x + y) : rand() < a / (a + b) ? 1 : 0;
    },
  };
}

/** All-or-nothing inputs: each always passes with probability `share`, else always fails. */
export function allOrNothing(share: number): RatePopulation {
  return { name: `all-or-nothing(${share})`, mean: share, draw: (rand) => (rand() < share ? 1 : 0) };
}

/** Every input at the same rate: the inputs-run and population claims coincide. */
export function constantPopulation(p: number): RatePopulation {
  return { name: `constant(${p})`, mean: p, draw: () => p };
}

/** One simulated run's per-input counts. */
export function simulateCounts(rand: () => number, pop: RatePopulation, N: number, M: number): Counts[] {
  const rows: Counts[] = [];
  for (let i = 0; i < N; i++) {
    const p = pop.draw(rand);
    const pass = p >= 1 ? M : p <= 0 ? 0 : binomial(rand, M, p);
    rows.push({ pass, fail: M - pass, error: 0, pending: 0 });
  }
  return rows;
}

/** Share of `runs` seeded runs whose population interval covers the population's mean, and its mean width. */
export function populationCoverage(
  rand: () => number,
  pop: RatePopulation,
  N: number,
  M: number,
  runs: number,
  level: number,
  method: PopulationMethod,
): { coverage: number; width: number } {
  let hit = 0;
  let width = 0;
  for (let r = 0; r < runs; r++) {
    const p = populationRate(simulateCounts(rand, pop, N, M), level, method)!;
    if (p.low <= pop.mean && pop.mean <= p.high) hit++;
    width += p.high - p.low;
  }
  return { coverage: hit / runs, width: width / runs };
}

/**
 * One simulated graded run: N inputs × M samples, a person's truth Bernoulli at the input's rate, a judge right 95%
 * of the time except on a share `badInputs` of inputs, which it passes whole whatever the truth; `grades` outputs
 * drawn uniformly and graded. For the corrected population rate (core/population-corrected.ts).
 */
export function simulateGraded(rand: () => number, pop: RatePopulation, N: number, M: number, grades: number, badInputs: number) {
  const rows: Counts[] = [];
  const cells: { i: number; judge: boolean; person: boolean }[] = [];
  for (let i = 0; i < N; i++) {
    const p = pop.draw(rand);
    const bad = rand() < badInputs;
    let pass = 0;
    for (let j = 0; j < M; j++) {
      const person = rand() < p;
      const judge = bad ? true : rand() < 0.95 ? person : !person;
      if (judge) pass++;
      cells.push({ i, judge, person });
    }
    rows.push({ pass, fail: M - pass, error: 0, pending: 0 });
  }
  for (let n = cells.length - 1; n > 0; n--) {
    const m = Math.floor(rand() * (n + 1));
    [cells[n], cells[m]] = [cells[m], cells[n]];
  }
  return { rows, graded: cells.slice(0, grades) };
}
