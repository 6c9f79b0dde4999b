/**
 * Exact operating figures of a fixed-n interval (no simulation): its coverage at (p, n) and the probability
 * that the confident verdict built on it is wrong. Used by the tests and bench:verdicts for docs/verdicts.md.
 */
import { logChoose } from './distributions.js';
import { interval } from './intervals.js';
import type { Interval, IntervalMethod } from './rate-types.js';

function pmf(n: number, x: number, p: number): number {
  if (p <= 0) return x === 0 ? 1 : 0;
  if (p >= 1) return x === n ? 1 : 0;
  return Math.exp(logChoose(n, x) + x * Math.log(p) + (n - x) * Math.log1p(-p));
}

// The n + 1 intervals of one (method, n, level), reused across p: a grid of p costs one set of quantiles.
const cache = new Map<string, Interval[]>();
function intervalsAt(method: IntervalMethod, n: number, level: number): Interval[] {
  const key = `${method} ${n} ${level}`;
  let cis = cache.get(key);
  if (!cis) {
    if (cache.size > 64) cache.clear();
    cis = Array.from({ length: n + 1 }, (_, x) => interval(method, x, n, level)!);
    cache.set(key, cis);
  }
  return cis;
}

/** Σₓ P(X = x) · [p inside the interval at x of n], X ~ Binomial(n, p). */
export function exactCoverage(method: IntervalMethod, p: number, n: number, level = 0.95): number {
  const cis = intervalsAt(method, n, level);
  let c = 0;
  for (let x = 0; x <= n; x++) if (cis[x].low <= p && p <= cis[x].high) c += pmf(n, x, p);
  return c;
}

/** Probability that the confident verdict at n is wrong: a pass when p < minSuccess, a fail when p ≥ minSuccess. */
export function wrongVerdictProbability(method: IntervalMethod, p: number, n: number, minSuccess: number, level = 0.95): number {
  const cis = intervalsAt(method, n, level);
  let w = 0;
  for (let x = 0; x <= n; x++) {
    const ci = cis[x];
    if (p < minSuccess ? ci.low >= minSuccess : ci.high < minSuccess) w += pmf(n, x, p);
  }
  return w;
}
