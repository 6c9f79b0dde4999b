/**
 * The exact null distribution behind the independence tests (core/independence.ts): n samples, K columns
 * with a_k passes each, every column's passes placed on the samples uniformly at random and independently.
 * The number of samples passing every column is then |A_1 ∩ … ∩ A_K|, built one column at a time: given
 * |A_1 ∩ … ∩ A_k| = y, intersecting with A_{k+1} (a passes) gives t with the hypergeometric probability
 * C(y, t)·C(n − y, a − t) / C(n, a). Probabilities below 1e-20 of a step's largest are dropped (they cannot
 * move a p-value that matters).
 */
import { logChoose } from './distributions.js';
import { ArgumentError } from '../errors.js';

/** A distribution on the integers offset, offset + 1, …: probs[t − offset] = P(X = t). */
export interface CountDistribution {
  offset: number;
  probs: Float64Array;
}

const NEGLIGIBLE = 1e-20;

/** P(T = t) for T ~ Hypergeometric(n, y, a) (t of the y marked among a drawn), over its support, tails trimmed. */
function hypergeometric(n: number, y: number, a: number): CountDistribution {
  const lo = Math.max(0, a - (n - y));
  const hi = Math.min(y, a);
  const mode = Math.min(hi, Math.max(lo, Math.floor(((y + 1) * (a + 1)) / (n + 2))));
  const at = (t: number) => Math.exp(logChoose(y, t) + logChoose(n - y, a - t) - logChoose(n, a));
  // From the mode outwards by the ratio P(t + 1)/P(t) = (y − t)(a − t) / ((t + 1)(n − y − a + t + 1)).
  const peak = at(mode);
  const up: number[] = [];
  let v = peak;
  for (let t = mode; t < hi; t++) {
    v *= ((y - t) * (a - t)) / ((t + 1) * (n - y - a + t + 1));
    if (v < NEGLIGIBLE * peak) break;
    up.push(v);
  }
  const down: number[] = [];
  v = peak;
  for (let t = mode; t > lo; t--) {
    v *= (t * (n - y - a + t)) / ((y - t + 1) * (a - t + 1));
    if (v < NEGLIGIBLE * peak) break;
    down.push(v);
  }
  const probs = Float64Array.from([...down.reverse(), peak, ...up]);
  return { offset: mode - down.length, probs };
}

/** Distribution of the number of samples passing every column (see the file comment). */
export function intersectionDistribution(n: number, passes: readonly number[]): CountDistribution {
  for (const a of passes)
    if (!(Number.isInteger(a) && a >= 0 && a <= n))
      throw new ArgumentError(`intersectionDistribution: passes must be integers in [0, ${n}], got ${a}`, { key: 'passes' });
  if (passes.length === 0) return { offset: n, probs: Float64Array.of(1) };
  let dist: CountDistribution = { offset: passes[0], probs: Float64Array.of(1) };
  for (let k = 1; k < passes.length; k++) {
    const a = passes[k];
    const next = new Map<number, number>();
    let lo = Infinity;
    let hi = -Infinity;
    dist.probs.forEach((w, idx) => {
      if (w === 0) return;
      const h = hypergeometric(n, dist.offset + idx, a);
      h.probs.forEach((p, j) => {
        const t = h.offset + j;
        next.set(t, (next.get(t) ?? 0) + w * p);
        if (t < lo) lo = t;
        if (t > hi) hi = t;
      });
    });
    const probs = new Float64Array(hi - lo + 1);
    for (const [t, p] of next) probs[t - lo] = p;
    dist = { offset: lo, probs };
  }
  return dist;
}

/** Distribution of the sum of independent counts. */
export function convolve(a: CountDistribution, b: CountDistribution): CountDistribution {
  const probs = new Float64Array(a.probs.length + b.probs.length - 1);
  for (let i = 0; i < a.probs.length; i++) {
    const w = a.probs[i];
    if (w === 0) continue;
    for (let j = 0; j < b.probs.length; j++) probs[i + j] += w * b.probs[j];
  }
  return { offset: a.offset + b.offset, probs };
}

/** Two-sided p-value of x: the probability of every count no likelier than x (R's 1e-7 relative tolerance). */
export function twoSidedPValue(d: CountDistribution, x: number): number {
  const idx = x - d.offset;
  const px = idx >= 0 && idx < d.probs.length ? d.probs[idx] : 0;
  const cut = px * (1 + 1e-7);
  let p = 0;
  for (const q of d.probs) if (q <= cut) p += q;
  return Math.min(1, p);
}
