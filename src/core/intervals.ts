/**
 * Confidence intervals for a success rate x/n (white paper §3.4 and GUIDE "Statistics, done honestly").
 *
 * - Clopper–Pearson "exact" interval from beta quantiles: the default. Its coverage is ≥ the nominal level
 *   for every p and n, which is what a verdict's guarantee needs (docs/verdicts.md).
 * - Wilson score interval: shorter, but under-covers near p → 1, where reliability testing lives (exact
 *   coverage 0.925 at p = 0.95, n = 20, 0.911 at p = 0.99, n = 50; its confident verdict's false-fail rate reaches 8.9% for a nominal 2.5%).
 * - Wald, the paper's p ± z·√(p(1−p)/n): kept for comparison; it collapses to zero width at p = 0 or 1,
 *   exactly where reliability testing lives, and under-covers near the edges.
 *
 * Every bound is clipped to [0, 1]; n = 0 gives null (nothing decided, no interval).
 * x may be fractional: the planner (verdict.ts) asks "what if the observed rate held at a larger n".
 */
import { betaQuantile, normalQuantile } from './distributions.js';
import type { Interval, IntervalMethod } from './rate-types.js';
import { ArgumentError } from '../errors.js';

export const INTERVAL_METHODS: readonly IntervalMethod[] = ['clopper-pearson', 'wilson', 'wald'];

function check(x: number, n: number, level: number): void {
  if (!(Number.isFinite(n) && n >= 0)) throw new ArgumentError(`interval: n must be a finite number ≥ 0, got ${n}`, { key: 'n' });
  if (!(Number.isFinite(x) && x >= 0 && x <= n)) throw new ArgumentError(`interval: x must be in [0, n=${n}], got ${x}`, { key: 'x' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`interval: level must be in (0, 1), got ${level}`, { key: 'level' });
}

const clip = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

/** Two-sided critical value z_{1−α/2} for confidence `level`. */
export function zCritical(level: number): number {
  return normalQuantile(1 - (1 - level) / 2);
}

/** Wald interval (the paper's formula). */
export function wald(x: number, n: number, level = 0.95): Interval | null {
  check(x, n, level);
  if (n === 0) return null;
  const p = x / n;
  const half = zCritical(level) * Math.sqrt((p * (1 - p)) / n);
  return { low: clip(p - half), high: clip(p + half), method: 'wald', level };
}

/** Wilson score interval. */
export function wilson(x: number, n: number, level = 0.95): Interval | null {
  check(x, n, level);
  if (n === 0) return null;
  const p = x / n;
  const z = zCritical(level);
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
  // At x = 0 (x = n) the bound is 0 (1) exactly; the formula reaches it only up to rounding.
  return {
    low: x === 0 ? 0 : clip(centre - half),
    high: x === n ? 1 : clip(centre + half),
    method: 'wilson',
    level,
  };
}

/** Clopper–Pearson exact interval: [B(α/2; x, n−x+1), B(1−α/2; x+1, n−x)]. */
export function clopperPearson(x: number, n: number, level = 0.95): Interval | null {
  check(x, n, level);
  if (n === 0) return null;
  const alpha = 1 - level;
  const low = x === 0 ? 0 : betaQuantile(alpha / 2, x, n - x + 1);
  const high = x === n ? 1 : betaQuantile(1 - alpha / 2, x + 1, n - x);
  return { low: clip(low), high: clip(high), method: 'clopper-pearson', level };
}

/** The interval of the given method for x successes out of n decided trials. */
export function interval(method: IntervalMethod, x: number, n: number, level = 0.95): Interval | null {
  switch (method) {
    case 'wilson':
      return wilson(x, n, level);
    case 'clopper-pearson':
      return clopperPearson(x, n, level);
    case 'wald':
      return wald(x, n, level);
    default:
      throw new ArgumentError(`interval: unknown method ${JSON.stringify(method)}; expected one of ${INTERVAL_METHODS.join(', ')}`, { key: 'method' });
  }
}
