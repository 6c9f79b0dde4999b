/**
 * `npm run -s bench:monitor -- [--json] [--runs N] [--samples N] [--window N] [--seed S]`
 *
 * The production monitor's alarms (core/monitor.ts) by seeded simulation of a rule's outcomes, each stream
 * checked after every sample, as `assay monitor` does:
 *
 * - false_alarm: `--runs` streams (default 100) of `--samples` checks (default 10⁶) with no change, at the
 *   worst case for each alarm: the rate exactly at minSuccess (0.90), and a baseline of 1,000 CI outputs
 *   drawn at the stream's own rate. The share of streams with any alarm, ever, must be ≤ α = 0.05.
 *   naive_false_alarm: the share of the same streams on which a threshold alert — the window's point
 *   estimate under minSuccess, or 5 points under the baseline's — fires at least once (what peers do).
 * - detection: streams at 0.95 with a baseline of 1,000 CI outputs at 0.95, dropping 5 points (to 0.90) after
 *   100,000 checks; the delay is the number of checks from the drop to the first alarm (median, mean, 90th
 *   percentile), with undetected the streams with no alarm within 300,000 checks of it.
 *
 * Windows are tumbling windows of `--window` checks (default 10,000). Prints one JSON object with --json,
 * else a summary. Nothing here is timed.
 */
import { parseArgs } from 'node:util';
import { RuleWatch } from '../src/core/monitor.js';
import { mulberry32 } from '../src/core/prng.js';

function fail(message: string): never {
  process.stderr.write(`bench:monitor: ${message}\n`);
  process.exit(2);
}

let values: { json?: boolean; runs?: string; samples?: string; window?: string; seed?: string };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      runs: { type: 'string', default: '100' },
      samples: { type: 'string', default: '1000000' },
      window: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '20261128' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const whole = (name: string, v: string | undefined, min: number) => {
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= min)) fail(`--${name} must be a whole number ≥ ${min}, got "${v}"`);
  return n;
};
const runs = whole('runs', values.runs, 1);
const samples = whole('samples', values.samples, 1);
const window = whole('window', values.window, 1);
const seed = whole('seed', values.seed, 0);

const ALPHA = 0.05;
const MIN_SUCCESS = 0.9;
const BASELINE_N = 1000;
const CHANGE_AT = 100_000;
const HORIZON = 300_000;

function binomial(rand: () => number, n: number, p: number): number {
  let x = 0;
  for (let k = 0; k < n; k++) if (rand() < p) x++;
  return x;
}

/** No change, at the worst case: the rate exactly at minSuccess, the baseline drawn at the same rate. */
function noChange(r: number): { alarmed: boolean; kinds: Set<string>; naive: boolean } {
  const rand = mulberry32(seed + r);
  const p = MIN_SUCCESS;
  const pass = binomial(rand, BASELINE_N, p);
  const watch = new RuleWatch({ alpha: ALPHA, minSuccess: MIN_SUCCESS, baseline: { pass, fail: BASELINE_N - pass }, window: { checks: window } });
  const kinds = new Set<string>();
  const baselineRate = pass / BASELINE_N;
  let naive = false;
  let wp = 0;
  let wn = 0;
  for (let t = 0; t < samples; t++) {
    const ok = rand() < p;
    for (const a of watch.observe(ok ? 'pass' : 'fail', t)) kinds.add(a.kind);
    wn++;
    if (ok) wp++;
    if (wn === window) {
      const rate = wp / wn;
      if (rate < MIN_SUCCESS || rate < baselineRate - 0.05) naive = true;
      wp = wn = 0;
    }
  }
  return { alarmed: kinds.size > 0, kinds, naive };
}

/** A 5-point drop (0.95 → 0.90) after CHANGE_AT checks: checks from the drop to the first alarm, or null. */
function drop(r: number): { delay: number | null; kind?: string; falseBefore: boolean } {
  const rand = mulberry32(seed + 1_000_000 + r);
  const pass = binomial(rand, BASELINE_N, 0.95);
  const watch = new RuleWatch({ alpha: ALPHA, minSuccess: MIN_SUCCESS, baseline: { pass, fail: BASELINE_N - pass }, window: { checks: window } });
  let falseBefore = false;
  for (let t = 0; t < CHANGE_AT + HORIZON; t++) {
    const p = t < CHANGE_AT ? 0.95 : 0.9;
    const alarms = watch.observe(rand() < p ? 'pass' : 'fail', t);
    if (!alarms.length) continue;
    if (t < CHANGE_AT) {
      falseBefore = true;
      continue;
    }
    return { delay: t - CHANGE_AT + 1, kind: alarms[0].kind, falseBefore };
  }
  return { delay: null, falseBefore };
}

const quantile = (xs: number[], q: number) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

let alarmed = 0;
let naive = 0;
const byKind: Record<string, number> = { 'below-min-success': 0, dropped: 0 };
for (let r = 0; r < runs; r++) {
  const o = noChange(r);
  if (o.alarmed) alarmed++;
  if (o.naive) naive++;
  for (const k of o.kinds) byKind[k]++;
}
const delays: number[] = [];
let undetected = 0;
let falseBefore = 0;
const firstKinds: Record<string, number> = {};
for (let r = 0; r < runs; r++) {
  const o = drop(r);
  if (o.falseBefore) falseBefore++;
  if (o.delay === null) undetected++;
  else {
    delays.push(o.delay);
    firstKinds[o.kind!] = (firstKinds[o.kind!] ?? 0) + 1;
  }
}
const round = (x: number | null) => (x === null ? null : Math.round(x * 1e4) / 1e4);
const result = {
  alpha: ALPHA,
  window,
  false_alarm: {
    runs,
    samples_per_run: samples,
    rate: round(alarmed / runs),
    by_kind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, round(v / runs)])),
    // The Monte Carlo standard error of the rate.
    se: round(Math.sqrt(((alarmed / runs) * (1 - alarmed / runs)) / runs)),
  },
  naive_false_alarm: round(naive / runs),
  detection: {
    drop: '0.95 → 0.90',
    change_at: CHANGE_AT,
    runs,
    delay_median: quantile(delays, 0.5),
    delay_mean: delays.length ? Math.round(delays.reduce((a, b) => a + b, 0) / delays.length) : null,
    delay_p90: quantile(delays, 0.9),
    undetected,
    first_kind: firstKinds,
    false_before_drop: falseBefore,
  },
};
if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
else {
  process.stdout.write(
    `false alarms under no change: ${alarmed}/${runs} streams of ${samples.toLocaleString('en')} checks (rate ${result.false_alarm.rate}, α = ${ALPHA}); a threshold alert on the same streams: ${result.naive_false_alarm}\n` +
      `detection of a 5-point drop (0.95 → 0.90): median ${result.detection.delay_median} checks, mean ${result.detection.delay_mean}, 90th percentile ${result.detection.delay_p90}; undetected within ${HORIZON.toLocaleString('en')}: ${undetected}/${runs}\n`,
  );
}
if (alarmed / runs > ALPHA) process.exitCode = 1;
