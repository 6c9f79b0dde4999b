/**
 * The paper's views of the reliability tensor R[i][j][k] (white paper §2.2, §3.6.2–3.6.4), as outcome
 * counts. Rates are pass / (pass + fail): errors and pending cells are counted and shown, never in a
 * denominator.
 *
 * - per validator k, over inputs and samples: the VRP (Validator MSP)
 * - per input i, over samples and validators: the IRP (Input MSP)
 * - per iteration j, over inputs and validators: the ORP (Output MSP)
 * - per input × validator, over samples: the rows view
 * - all outputs pooled: "validating all N² outputs", every cell
 * - per input and overall, samples passing every validator at once (the empirical joint rate of §4)
 *
 * One pass over the Uint8Array fills flat Float64Array accumulators (4 slots per group, indexed by the
 * outcome code), so 200×10×3 or 10⁷ cells cost one tight loop.
 */
import { addCluster, emptyClusterSums, type ClusterSums } from './cluster.js';
import { Outcome } from './outcome.js';
import type { Counts } from './rate-types.js';
import type { ReliabilityTensor } from './tensor.js';
import { ArgumentError } from '../errors.js';

export interface TensorViews {
  N: number;
  M: number;
  K: number;
  /** VRP counts, one per validator k. */
  perValidator: Counts[];
  /** IRP counts, one per input i. */
  perInput: Counts[];
  /** ORP counts, one per iteration j. */
  perIteration: Counts[];
  /** Rows view: rows[i][k], over the samples of input i. */
  rows: Counts[][];
  /** All outputs pooled, every cell. */
  all: Counts;
  /**
   * Per input, samples that pass every validator at once. A sample counts as `pending` when any cell is
   * PENDING, else `error` when any cell is ERROR (undecided), else `fail` when any cell FAILs, else `pass`.
   * This is a complete-case analysis: counting a sample with an error and a fail as decided, but one with an
   * error and only passes as undecided, would bias the joint rate downwards (to 0% when a column is all errors).
   * With K = 0 there is nothing to pass: no sample is counted.
   */
  allPassPerInput: Counts[];
  /** The same over every sample. */
  allPass: Counts;
  /** Per-output sums for the pooled views' intervals (the output is the unit; core/cluster.ts). */
  clusters: { perInput: ClusterSums[]; perIteration: ClusterSums[]; all: ClusterSums };
}

const counts = (acc: Float64Array, g: number): Counts => ({
  pass: acc[g * 4 + Outcome.PASS],
  fail: acc[g * 4 + Outcome.FAIL],
  error: acc[g * 4 + Outcome.ERROR],
  pending: acc[g * 4 + Outcome.PENDING],
});

const list = (acc: Float64Array, groups: number): Counts[] => Array.from({ length: groups }, (_, g) => counts(acc, g));

/** Every view in one pass over the cells. */
export function tensorViews(t: ReliabilityTensor): TensorViews {
  const { N, M, K, cells } = t;
  // Per cell, only the (i, k) and j accumulators are touched; per-input and per-validator counts are
  // sums of the (i, k) ones, taken afterwards in O(N·K).
  const byIK = new Float64Array(N * K * 4);
  const byJ = new Float64Array(M * 4);
  const joint = new Float64Array(N * 4);
  const clusters = {
    perInput: Array.from({ length: N }, emptyClusterSums),
    perIteration: Array.from({ length: M }, emptyClusterSums),
    all: emptyClusterSums(),
  };
  let p = 0;
  for (let i = 0; i < N; i++) {
    const ikBase = i * K * 4;
    for (let j = 0; j < M; j++) {
      const jBase = j * 4;
      let fail = false;
      let pending = false;
      let error = false;
      let passes = 0;
      let fails = 0;
      for (let k = 0; k < K; k++) {
        const c = cells[p++];
        if (c > 3) throw new ArgumentError(`tensor cell (${i}, ${j}, ${k}) holds ${c}, not an outcome code 0–3`, { key: 'tensor' });
        byIK[ikBase + k * 4 + c]++;
        byJ[jBase + c]++;
        if (c === Outcome.PASS) passes++;
        else if (c === Outcome.FAIL) {
          fail = true;
          fails++;
        } else if (c === Outcome.PENDING) pending = true;
        else if (c === Outcome.ERROR) error = true;
      }
      if (passes + fails > 0) {
        addCluster(clusters.perInput[i], passes, passes + fails);
        addCluster(clusters.perIteration[j], passes, passes + fails);
        addCluster(clusters.all, passes, passes + fails);
      }
      if (K > 0) {
        const s = pending ? Outcome.PENDING : error ? Outcome.ERROR : fail ? Outcome.FAIL : Outcome.PASS;
        joint[i * 4 + s]++;
      }
    }
  }
  const byK = new Float64Array(K * 4);
  const byI = new Float64Array(N * 4);
  const all = new Float64Array(4);
  const allJoint = new Float64Array(4);
  for (let i = 0; i < N; i++) {
    for (let k = 0; k < K; k++) {
      for (let c = 0; c < 4; c++) {
        const n = byIK[(i * K + k) * 4 + c];
        byK[k * 4 + c] += n;
        byI[i * 4 + c] += n;
        all[c] += n;
      }
    }
    for (let c = 0; c < 4; c++) allJoint[c] += joint[i * 4 + c];
  }
  const rows: Counts[][] = [];
  for (let i = 0; i < N; i++) rows.push(Array.from({ length: K }, (_, k) => counts(byIK, i * K + k)));
  return {
    N,
    M,
    K,
    perValidator: list(byK, K),
    perInput: list(byI, N),
    perIteration: list(byJ, M),
    rows,
    all: counts(all, 0),
    allPassPerInput: list(joint, N),
    allPass: counts(allJoint, 0),
    clusters,
  };
}

/** Decided cells: pass + fail (the denominator of every rate). */
export function decided(c: Counts): number {
  return c.pass + c.fail;
}

/** error / (pass + fail + error): the share of checked cells that are errors; null when none was checked. */
export function errorShareOf(c: Counts): number | null {
  const n = c.pass + c.fail + c.error;
  return n === 0 ? null : c.error / n;
}

/** pass / (pass + fail); null when nothing was decided. */
export function rateOf(c: Counts): number | null {
  const n = c.pass + c.fail;
  return n === 0 ? null : c.pass / n;
}

/** Sum of counts. */
export function addCounts(a: Counts, b: Counts): Counts {
  return { pass: a.pass + b.pass, fail: a.fail + b.fail, error: a.error + b.error, pending: a.pending + b.pending };
}

/** VRP counts (per validator). */
export const validatorCounts = (t: ReliabilityTensor): Counts[] => tensorViews(t).perValidator;
/** IRP counts (per input, over samples and validators). */
export const inputCounts = (t: ReliabilityTensor): Counts[] => tensorViews(t).perInput;
/** ORP counts (per iteration, over inputs and validators). */
export const iterationCounts = (t: ReliabilityTensor): Counts[] => tensorViews(t).perIteration;
/** Rows view: counts[i][k]. */
export const rowCounts = (t: ReliabilityTensor): Counts[][] => tensorViews(t).rows;
/** All outputs pooled. */
export const pooledCounts = (t: ReliabilityTensor): Counts => tensorViews(t).all;
