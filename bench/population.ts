/**
 * `npm run -s bench:population -- [--json] [--runs R] [--seed S] [--method cluster-cp|betting|both]`
 *
 * Seeded coverage of the input-population interval (core/population.ts) at nominal 95%, over designs of N inputs ×
 * M samples whose per-input rates are Beta-distributed, U-shaped, all-or-nothing or constant; N from 5 to 500, M
 * from 1 to 100. Beside it, the coverage of the population rate by the inputs-run interval (Clopper–Pearson over
 * the N·M outputs), which is what reports gave before. Prints one JSON object; nothing timed.
 *
 * Two stages, because the lowest of 288 estimates is biased low by selection: with 1,000 runs a design covering
 * exactly 0.95 shows 0.95 ± 0.007, and the lowest of hundreds of such shows about 0.93. Every design whose first
 * estimate is below nominal − 0.005 is run again with ten times the runs on a fresh stream (`confirmed`); the
 * figure to read is `lowest_confirmed`, each design at the better-measured of its two estimates.
 *
 * `corrected`: the same for the corrected (graded) rate's population form (core/population-corrected.ts), a judge
 * wrong on whole inputs included; `corrected_lowest` its lowest coverage.
 */
import { parseArgs } from 'node:util';
import { clopperPearson } from '../src/core/intervals.js';
import { POPULATION_METHODS, populationRate, type PopulationMethod } from '../src/core/population.js';
import { mulberry32 } from '../src/core/prng.js';
import { correctedPopulationRate } from '../src/core/population-corrected.js';
import { allOrNothing, betaPopulation, constantPopulation, simulateCounts, simulateGraded, type RatePopulation } from '../src/core/testing/population-sim.js';

let values: { json?: boolean; runs?: string; seed?: string; method?: string };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      runs: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '29' },
      method: { type: 'string', default: 'both' },
    },
  }));
} catch (err) {
  process.stderr.write(`bench:population: ${(err as Error).message}\n`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 10) || !Number.isInteger(SEED)) {
  process.stderr.write('bench:population: --runs must be a whole number ≥ 10 and --seed an integer\n');
  process.exit(2);
}
const methods: PopulationMethod[] = values.method === 'both' ? [...POPULATION_METHODS] : [values.method as PopulationMethod];
if (!methods.every((m) => POPULATION_METHODS.includes(m))) {
  process.stderr.write(`bench:population: --method must be both or one of ${POPULATION_METHODS.join(', ')}\n`);
  process.exit(2);
}
const LEVEL = 0.95;
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

const populations: { family: string; pop: RatePopulation }[] = [
  { family: 'beta', pop: betaPopulation(2, 2) },
  { family: 'beta', pop: betaPopulation(8, 2) },
  { family: 'beta', pop: betaPopulation(19, 1) },
  { family: 'beta', pop: betaPopulation(50, 1) },
  { family: 'u-shaped', pop: betaPopulation(0.3, 0.3) },
  { family: 'u-shaped', pop: betaPopulation(0.5, 0.1) },
  { family: 'u-shaped', pop: betaPopulation(0.1, 0.02) },
  { family: 'all-or-nothing', pop: allOrNothing(0.5) },
  { family: 'all-or-nothing', pop: allOrNothing(0.8) },
  { family: 'all-or-nothing', pop: allOrNothing(0.95) },
  { family: 'constant', pop: constantPopulation(0.9) },
  { family: 'constant', pop: constantPopulation(0.99) },
];
const Ns = [5, 10, 20, 30, 100, 500];
const Ms = [1, 5, 20, 100];

const rand = mulberry32(SEED);
const designs: Record<string, unknown>[] = [];
const worst: Record<string, { coverage: number; at: string }> = {};
const note = (key: string, coverage: number, at: string) => {
  if (!worst[key] || coverage < worst[key].coverage) worst[key] = { coverage: round(coverage), at };
};
for (const { family, pop } of populations)
  for (const N of Ns)
    for (const M of Ms) {
      const hits: Record<string, number> = Object.fromEntries([...methods, 'inputs-run'].map((m) => [m, 0]));
      const widths: Record<string, number> = Object.fromEntries(methods.map((m) => [m, 0]));
      for (let r = 0; r < RUNS; r++) {
        const counts = simulateCounts(rand, pop, N, M);
        for (const m of methods) {
          const p = populationRate(counts, LEVEL, m)!;
          if (p.low <= pop.mean && pop.mean <= p.high) hits[m]++;
          widths[m] += p.high - p.low;
        }
        const pass = counts.reduce((a, c) => a + c.pass, 0);
        const ci = clopperPearson(pass, N * M, LEVEL)!;
        if (ci.low <= pop.mean && pop.mean <= ci.high) hits['inputs-run']++;
      }
      const at = `${pop.name} N=${N} M=${M}`;
      const row: Record<string, unknown> = { population: pop.name, family, N, M };
      for (const m of methods) {
        row[m] = { coverage: round(hits[m] / RUNS), width: round(widths[m] / RUNS) };
        note(m, hits[m] / RUNS, at);
        note(`${m} · ${family}`, hits[m] / RUNS, at);
      }
      row['inputs-run'] = { coverage: round(hits['inputs-run'] / RUNS) };
      note('inputs-run', hits['inputs-run'] / RUNS, at);
      designs.push(row);
    }

// Stage 2: re-measure the designs that looked low, on a fresh stream, with ten times the runs.
const confirmRand = mulberry32(SEED + 1_000_003);
const lowestConfirmed: Record<string, { coverage: number; at: string; runs: number }> = {};
const confirmed: Record<string, unknown>[] = [];
for (const row of designs) {
  const pop = populations.find((p) => p.pop.name === row.population)!;
  for (const m of methods) {
    let cov = (row[m] as { coverage: number }).coverage;
    let runs = RUNS;
    if (cov < LEVEL - 0.005) {
      let hit = 0;
      runs = 10 * RUNS;
      for (let r = 0; r < runs; r++) {
        const p = populationRate(simulateCounts(confirmRand, pop.pop, row.N as number, row.M as number), LEVEL, m)!;
        if (p.low <= pop.pop.mean && pop.pop.mean <= p.high) hit++;
      }
      confirmed.push({ method: m, population: row.population, N: row.N, M: row.M, first: cov, confirmed: round(hit / runs), runs });
      cov = hit / runs;
    }
    const key = m;
    if (!lowestConfirmed[key] || cov < lowestConfirmed[key].coverage)
      lowestConfirmed[key] = { coverage: round(cov), at: `${row.population} N=${row.N} M=${row.M}`, runs };
  }
}

// The corrected (graded) rate's population form (core/population-corrected.ts): a judge right 95% of the time, one
// input in ten passed whole whatever the truth, grades drawn uniformly; coverage of the population mean of people's rate.
const gradedRand = mulberry32(SEED + 2_000_003);
const corrected = [
  { pop: betaPopulation(4, 1), N: 20, M: 10, grades: 40 },
  { pop: betaPopulation(0.5, 0.5), N: 30, M: 5, grades: 60 },
  { pop: betaPopulation(9, 1), N: 10, M: 20, grades: 40 },
  { pop: betaPopulation(19, 1), N: 50, M: 5, grades: 100 },
  { pop: allOrNothing(0.8), N: 30, M: 10, grades: 60 },
].map((d) => {
  let hit = 0;
  let width = 0;
  for (let r = 0; r < RUNS; r++) {
    const { rows, graded } = simulateGraded(gradedRand, d.pop, d.N, d.M, d.grades, 0.1);
    const out = correctedPopulationRate(rows, graded, LEVEL);
    if (!('population' in out)) continue;
    if (out.population.low <= d.pop.mean && d.pop.mean <= out.population.high) hit++;
    width += out.population.high - out.population.low;
  }
  return { population: d.pop.name, N: d.N, M: d.M, grades: d.grades, coverage: round(hit / RUNS), width: round(width / RUNS) };
});

process.stdout.write(
  JSON.stringify(
    {
      bench: 'population',
      level: LEVEL,
      runs_per_design: RUNS,
      seed: SEED,
      designs: designs.length,
      target: LEVEL - 0.01,
      lowest_confirmed: lowestConfirmed,
      lowest_first_stage: worst,
      corrected_lowest: corrected.reduce((a, d) => (d.coverage < a.coverage ? d : a)),
      corrected,
      confirmed,
      per_design: designs,
    },
    null,
    values.json ? 0 : 2,
  ) + '\n',
);
