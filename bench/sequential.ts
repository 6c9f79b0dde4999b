/**
 * `npm run -s bench:sequential -- [--json] [--runs N] [--seed S] [--design planned|generic] [--power P]`
 *
 * Sequential verdicts against fixed-n ones, by seeded simulation of Bernoulli(p) output streams fed to the
 * core's sequential verdict after every output (core/sequence.ts), as `stopping: sequential` does.
 *
 * Scenarios: p ∈ {0.80, 0.90, 0.93, 0.97, 0.99} against minSuccess 0.95, α = 0.05 (level 0.95), `--runs`
 * seeded runs each (default 2,000). The two designs are held to the same error rates:
 * - a wrong verdict (pass when p < minSuccess, fail when p ≥ minSuccess) with probability ≤ α/2 — the
 *   per-side rate of a two-sided level-(1 − α) interval, which the fixed verdict uses, and of the
 *   sequence, which the sequential verdict uses;
 * - no verdict (inconclusive) with probability ≤ α/2 as well: power = 1 − α/2 (`--power` to change).
 * fixed_n: the smallest n whose Clopper–Pearson confident verdict is right with that power (exact sums,
 * `fixedSampleSize`). The sequential design is planned for the same p (`expect`, as `assay plan --expect`
 * plans it; `--design generic` drops that knowledge) and capped at its own max_n for that power
 * (`sequentialSampleSize`); mean_calls is its mean number of outputs, error_rate its share of wrong verdicts.
 * savings_median: the median over scenarios of 1 − mean_calls / fixed_n. naive_wilson_error_rate: the
 * worst scenario's wrong-verdict rate of the same stopping rule (checked after every output, same cap) with
 * a re-checked 95% Wilson interval instead of the sequence — what optional stopping does to an ordinary
 * interval.
 *
 * Prints one JSON object with --json (exactly scenarios, savings_median, max_error_rate,
 * naive_wilson_error_rate), else a table. Nothing here is timed.
 */
import { parseArgs } from 'node:util';
import { wilson } from '../src/core/intervals.js';
import { mulberry32 } from '../src/core/prng.js';
import { fixedSampleSize, sequentialSampleSize } from '../src/core/sample-size.js';
import { sequentialVerdict } from '../src/core/sequence.js';

function fail(message: string): never {
  process.stderr.write(`bench:sequential: ${message}\n`);
  process.exit(2);
}

let values: { json?: boolean; runs?: string; seed?: string; design?: string; power?: string };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      runs: { type: 'string', default: '2000' },
      seed: { type: 'string', default: '20260901' },
      design: { type: 'string', default: 'planned' },
      power: { type: 'string' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const runs = Number(values.runs);
if (!(Number.isInteger(runs) && runs >= 1)) fail(`--runs must be a whole number ≥ 1, got "${values.runs}"`);
const seed = Number(values.seed);
if (!Number.isInteger(seed)) fail(`--seed must be an integer, got "${values.seed}"`);
if (values.design !== 'planned' && values.design !== 'generic') fail(`--design must be "planned" or "generic", got "${values.design}"`);

const ALPHA = 0.05;
const LEVEL = 1 - ALPHA;
const MIN_SUCCESS = 0.95;
const POWER = values.power === undefined ? 1 - ALPHA / 2 : Number(values.power);
if (!(POWER > 0 && POWER < 1)) fail(`--power must be in (0, 1), got "${values.power}"`);
const RATES = [0.8, 0.9, 0.93, 0.97, 0.99];

type Rule = (pass: number, fail: number) => 'pass' | 'fail' | 'undecided';

/** One seeded stream, checked after every output until decided or the cap: the outputs used and the verdict. */
function stream(rand: () => number, p: number, cap: number, rule: Rule): { calls: number; verdict: 'pass' | 'fail' | 'undecided' } {
  let pass = 0;
  let failed = 0;
  for (let t = 1; t <= cap; t++) {
    if (rand() < p) pass++;
    else failed++;
    const v = rule(pass, failed);
    if (v !== 'undecided') return { calls: t, verdict: v };
  }
  return { calls: cap, verdict: 'undecided' };
}

const naiveWilson: Rule = (pass, failed) => {
  const ci = wilson(pass, pass + failed, LEVEL)!;
  return ci.low >= MIN_SUCCESS ? 'pass' : ci.high < MIN_SUCCESS ? 'fail' : 'undecided';
};

interface Scenario {
  p: number;
  min_success: number;
  fixed_n: number;
  mean_calls: number;
  error_rate: number;
}

const scenarios: Scenario[] = [];
const details: { p: number; cap: number; planned_expected_n: number; right: number; undecided: number; naive_wilson_error_rate: number }[] = [];
RATES.forEach((p, s) => {
  const plan = { minSuccess: MIN_SUCCESS, expect: p, power: POWER, level: LEVEL };
  const fixed = fixedSampleSize(plan);
  const design = sequentialSampleSize(plan);
  if (!fixed || !design) fail(`no plan for p = ${p}`);
  const expect = values.design === 'planned' ? p : undefined;
  const rule: Rule = (pass, failed) => sequentialVerdict({ pass, fail: failed, error: 0 }, MIN_SUCCESS, LEVEL, expect);
  // The generic design gets the planned design's cap doubled: it must not be cut short by a cap it was not planned for.
  const cap = values.design === 'planned' ? design.max_n : 2 * design.max_n;
  const wrong = p >= MIN_SUCCESS ? 'fail' : 'pass';
  const rand = mulberry32(seed + 1000 * s);
  let calls = 0;
  let errors = 0;
  let right = 0;
  let undecided = 0;
  for (let r = 0; r < runs; r++) {
    const o = stream(rand, p, cap, rule);
    calls += o.calls;
    if (o.verdict === wrong) errors++;
    else if (o.verdict === 'undecided') undecided++;
    else right++;
  }
  const naiveRand = mulberry32(seed + 1000 * s + 1);
  let naiveErrors = 0;
  for (let r = 0; r < runs; r++) if (stream(naiveRand, p, cap, naiveWilson).verdict === wrong) naiveErrors++;
  scenarios.push({ p, min_success: MIN_SUCCESS, fixed_n: fixed.n, mean_calls: calls / runs, error_rate: errors / runs });
  details.push({
    p,
    cap,
    planned_expected_n: design.expected_n,
    right: right / runs,
    undecided: undecided / runs,
    naive_wilson_error_rate: naiveErrors / runs,
  });
});

const savings = scenarios.map((x) => 1 - x.mean_calls / x.fixed_n).sort((a, b) => a - b);
const out = {
  scenarios,
  savings_median: savings[Math.floor(savings.length / 2)],
  max_error_rate: Math.max(...scenarios.map((x) => x.error_rate)),
  naive_wilson_error_rate: Math.max(...details.map((d) => d.naive_wilson_error_rate)),
};

if (values.json) {
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} else {
  const rows = [['p', 'fixed_n', 'cap', 'mean_calls', 'savings', 'right', 'undecided', 'error_rate', 'wilson re-checked error']];
  scenarios.forEach((x, i) => {
    const d = details[i];
    rows.push([
      String(x.p),
      String(x.fixed_n),
      String(d.cap),
      x.mean_calls.toFixed(1),
      (1 - x.mean_calls / x.fixed_n).toFixed(3),
      d.right.toFixed(4),
      d.undecided.toFixed(4),
      x.error_rate.toFixed(4),
      d.naive_wilson_error_rate.toFixed(4),
    ]);
  });
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padStart(widths[i])).join('  ')}\n`);
  process.stdout.write(
    `\n${values.design} design, ${runs} seeded runs per scenario, α = ${ALPHA}, power ${POWER}: savings_median ${out.savings_median.toFixed(3)}, max_error_rate ${out.max_error_rate.toFixed(4)}, naive_wilson_error_rate ${out.naive_wilson_error_rate.toFixed(4)}\n`,
  );
}
