/**
 * `npm run -s bench:per-input -- [--json] [--runs N] [--seed S]`
 *
 * The figures of docs/verdicts.md § Per-input floors, printed as one JSON object (`--json` is accepted, as by
 * the other benches, and changes nothing) — seeded simulation, nothing timed. N = 20 inputs × M = 50 repeats,
 * floor 0.8, confidence 95% (each direction at α/2 = 2.5%, Holm over the inputs):
 * - `at_floor`: every input exactly at the floor (p = 0.8): the share of runs naming at least one input failing,
 *   with Holm and, for comparison, with each input tested alone at the same level (no adjustment);
 * - `one_low`: one input at 0.6 (or 0.5), the rest at the floor: how often that input is named (power), and how
 *   often one at the floor is;
 * - `all_high`: every input at 0.97 or 0.99: how often every input is shown at or above the floor (a confident pass).
 */
import { parseArgs } from 'node:util';
import { perInputFloors } from '../src/core/per-input.js';
import { mulberry32 } from '../src/core/prng.js';
import type { Counts } from '../src/core/summary-types.js';

let values: { json?: boolean; runs?: string; seed?: string };
try {
  ({ values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string', default: '10000' }, seed: { type: 'string', default: '19' } } }));
} catch (err) {
  process.stderr.write(`bench:per-input: ${(err as Error).message}\n`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 10) || !Number.isInteger(SEED)) {
  process.stderr.write('bench:per-input: --runs must be a whole number ≥ 10 and --seed an integer\n');
  process.exit(2);
}
const N = 20;
const M = 50;
const FLOOR = 0.8;

function simulate(rates: number[], seed: number) {
  const rand = mulberry32(seed);
  let falseFail = 0;
  let falseFailAlone = 0;
  let caught = 0;
  let allPass = 0;
  for (let r = 0; r < RUNS; r++) {
    const counts: Counts[] = rates.map((p) => {
      let x = 0;
      for (let j = 0; j < M; j++) if (rand() < p) x++;
      return { pass: x, fail: M - x, error: 0, pending: 0 };
    });
    const res = perInputFloors(counts, { minSuccess: FLOOR }, { mode: 'confident', level: 0.95 });
    if (res.failing.some((i) => rates[i] >= FLOOR)) falseFail++;
    if (res.inputs.some((x) => rates[x.input] >= FLOOR && x.pValue! <= res.alpha)) falseFailAlone++;
    if (res.failing.includes(0)) caught++;
    if (res.verdict === 'pass') allPass++;
  }
  const share = (k: number) => Number((k / RUNS).toFixed(4));
  return { false_fail_holm: share(falseFail), false_fail_unadjusted: share(falseFailAlone), input_0_named: share(caught), all_pass: share(allPass) };
}

const atFloor = simulate(Array(N).fill(FLOOR), SEED);
const low = (p: number, seed: number) => simulate([p, ...Array(N - 1).fill(FLOOR)], seed);
const l6 = low(0.6, SEED + 1);
const l5 = low(0.5, SEED + 2);
const h97 = simulate(Array(N).fill(0.97), SEED + 3);
const h99 = simulate(Array(N).fill(0.99), SEED + 4);

console.log(
  JSON.stringify(
    {
      design: { inputs: N, repeats: M, floor: FLOOR, confidence: 0.95, alpha_each_direction: 0.025, runs: RUNS, seed: SEED },
      at_floor: { false_fail_holm: atFloor.false_fail_holm, false_fail_unadjusted: atFloor.false_fail_unadjusted },
      one_low: {
        p_0_6: { power: l6.input_0_named, false_fail_holm: l6.false_fail_holm },
        p_0_5: { power: l5.input_0_named, false_fail_holm: l5.false_fail_holm },
      },
      all_high: { p_0_97: { all_pass: h97.all_pass }, p_0_99: { all_pass: h99.all_pass } },
    },
    null,
    2,
  ),
);
