/**
 * Sample sizes (`assay plan --min-success --expect --power`): how many outputs a verdict costs.
 *
 * - fixed: the smallest n at which the confident verdict (an interval at `level`, Clopper–Pearson by
 *   default) reaches the right verdict — pass when the true rate `expect` ≥ minSuccess, fail below — with
 *   probability ≥ `power`. Exact binomial sums; power is saw-toothed in n, this is the first n that reaches it.
 * - sequential: the design of `stopping: sequential` planned for `expect` (core/sequence.ts): max_n, the
 *   smallest cap at which it has reached the right verdict with probability ≥ `power`, and expected_n, the
 *   mean number of outputs it then uses (E[min(T, max_n)], T its stopping time). Exact, by dynamic
 *   programming over the number of passes (one check per output).
 * - toDecide: in confident mode, how many more outputs decide an inconclusive verdict with a stated
 *   probability if the outcome shares stay at their estimates.
 */
import { betaCdf, normalQuantile } from './distributions.js';
import { interval } from './intervals.js';
import { logEvidenceAbove, logEvidenceBelow, evidenceThreshold } from './sequence.js';
import type { IntervalMethod } from './rate-types.js';
import { ArgumentError } from '../errors.js';

/** Beyond this many outputs a plan is not worth computing: null (fixed, sequential) or Infinity (toDecide). */
export const MAX_PLANNED_SAMPLES = 1e7;

/** P(Binomial(n, p) ≥ x) for integers 0 ≤ x. */
export function binomialUpperTail(x: number, n: number, p: number): number {
  if (x <= 0) return 1;
  if (x > n) return 0;
  return betaCdf(p, x, n - x + 1);
}

/**
 * Whether the interval's lower bound at x of n clears m (≥ m). Clopper–Pearson by its tail identity —
 * low ≥ m ⇔ P(Binomial(n, m) ≥ x) ≤ α/2 — which is exact and needs no quantile; other methods directly.
 */
export function lowerClears(method: IntervalMethod, x: number, n: number, level: number, m: number): boolean {
  if (n === 0) return false;
  if (method === 'clopper-pearson' && Number.isInteger(x)) return x > 0 && (m <= 0 || binomialUpperTail(x, n, m) <= (1 - level) / 2);
  return interval(method, x, n, level)!.low >= m;
}

/** Whether the interval's upper bound at x of n is below m (< m). Clopper–Pearson: P(Binomial(n, m) ≤ x) < α/2. */
export function upperBelow(method: IntervalMethod, x: number, n: number, level: number, m: number): boolean {
  if (n === 0) return false;
  if (method === 'clopper-pearson' && Number.isInteger(x)) return x < n && m > 0 && 1 - binomialUpperTail(x + 1, n, m) < (1 - level) / 2;
  return interval(method, x, n, level)!.high < m;
}

function checkProbability(name: string, v: number): void {
  if (!(v > 0 && v < 1)) throw new ArgumentError(`${name} must be in (0, 1), got ${v}`, { key: name });
}

export interface PlanOptions {
  minSuccess: number;
  /** The rate the system is expected to have. */
  expect: number;
  /** Required probability of reaching the right verdict. */
  power: number;
  /** Interval / sequence level, default 0.95. */
  level?: number;
  /** Interval of the fixed design, default Clopper–Pearson. */
  method?: IntervalMethod;
}

function checkPlan(o: PlanOptions): void {
  checkProbability('minSuccess', o.minSuccess);
  checkProbability('expect', o.expect);
  checkProbability('power', o.power);
  if (o.level !== undefined) checkProbability('level', o.level);
  if (o.expect === o.minSuccess)
    throw new ArgumentError(`expect must differ from minSuccess (${o.minSuccess}): no sample size tells a rate from itself`, { key: 'expect' });
}

/** Probability that the fixed-n confident verdict is right (pass if p ≥ minSuccess, else fail). */
export function fixedPower(n: number, p: number, minSuccess: number, level = 0.95, method: IntervalMethod = 'clopper-pearson'): number {
  if (p >= minSuccess) {
    let x = Math.ceil(minSuccess * n);
    while (x > 0 && lowerClears(method, x - 1, n, level, minSuccess)) x--;
    while (x <= n && !lowerClears(method, x, n, level, minSuccess)) x++;
    return binomialUpperTail(x, n, p);
  }
  let x = Math.floor(minSuccess * n);
  while (x < n && upperBelow(method, x + 1, n, level, minSuccess)) x++;
  while (x >= 0 && !upperBelow(method, x, n, level, minSuccess)) x--;
  return x < 0 ? 0 : 1 - binomialUpperTail(x + 1, n, p);
}

/** Normal-approximation n, used only to skip sizes far too small to reach the power. */
function approximateN(o: Required<PlanOptions>): number {
  const za = normalQuantile(1 - (1 - o.level) / 2);
  const zb = normalQuantile(o.power);
  const d = Math.abs(o.expect - o.minSuccess);
  return ((za * Math.sqrt(o.minSuccess * (1 - o.minSuccess)) + zb * Math.sqrt(o.expect * (1 - o.expect))) / d) ** 2;
}

/** Fixed design: the smallest n whose confident verdict is right with probability ≥ power; null beyond the planning cap. */
export function fixedSampleSize(options: PlanOptions): { n: number; power: number } | null {
  checkPlan(options);
  const o: Required<PlanOptions> = { level: 0.95, method: 'clopper-pearson', ...options };
  // Well below the normal approximation the power is far from the target: start the scan at half of it.
  let n = Math.max(1, Math.floor(approximateN(o) / 2));
  for (; n <= MAX_PLANNED_SAMPLES; n++) {
    const pw = fixedPower(n, o.expect, o.minSuccess, o.level, o.method);
    if (pw >= o.power) return { n, power: pw };
  }
  return null;
}

export interface SequentialOperatingCharacteristics {
  /** Probability of each end by the cap. */
  pass: number;
  fail: number;
  undecided: number;
  /** E[min(T, cap)]. */
  expected_n: number;
}

/**
 * Stopping boundaries of the sequential test checked after every output: at t outputs it passes when the
 * passes S ≥ passAt[t] and fails when S ≤ failAt[t] (−1: cannot fail yet; t + 1: cannot pass yet).
 */
export function sequentialBoundaries(minSuccess: number, level: number, cap: number, expect?: number): { passAt: Int32Array; failAt: Int32Array } {
  const threshold = evidenceThreshold(level);
  const passes = (S: number, t: number) => logEvidenceAbove(S, t - S, minSuccess, expect) >= threshold;
  const fails = (S: number, t: number) => logEvidenceBelow(S, t - S, minSuccess, expect) >= threshold;
  const passAt = new Int32Array(cap + 1);
  const failAt = new Int32Array(cap + 1);
  passAt[0] = 1;
  failAt[0] = -1;
  // One more output moves each boundary by 0 or 1 (more passes never hurt a pass, more outputs at the same passes never help it).
  for (let t = 1; t <= cap; t++) {
    let s = Math.min(passAt[t - 1], t + 1);
    while (s <= t && !passes(s, t)) s++;
    while (s > 0 && passes(s - 1, t)) s--;
    passAt[t] = s;
    let f = Math.max(failAt[t - 1], -1);
    while (f + 1 <= t && f + 1 < passAt[t] && fails(f + 1, t)) f++;
    while (f >= 0 && !fails(f, t)) f--;
    failAt[t] = f;
  }
  return { passAt, failAt };
}

/**
 * Exact operating characteristics of the sequential test on Bernoulli(p) outputs, checked after each,
 * stopped at `cap`; `onStep` sees the running figures after every t (return true to stop early).
 */
export function sequentialOperatingCharacteristics(
  p: number,
  minSuccess: number,
  level: number,
  cap: number,
  expect?: number,
  onStep?: (t: number, oc: SequentialOperatingCharacteristics) => boolean,
): SequentialOperatingCharacteristics {
  const { passAt, failAt } = sequentialBoundaries(minSuccess, level, cap, expect);
  // dp[s]: probability of being undecided with s passes; only the band failAt[t] < s < passAt[t] is alive.
  let dp = new Float64Array(cap + 2);
  let next = new Float64Array(cap + 2);
  dp[0] = 1;
  let lo = 0;
  let hi = 0;
  let pass = 0;
  let fail = 0;
  let alive = 1;
  let expected = 0;
  for (let t = 1; t <= cap; t++) {
    expected += alive;
    next.fill(0, lo, hi + 2);
    for (let s = lo; s <= hi; s++) {
      const v = dp[s];
      if (v === 0) continue;
      next[s + 1] += v * p;
      next[s] += v * (1 - p);
    }
    let nlo = Infinity;
    let nhi = -1;
    alive = 0;
    for (let s = lo; s <= hi + 1; s++) {
      const v = next[s];
      if (v === 0) continue;
      if (s >= passAt[t]) {
        pass += v;
        next[s] = 0;
      } else if (s <= failAt[t]) {
        fail += v;
        next[s] = 0;
      } else {
        alive += v;
        if (s < nlo) nlo = s;
        nhi = s;
      }
    }
    dp.fill(0, lo, hi + 2);
    [dp, next] = [next, dp];
    if (nhi < 0) {
      alive = 0;
      if (onStep) onStep(t, { pass, fail, undecided: 0, expected_n: expected });
      return { pass, fail, undecided: 0, expected_n: expected };
    }
    lo = nlo;
    hi = nhi;
    if (onStep && onStep(t, { pass, fail, undecided: alive, expected_n: expected })) return { pass, fail, undecided: alive, expected_n: expected };
  }
  return { pass, fail, undecided: alive, expected_n: expected };
}

/**
 * Sequential design planned for `expect`: max_n (smallest cap reaching the right verdict with probability
 * ≥ power) and expected_n (E[min(T, max_n)] at the expected rate); null beyond the planning cap.
 */
export function sequentialSampleSize(options: PlanOptions): { expected_n: number; max_n: number; power: number } | null {
  checkPlan(options);
  const level = options.level ?? 0.95;
  const right = options.expect >= options.minSuccess ? 'pass' : 'fail';
  // Long enough for the power unless it is far beyond any fixed design: 4× the fixed n's approximation, at least 1,000.
  const cap = Math.min(MAX_PLANNED_SAMPLES, Math.max(1000, Math.ceil(4 * approximateN({ level, method: 'clopper-pearson', ...options }))));
  let found: { expected_n: number; max_n: number; power: number } | null = null;
  sequentialOperatingCharacteristics(options.expect, options.minSuccess, level, cap, options.expect, (t, oc) => {
    if (oc[right] >= options.power) {
      found = { expected_n: oc.expected_n, max_n: t, power: oc[right] };
      return true;
    }
    return false;
  });
  return found;
}

/** Linear scans for `toDecide` go this far; beyond, bisection between powers of two (the saw-tooth is small there). */
const LINEAR_SCAN_LIMIT = 1 << 17;

/**
 * More outputs that decide a confident verdict with probability ≥ `probability` if the observed shares of
 * passes, failures and errors stay as they are (errors keep counting as failures for a pass and as passes
 * for a fail): the smallest such m (up to {@link LINEAR_SCAN_LIMIT}; the probability is saw-toothed in m).
 * undefined: nothing observed; 0: already decided; Infinity: no number up to the planning cap does (e.g. the
 * errors alone keep it open).
 */
export function toDecide(
  c: { pass: number; fail: number; error: number },
  minSuccess: number,
  method: IntervalMethod,
  level: number,
  probability = 0.8,
): number | undefined {
  checkProbability('probability', probability);
  const n = c.pass + c.fail + c.error;
  if (n === 0) return undefined;
  const sharePass = c.pass / n;
  const shareFail = c.fail / n;
  // Smallest future passes x (failures y) that decide it at n + m; each moves by 0 or 1 as m grows by 1.
  const passOk = (x: number, m: number) => lowerClears(method, c.pass + x, n + m, level, minSuccess);
  const failOk = (y: number, m: number) => upperBelow(method, n + m - c.fail - y, n + m, level, minSuccess);
  const settle = (ok: (v: number, m: number) => boolean, from: number, m: number): number => {
    let v = Math.min(Math.max(from, 0), m + 1);
    while (v <= m && !ok(v, m)) v++;
    while (v > 0 && ok(v - 1, m)) v--;
    return v;
  };
  const probabilityAt = (m: number, x: number, y: number): number =>
    (x <= m && (sharePass > 0 || x === 0) ? binomialUpperTail(x, m, sharePass) : 0) +
    (y <= m && (shareFail > 0 || y === 0) ? binomialUpperTail(y, m, shareFail) : 0);
  const at = (m: number) => probabilityAt(m, smallest((x) => passOk(x, m), m) ?? m + 1, smallest((y) => failOk(y, m), m) ?? m + 1);
  if (at(0) >= 1) return 0;
  // As m grows the bounds close in on the shares: a pass needs the pass share above minSuccess, a fail the
  // share of passes and errors below it; otherwise no number of outputs decides it.
  if (!(sharePass > minSuccess) && !(1 - shareFail < minSuccess)) return Infinity;
  // Reachable at all? Powers of two up to the cap.
  let bad = 0;
  let good = 1;
  while (at(good) < probability) {
    bad = good;
    good *= 2;
    if (good > MAX_PLANNED_SAMPLES) return Infinity;
  }
  if (good <= LINEAR_SCAN_LIMIT) {
    let x = 0;
    let y = 0;
    for (let m = 1; m <= good; m++) {
      x = settle(passOk, x, m);
      y = settle(failOk, y, m);
      if (probabilityAt(m, x, y) >= probability) return m;
    }
    return good;
  }
  while (good - bad > 1) {
    const mid = Math.floor((bad + good) / 2);
    if (at(mid) >= probability) good = mid;
    else bad = mid;
  }
  return good;
}

/** Smallest v in 0 … max with ok(v), for ok monotone (false then true); null when none. */
function smallest(ok: (v: number) => boolean, max: number): number | null {
  if (!ok(max)) return null;
  let lo = -1;
  let hi = max;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
