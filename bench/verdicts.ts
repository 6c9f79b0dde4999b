/**
 * `npm run -s bench:verdicts -- [--json] [--runs N] [--seed S]`
 *
 * The figures of docs/verdicts.md, printed as one JSON object (always; `--json` is accepted, as by the other
 * benches, and changes nothing) — nothing timed:
 * - `coverage`: exact coverage (binomial sums, no simulation) of Clopper–Pearson, Wilson and Wald at nominal
 *   95% at the issue's cells, and the minimum over p on a 0.001 grid for several n;
 * - `wrong_verdicts`: exact probability that the confident verdict is wrong, worst case over a grid of p
 *   and the issue's n = 50, minSuccess 0.99 cell;
 * - `pooled`: seeded coverage of the pooled views (IRP, ORP, all outputs) with correlated validators, with
 *   the output as the unit and, for comparison, with cells counted as trials;
 * - `independence`: seeded size and power of the exact conditional tests on 500-sample tensors, three
 *   validators at 0.95/0.90/0.85, α = 0.01, beside the binomial test they replace;
 * - `to_decide`: seeded share of futures that decide an inconclusive verdict within the stated outputs.
 */
import { parseArgs } from 'node:util';
import { exactCoverage, wrongVerdictProbability } from '../src/core/coverage.js';
import { binomialTest, independenceCheck } from '../src/core/independence.js';
import { interval } from '../src/core/intervals.js';
import { Outcome } from '../src/core/outcome.js';
import { mulberry32 } from '../src/core/prng.js';
import { summarize } from '../src/core/summarize.js';
import type { IntervalMethod } from '../src/core/summary-types.js';
import { ReliabilityTensor } from '../src/core/tensor.js';
import { errorBounds, validatorVerdict } from '../src/core/verdict.js';

let values: { json?: boolean; runs?: string; seed?: string };
try {
  ({ values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string', default: '2000' }, seed: { type: 'string', default: '9' } } }));
} catch (err) {
  process.stderr.write(`bench:verdicts: ${(err as Error).message}\n`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 10) || !Number.isInteger(SEED)) {
  process.stderr.write('bench:verdicts: --runs must be a whole number ≥ 10 and --seed an integer\n');
  process.exit(2);
}
const METHODS: IntervalMethod[] = ['clopper-pearson', 'wilson', 'wald'];
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

// 1. Exact coverage.
const cells = [
  [0.95, 20],
  [0.99, 50],
  [0.9, 50],
  [0.98, 30],
] as const;
const coverage = {
  cells: cells.map(([p, n]) => ({ p, n, ...Object.fromEntries(METHODS.map((m) => [m, round(exactCoverage(m, p, n))])) })),
  minimum_over_p: [10, 20, 50, 100, 200].map((n) => {
    const row: Record<string, number | { coverage: number; at_p: number }> = { n };
    for (const m of METHODS) {
      let worst = { coverage: 1, at_p: 0 };
      for (let k = 1; k < 1000; k++) {
        const c = exactCoverage(m, k / 1000, n);
        if (c < worst.coverage) worst = { coverage: round(c), at_p: k / 1000 };
      }
      row[m] = worst;
    }
    return row;
  }),
};

// 2. Exact wrong-verdict probabilities of the confident verdict (nominal: 2.5% per side).
const wrong = {
  issue_cell: {
    n: 50,
    p: 0.99,
    min_success: 0.99,
    ...Object.fromEntries(METHODS.slice(0, 2).map((m) => [m, round(wrongVerdictProbability(m, 0.99, 50, 0.99))])),
  },
  worst_over_p: [20, 50, 100].flatMap((n) =>
    [0.9, 0.95, 0.99].map((minSuccess) => {
      const row: Record<string, number> = { n, min_success: minSuccess };
      for (const m of METHODS.slice(0, 2)) {
        let w = 0;
        for (let k = 1; k < 1000; k++) w = Math.max(w, wrongVerdictProbability(m, k / 1000, n, minSuccess));
        row[m] = round(w);
      }
      return row;
    }),
  ),
};

// 3. Pooled views with correlated validators (ρ: share of outputs where all validators share one draw).
function pooled(N: number, M: number, rates: number[], rho: number, spread: number, runs: number, seed: number) {
  const rand = mulberry32(seed);
  const K = rates.length;
  const meta = rates.map((_, k) => ({ name: `v${k}`, message: '', minSuccess: 0.5, weight: 1, kind: 'validator' as const }));
  const hit = { irp: 0, orp: 0, all: 0, irp_cells_as_trials: 0, orp_cells_as_trials: 0, all_cells_as_trials: 0 };
  const inside = (ci: { low: number; high: number } | null, v: number) => (ci !== null && ci.low <= v && v <= ci.high ? 1 : 0);
  const naive = (c: { pass: number; fail: number }) => interval('clopper-pearson', c.pass, c.pass + c.fail);
  for (let r = 0; r < runs; r++) {
    const P = Array.from({ length: N }, () => {
      const shift = (rand() - 0.5) * spread;
      return rates.map((p) => Math.min(0.999, Math.max(0.001, p + shift)));
    });
    const t = new ReliabilityTensor(N, M, K);
    for (let i = 0; i < N; i++)
      for (let j = 0; j < M; j++) {
        const shared = rand() < rho;
        const u = rand();
        for (let k = 0; k < K; k++) t.set(i, j, k, (shared ? u : rand()) < P[i][k] ? Outcome.PASS : Outcome.FAIL);
      }
    const s = summarize(t, meta);
    const truthInput = P.map((row) => row.reduce((a, b) => a + b, 0) / K);
    const truth = truthInput.reduce((a, b) => a + b, 0) / N;
    for (const x of s.inputs) {
      hit.irp += inside(x.ci, truthInput[x.i]);
      hit.irp_cells_as_trials += inside(naive(x.counts), truthInput[x.i]);
    }
    for (const x of s.iterations) {
      hit.orp += inside(x.ci, truth);
      hit.orp_cells_as_trials += inside(naive(x.counts), truth);
    }
    hit.all += inside(s.allOutputs.ci, truth);
    hit.all_cells_as_trials += inside(naive(s.allOutputs.counts), truth);
  }
  return {
    N,
    M,
    rates,
    rho,
    input_spread: spread,
    irp: round(hit.irp / (runs * N)),
    orp: round(hit.orp / (runs * M)),
    all_outputs: round(hit.all / runs),
    irp_cells_as_trials: round(hit.irp_cells_as_trials / (runs * N)),
    orp_cells_as_trials: round(hit.orp_cells_as_trials / (runs * M)),
    all_outputs_cells_as_trials: round(hit.all_cells_as_trials / runs),
  };
}
const pooledRuns = Math.max(10, Math.floor(RUNS / 2));
const pooledFigures = [
  pooled(10, 20, [0.9, 0.9, 0.9, 0.9], 0.5, 0, pooledRuns, SEED + 1),
  pooled(10, 20, [0.95, 0.9, 0.85, 0.8], 0.5, 0.1, pooledRuns, SEED + 2),
  pooled(10, 20, [0.95, 0.95, 0.95, 0.95], 0.8, 0, pooledRuns, SEED + 3),
  pooled(20, 10, [0.99, 0.99, 0.99, 0.99], 0.9, 0, pooledRuns, SEED + 4),
  pooled(5, 50, [0.98, 0.97, 0.99, 0.96], 0.5, 0, pooledRuns, SEED + 5),
];

// 4. Independence tests: size and power.
function independence(N: number, M: number, rho: number, runs: number, seed: number, spread = 0) {
  const rand = mulberry32(seed);
  const rates = [0.95, 0.9, 0.85];
  const r = { joint: 0, within: 0, binomial: 0, joint_p_below_half: 0 };
  for (let run = 0; run < runs; run++) {
    const t = new ReliabilityTensor(N, M, 3);
    for (let i = 0; i < N; i++) {
      const shift = (rand() - 0.5) * spread;
      for (let j = 0; j < M; j++) {
        const shared = rand() < rho;
        const u = rand();
        for (let k = 0; k < 3; k++) t.set(i, j, k, (shared ? u : rand()) < Math.min(0.999, rates[k] + shift) ? Outcome.PASS : Outcome.FAIL);
      }
    }
    const c = independenceCheck(t, 'exclude', 0.01, (k) => `v${k}`);
    if (!c.independent) r.joint++;
    if (!c.within_input!.independent) r.within++;
    if (c.p_value < 0.5) r.joint_p_below_half++;
    if (binomialTest(c.observed_all_pass, c.samples, c.product_rate!) < 0.01) r.binomial++;
  }
  return {
    N,
    M,
    rho,
    input_spread: spread,
    runs,
    joint: round(r.joint / runs),
    within_input: round(r.within / runs),
    old_binomial: round(r.binomial / runs),
    joint_p_below_half: round(r.joint_p_below_half / runs),
  };
}
const independenceFigures = {
  alpha: 0.01,
  size: [independence(1, 500, 0, RUNS, SEED + 11), independence(10, 50, 0, RUNS, SEED + 12), independence(10, 50, 0, RUNS, SEED + 13, 0.2)],
  power_rho_0_2: [independence(1, 500, 0.2, RUNS, SEED + 14), independence(10, 50, 0.2, RUNS, SEED + 15)],
};

// 5. toDecide: how often the stated number of further outputs decides it, if the rate holds.
function toDecideCheck(pass: number, fail: number, minSuccess: number, runs: number, seed: number) {
  const o = { mode: 'confident' as const, interval: 'clopper-pearson' as const, level: 0.95 };
  const v = validatorVerdict({ pass, fail, error: 0 }, minSuccess, o);
  const m = v.toDecide!.outputs;
  const rand = mulberry32(seed);
  const p = pass / (pass + fail);
  let decided = 0;
  for (let r = 0; r < runs; r++) {
    let x = pass;
    for (let t = 0; t < m; t++) if (rand() < p) x++;
    const b = errorBounds({ pass: x, fail: pass + fail + m - x, error: 0 }, 'clopper-pearson', 0.95)!;
    if (b.low >= minSuccess || b.high < minSuccess) decided++;
  }
  return { pass, fail, min_success: minSuccess, outputs: m, stated_probability: v.toDecide!.probability, decided_share: round(decided / runs) };
}
const toDecide = [toDecideCheck(48, 2, 0.9, RUNS, SEED + 21), toDecideCheck(45, 5, 0.95, RUNS, SEED + 22), toDecideCheck(20, 0, 0.95, RUNS, SEED + 23)];

process.stdout.write(
  `${JSON.stringify({ runs: RUNS, seed: SEED, coverage, wrong_verdicts: wrong, pooled: pooledFigures, independence: independenceFigures, to_decide: toDecide }, null, 2)}\n`,
);
