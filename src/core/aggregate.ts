/**
 * Aggregation of success percentages into one overall figure.
 *
 * §3.3, over the K validator rates: simple mean, weighted mean Σ wₖ·rₖ / Σ wₖ (weights default 1), and the
 * minimum. A validator with no decided cell (rate null) is left out of all three.
 *
 * §3.6.7, over the tensor's cells, where a decided cell is 1 (pass) or 0 (fail):
 * - mean: Σ R / (number of decided cells), i.e. the pooled rate of all outputs;
 * - weighted: Σ W[i][j][k]·R[i][j][k] / Σ W[i][j][k] over decided cells (W defaults to the validator's weight);
 * - minimum: the paper writes min_{i,j,k} R[i][j][k], which for pass/fail cells is 0 as soon as a single
 *   cell fails and so says nothing. Its text asks for "the lowest success percentage across any
 *   dimension"; that is what we compute: the minimum over the IRP, ORP and VRP marginal rates.
 * ERROR and PENDING cells are excluded from every numerator and denominator.
 */
import { Outcome } from './outcome.js';
import type { AggregateMethod } from './rate-types.js';
import type { ReliabilityTensor } from './tensor.js';
import { rateOf, tensorViews, type TensorViews } from './views.js';
import { ArgumentError } from '../errors.js';

export interface Aggregates {
  mean: number | null;
  weighted: number | null;
  min: number | null;
}

function checkWeight(w: number, where: string): void {
  if (!(Number.isFinite(w) && w >= 0)) throw new ArgumentError(`weight ${where} must be a finite number ≥ 0, got ${w}`, { key: 'weights' });
}

/** §3.3 over validator rates; `weights` default 1 each. */
export function aggregateRates(rates: readonly (number | null)[], weights?: readonly number[]): Aggregates {
  if (weights && weights.length !== rates.length) {
    throw new ArgumentError(`aggregateRates: ${rates.length} rates but ${weights.length} weights`, { key: 'weights' });
  }
  let sum = 0;
  let count = 0;
  let wSum = 0;
  let wTotal = 0;
  let min = Infinity;
  rates.forEach((r, k) => {
    const w = weights ? weights[k] : 1;
    checkWeight(w, `of validator ${k}`);
    if (r === null) return;
    sum += r;
    count++;
    wSum += w * r;
    wTotal += w;
    if (r < min) min = r;
  });
  return {
    mean: count === 0 ? null : sum / count,
    weighted: wTotal === 0 ? null : wSum / wTotal,
    min: count === 0 ? null : min,
  };
}

/** The value of one aggregation method. */
export function pickAggregate(method: AggregateMethod, a: Aggregates): number | null {
  switch (method) {
    case 'mean':
      return a.mean;
    case 'weighted':
      return a.weighted;
    case 'min':
      return a.min;
    default:
      throw new ArgumentError(`unknown aggregate method ${JSON.stringify(method)}; expected mean, weighted or min`, { key: 'method' });
  }
}

/**
 * Weights W for §3.6.7: one per validator (length K), one per cell in the tensor's (i, j, k) row-major
 * order (length N·M·K), or a function of (i, j, k). When N·M = 1 the two array forms coincide.
 */
export type CellWeights = ArrayLike<number> | ((i: number, j: number, k: number) => number);

function weightedOverCells(t: ReliabilityTensor, views: TensorViews, W: CellWeights | undefined): number | null {
  const { N, M, K, cells } = t;
  let num = 0;
  let den = 0;
  if (W === undefined || (typeof W !== 'function' && W.length === K)) {
    // Per-validator weights: the per-validator counts suffice.
    for (let k = 0; k < K; k++) {
      const w = W === undefined ? 1 : W[k];
      checkWeight(w, `of validator ${k}`);
      const c = views.perValidator[k];
      num += w * c.pass;
      den += w * (c.pass + c.fail);
    }
  } else if (typeof W === 'function' || W.length === N * M * K) {
    let p = 0;
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < M; j++) {
        for (let k = 0; k < K; k++, p++) {
          const c = cells[p];
          if (c !== Outcome.PASS && c !== Outcome.FAIL) continue;
          const w = typeof W === 'function' ? W(i, j, k) : W[p];
          checkWeight(w, `W[${i}][${j}][${k}]`);
          den += w;
          if (c === Outcome.PASS) num += w;
        }
      }
    }
  } else {
    throw new ArgumentError(`tensor weights: expected ${K} (per validator) or ${N * M * K} (per cell) weights, got ${W.length}`, { key: 'weights' });
  }
  return den === 0 ? null : num / den;
}

/** Minimum over the IRP, ORP and VRP marginal rates (the text of §3.6.7; see the file comment). */
export function minMarginal(views: TensorViews): number | null {
  let min = Infinity;
  for (const group of [views.perInput, views.perIteration, views.perValidator]) {
    for (const c of group) {
      const r = rateOf(c);
      if (r !== null && r < min) min = r;
    }
  }
  return min === Infinity ? null : min;
}

/** §3.6.7 over the tensor. Pass `views` when already computed to save a pass over the cells. */
export function aggregateTensor(t: ReliabilityTensor, W?: CellWeights, views: TensorViews = tensorViews(t)): Aggregates {
  return { mean: rateOf(views.all), weighted: weightedOverCells(t, views, W), min: minMarginal(views) };
}
