/**
 * `npm run -s bench:pass-k -- [--json] [--runs R] [--seed S]`
 *
 * Coverage of assay's pass^k and pass@k intervals by seeded simulation (docs/verdicts.md#passk-and-passk), printed
 * as one JSON object (`--json` is accepted, as by the other benches, and changes nothing). Nothing is timed.
 *
 * Over inputs (the population estimand E[p^k], E[1 − (1 − p)^k]): each run draws N inputs' rates p_i from a
 * population, n tries of each (Binomial(n, p_i)), and checks whether the betting interval of the mean of the
 * inputs' unbiased estimates covers the population's value, computed exactly (the population is a finite mixture of
 * rates, so the target is a sum). Designs: k ∈ {1, 3, 5} × n ∈ {5, 10, 20} (k ≤ n) × N ∈ {10, 50, 200} × six
 * populations: every input always passes (p = 1), a point mass at 0.9, high (a mixture around 0.9–1), uniform on a
 * grid over [0, 1], U-shaped (most inputs near 0 or near 1), and half at 0.5, half at 1.
 *
 * Per input (the exact Clopper–Pearson interval raised to k): its coverage of p^k and of 1 − (1 − p)^k over a grid
 * of p, each p exactly (summing the binomial probabilities of the counts whose interval covers it), for k ∈ {1, 3,
 * 5} and n ∈ {5, 10, 20, 50}.
 *
 * `lowest` is the lowest coverage over every design, to be ≥ nominal − 0.01 (`ok`).
 */
import { parseArgs } from 'node:util';
import { bettingInterval } from '../src/core/betting.js';
import { logChoose } from '../src/core/distributions.js';
import { passAtK, passHatK, passKInput } from '../src/core/pass-k.js';
import { mulberry32 } from '../src/core/prng.js';

let values: { json?: boolean; runs?: string; seed?: string };
try {
  ({ values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string', default: '1000' }, seed: { type: 'string', default: '25' } } }));
} catch (err) {
  process.stderr.write(`bench:pass-k: ${(err as Error).message}\n`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 10) || !Number.isInteger(SEED)) {
  process.stderr.write('bench:pass-k: --runs must be a whole number ≥ 10 and --seed an integer\n');
  process.exit(2);
}
const LEVEL = 0.95;

/** A population of inputs: rates with their weights (a finite mixture, so E[p^k] is exact). */
interface Population {
  name: string;
  rates: number[];
  weights: number[];
}
const grid = (n: number) => Array.from({ length: n }, (_, x) => (x + 0.5) / n);
const beta = (a: number, b: number, pts: number[]) => pts.map((p) => p ** (a - 1) * (1 - p) ** (b - 1));
const POPULATIONS: Population[] = [
  { name: 'all-pass', rates: [1], weights: [1] },
  { name: 'point-0.9', rates: [0.9], weights: [1] },
  { name: 'high', rates: [0.85, 0.9, 0.95, 0.99, 1], weights: [1, 2, 3, 3, 3] },
  { name: 'uniform', rates: grid(20), weights: new Array(20).fill(1) },
  { name: 'u-shaped', rates: grid(40), weights: beta(0.3, 0.3, grid(40)) },
  { name: 'half-0.5-half-1', rates: [0.5, 1], weights: [1, 1] },
];

function sampler(pop: Population, rand: () => number): () => number {
  const total = pop.weights.reduce((a, w) => a + w, 0);
  let s = 0;
  const cum = pop.weights.map((w) => (s += w / total));
  return () => {
    const u = rand();
    const at = cum.findIndex((c) => u < c);
    return pop.rates[at < 0 ? pop.rates.length - 1 : at];
  };
}

const expectation = (pop: Population, f: (p: number) => number) => {
  const total = pop.weights.reduce((a, w) => a + w, 0);
  return pop.rates.reduce((a, p, x) => a + (pop.weights[x] / total) * f(p), 0);
};

const r4 = (x: number) => Number(x.toFixed(4));

function overInputs() {
  const designs: Record<string, unknown>[] = [];
  let seed = SEED;
  for (const pop of POPULATIONS)
    for (const k of [1, 3, 5])
      for (const n of [5, 10, 20]) {
        if (k > n) continue;
        for (const N of [10, 50, 200]) {
          const rand = mulberry32(seed++);
          const draw = sampler(pop, rand);
          const truthK = expectation(pop, (p) => p ** k);
          const truthAt = expectation(pop, (p) => 1 - (1 - p) ** k);
          let coveredK = 0;
          let coveredAt = 0;
          let width = 0;
          for (let r = 0; r < RUNS; r++) {
            const xs: number[] = [];
            const ys: number[] = [];
            for (let i = 0; i < N; i++) {
              const p = draw();
              let c = 0;
              for (let j = 0; j < n; j++) if (rand() < p) c++;
              xs.push(passHatK(c, n, k));
              ys.push(passAtK(c, n, k));
            }
            const b = bettingInterval(xs, LEVEL)!;
            const a = bettingInterval(ys, LEVEL)!;
            if (b.low <= truthK && truthK <= b.high) coveredK++;
            if (a.low <= truthAt && truthAt <= a.high) coveredAt++;
            width += b.high - b.low;
          }
          designs.push({
            population: pop.name,
            k,
            n,
            N,
            pass_k: r4(truthK),
            coverage_pass_k: r4(coveredK / RUNS),
            coverage_pass_at_k: r4(coveredAt / RUNS),
            mean_width_pass_k: r4(width / RUNS),
          });
        }
      }
  return designs;
}

/** Exact coverage of an input's interval at rate p: the binomial probability of the counts whose interval covers it. */
function perInput() {
  const designs: Record<string, unknown>[] = [];
  const ps = [...Array.from({ length: 199 }, (_, x) => (x + 1) / 200), 0, 1];
  for (const k of [1, 3, 5])
    for (const n of [5, 10, 20, 50]) {
      if (k > n) continue;
      const rows = Array.from({ length: n + 1 }, (_, c) => passKInput(0, { pass: c, fail: n - c, error: 0, pending: 0 }, k, LEVEL));
      let lowestK = 1;
      let lowestAt = 1;
      let worstP = 0;
      for (const p of ps) {
        let covK = 0;
        let covAt = 0;
        for (let c = 0; c <= n; c++) {
          const prob = p === 0 ? (c === 0 ? 1 : 0) : p === 1 ? (c === n ? 1 : 0) : Math.exp(logChoose(n, c) + c * Math.log(p) + (n - c) * Math.log1p(-p));
          const r = rows[c];
          if (r.ci!.low <= p ** k + 1e-12 && p ** k <= r.ci!.high + 1e-12) covK += prob;
          const at = 1 - (1 - p) ** k;
          if (r.atCi!.low <= at + 1e-12 && at <= r.atCi!.high + 1e-12) covAt += prob;
        }
        if (covK < lowestK) {
          lowestK = covK;
          worstP = p;
        }
        lowestAt = Math.min(lowestAt, covAt);
      }
      designs.push({ k, n, lowest_coverage_pass_k: r4(lowestK), at_p: worstP, lowest_coverage_pass_at_k: r4(lowestAt) });
    }
  return designs;
}

const t0 = performance.now();
const inputs = overInputs();
const single = perInput();
const lowest = Math.min(
  ...inputs.flatMap((d) => [d.coverage_pass_k as number, d.coverage_pass_at_k as number]),
  ...single.flatMap((d) => [d.lowest_coverage_pass_k as number, d.lowest_coverage_pass_at_k as number]),
);
const worst = inputs.reduce((a, d) => ((d.coverage_pass_k as number) < (a.coverage_pass_k as number) ? d : a));
process.stdout.write(
  JSON.stringify(
    {
      level: LEVEL,
      runs_per_design: RUNS,
      seed: SEED,
      over_inputs: { designs: inputs.length, lowest_coverage_pass_k: worst.coverage_pass_k, at: worst, per_design: inputs },
      per_input: { designs: single.length, per_design: single },
      lowest,
      ok: lowest >= LEVEL - 0.01,
      seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    },
    null,
    2,
  ) + '\n',
);
