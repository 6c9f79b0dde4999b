/**
 * Comparing two success rates (run A vs run B, one validator or one input): is the change real?
 *
 * - two-proportion z-test, pooled standard error, two-sided p;
 * - Fisher's exact test on the 2×2 table, two-sided as R's fisher.test (sum of the probabilities of
 *   every table no more likely than the observed one, with R's 1e-7 relative tolerance);
 * - Newcombe's hybrid score interval for the difference (Newcombe 1998, method 10), built from the
 *   two Wilson intervals: unlike Wald's it stays sensible at rates of 0 or 1.
 */
import { logChoose, normalSf } from './distributions.js';
import { wilson } from './intervals.js';
import { ArgumentError } from '../errors.js';

/** Successes out of decided trials (errors and pending cells are not trials). */
export interface Proportion {
  pass: number;
  n: number;
}

function check(p: Proportion, name: string): void {
  if (!(Number.isInteger(p.n) && p.n >= 0 && Number.isInteger(p.pass) && p.pass >= 0 && p.pass <= p.n)) {
    throw new ArgumentError(`${name} must have integers 0 ≤ pass ≤ n, got pass=${p.pass}, n=${p.n}`, { key: name });
  }
}

/** Pooled two-proportion z-test of pB − pA; null when a side has n = 0. z = 0, p = 1 when both rates are 0 or both 1. */
export function twoProportionZTest(a: Proportion, b: Proportion): { z: number; pValue: number } | null {
  check(a, 'a');
  check(b, 'b');
  if (a.n === 0 || b.n === 0) return null;
  const pooled = (a.pass + b.pass) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (se === 0) return { z: 0, pValue: 1 };
  const z = (b.pass / b.n - a.pass / a.n) / se;
  return { z, pValue: Math.min(1, 2 * normalSf(Math.abs(z))) };
}

/** Fisher's exact test, two-sided, for the table [[a.pass, a.n − a.pass], [b.pass, b.n − b.pass]]. */
export function fisherExact(a: Proportion, b: Proportion): number {
  check(a, 'a');
  check(b, 'b');
  const m = a.n;
  const n = b.n;
  const k = a.pass + b.pass;
  const lo = Math.max(0, k - n);
  const hi = Math.min(k, m);
  // Hypergeometric log-probabilities of x successes in A given the margins; the constant C(m+n, k) cancels.
  const logP = (x: number): number => logChoose(m, x) + logChoose(n, k - x);
  // Scale by the most likely table (as R does) so nothing overflows; tiny p-values underflow to 0.
  const logs: number[] = [];
  let max = -Infinity;
  for (let x = lo; x <= hi; x++) {
    const l = logP(x);
    logs.push(l);
    if (l > max) max = l;
  }
  const observed = Math.exp(logs[a.pass - lo] - max) * (1 + 1e-7);
  let total = 0;
  let tail = 0;
  for (const l of logs) {
    const d = Math.exp(l - max);
    total += d;
    if (d <= observed) tail += d;
  }
  return Math.min(1, tail / total);
}

export interface DifferenceInterval {
  low: number;
  high: number;
  level: number;
  method: 'newcombe';
}

/** Newcombe's hybrid score interval for pB − pA; null when a side has n = 0. */
export function newcombeInterval(a: Proportion, b: Proportion, level = 0.95): DifferenceInterval | null {
  check(a, 'a');
  check(b, 'b');
  const wa = wilson(a.pass, a.n, level);
  const wb = wilson(b.pass, b.n, level);
  if (wa === null || wb === null) return null;
  const pa = a.pass / a.n;
  const pb = b.pass / b.n;
  const d = pb - pa;
  const low = d - Math.sqrt((pb - wb.low) ** 2 + (wa.high - pa) ** 2);
  const high = d + Math.sqrt((wb.high - pb) ** 2 + (pa - wa.low) ** 2);
  return { low: Math.max(-1, low), high: Math.min(1, high), level, method: 'newcombe' };
}

export interface ProportionComparison {
  a: Proportion & { rate: number | null };
  b: Proportion & { rate: number | null };
  /** pB − pA: positive when B succeeds more often. */
  diff: number | null;
  ci: DifferenceInterval | null;
  z: { z: number; pValue: number } | null;
  fisherP: number | null;
  /** The test the verdict uses: Fisher when any expected cell count is below 5 (Cochran's rule), else z. */
  test: 'fisher' | 'z' | null;
  pValue: number | null;
  /** pValue < 1 − level. */
  significant: boolean;
  /** Significant and diff > 0 → better; significant and diff < 0 → worse; else unchanged. */
  direction: 'better' | 'worse' | 'unchanged';
}

/**
 * Compare B's success rate with A's at confidence `level`. The z-test's normal approximation is poor with
 * small expected counts, so Fisher's exact test decides when any expected count of the 2×2 table
 * (row total × column total / grand total) is below 5, and the z-test otherwise. Both p-values are
 * returned. The Newcombe interval is reported alongside; it agrees with the test in all but borderline cases.
 */
export function compareProportions(a: Proportion, b: Proportion, level = 0.95): ProportionComparison {
  if (!(level > 0 && level < 1)) throw new ArgumentError(`compareProportions: level must be in (0, 1), got ${level}`, { key: 'level' });
  check(a, 'a');
  check(b, 'b');
  const ra = a.n === 0 ? null : a.pass / a.n;
  const rb = b.n === 0 ? null : b.pass / b.n;
  const base = { a: { ...a, rate: ra }, b: { ...b, rate: rb } };
  if (ra === null || rb === null) {
    return { ...base, diff: null, ci: null, z: null, fisherP: null, test: null, pValue: null, significant: false, direction: 'unchanged' };
  }
  const z = twoProportionZTest(a, b);
  const fisherP = fisherExact(a, b);
  const total = a.n + b.n;
  const pass = a.pass + b.pass;
  const minExpected = (Math.min(a.n, b.n) * Math.min(pass, total - pass)) / total;
  const test = minExpected < 5 ? 'fisher' : 'z';
  const pValue = test === 'fisher' ? fisherP : (z as { pValue: number }).pValue;
  const significant = pValue < 1 - level;
  const diff = rb - ra;
  return {
    ...base,
    diff,
    ci: newcombeInterval(a, b, level),
    z,
    fisherP,
    test,
    pValue,
    significant,
    direction: !significant || diff === 0 ? 'unchanged' : diff > 0 ? 'better' : 'worse',
  };
}

/**
 * Holm's step-down adjustment: sort the m p-values ascending, multiply the r-th smallest (r from 0) by
 * m − r, carry the running maximum forward, cap at 1. Nulls (no test) are passed through and not counted.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const tested = pValues.map((p, idx) => ({ p, idx })).filter((x): x is { p: number; idx: number } => x.p !== null);
  tested.sort((x, y) => x.p - y.p || x.idx - y.idx);
  const out: (number | null)[] = pValues.map(() => null);
  let running = 0;
  tested.forEach(({ p, idx }, r) => {
    running = Math.max(running, Math.min(1, (tested.length - r) * p));
    out[idx] = running;
  });
  return out;
}
