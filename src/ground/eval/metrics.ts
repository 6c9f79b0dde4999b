/** Detection metrics with 95% intervals: Wilson for proportions, seeded percentile bootstrap for BA and F1. */
import { mulberry32 } from '../../core/prng.js';

export interface Interval {
  value: number;
  lo: number;
  hi: number;
}

export interface DetectionMetrics {
  n: number;
  positives: number;
  threshold: number;
  balanced_accuracy: Interval;
  precision: Interval;
  recall: Interval;
  f1: Interval;
}

export function wilson(k: number, n: number, z = 1.959964): Interval {
  if (n === 0) return { value: 0, lo: 0, hi: 1 };
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { value: p, lo: Math.max(0, c - h), hi: Math.min(1, c + h) };
}

interface Counts {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

function counts(pred: boolean[], gold: boolean[], idx?: Uint32Array): Counts {
  const c = { tp: 0, fp: 0, tn: 0, fn: 0 };
  const n = idx ? idx.length : gold.length;
  for (let j = 0; j < n; j++) {
    const i = idx ? idx[j] : j;
    if (pred[i] && gold[i]) c.tp++;
    else if (pred[i]) c.fp++;
    else if (gold[i]) c.fn++;
    else c.tn++;
  }
  return c;
}

const ba = (c: Counts) => ((c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0) + (c.tn + c.fp ? c.tn / (c.tn + c.fp) : 0)) / 2;
const f1 = (c: Counts) => (2 * c.tp + c.fp + c.fn ? (2 * c.tp) / (2 * c.tp + c.fp + c.fn) : 0);

/** Predicted positive (unsupported) when score < threshold. */
export function detectionMetrics(scores: number[], gold: boolean[], threshold: number, resamples = 2000, seed = 1): DetectionMetrics {
  const pred = scores.map((s) => s < threshold);
  const c = counts(pred, gold);
  const rnd = mulberry32(seed);
  const bas: number[] = [];
  const f1s: number[] = [];
  const idx = new Uint32Array(gold.length);
  for (let r = 0; r < resamples && gold.length > 0; r++) {
    for (let j = 0; j < idx.length; j++) idx[j] = Math.floor(rnd() * gold.length);
    const cc = counts(pred, gold, idx);
    bas.push(ba(cc));
    f1s.push(f1(cc));
  }
  const pct = (xs: number[], q: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
  };
  return {
    n: gold.length,
    positives: c.tp + c.fn,
    threshold,
    balanced_accuracy: { value: ba(c), lo: pct(bas, 0.025), hi: pct(bas, 0.975) },
    precision: wilson(c.tp, c.tp + c.fp),
    recall: wilson(c.tp, c.tp + c.fn),
    f1: { value: f1(c), lo: pct(f1s, 0.025), hi: pct(f1s, 0.975) },
  };
}

/** The threshold maximising balanced accuracy (midpoints between sorted distinct finite scores). */
export function fitThreshold(scores: number[], gold: boolean[]): { threshold: number; balanced_accuracy: number } {
  const finite = [...new Set(scores.filter(Number.isFinite))].sort((a, b) => a - b);
  const candidates = [0, ...finite.map((x, i) => (i + 1 < finite.length ? (x + finite[i + 1]) / 2 : x + 1e-6)), 1];
  let best = { threshold: 0.5, balanced_accuracy: -1 };
  for (const t of candidates) {
    const b = ba(
      counts(
        scores.map((s) => s < t),
        gold,
      ),
    );
    if (b > best.balanced_accuracy) best = { threshold: t, balanced_accuracy: b };
  }
  return best;
}
