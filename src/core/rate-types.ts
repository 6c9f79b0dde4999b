/**
 * The vocabulary of rates: intervals, counts, verdicts. A leaf (it imports nothing), so that the statistics
 * modules and the report model (summary-types.ts) can all use it without importing each other.
 */

export type IntervalMethod = 'clopper-pearson' | 'wilson' | 'wald';
export type VerdictMode = 'point' | 'confident';
/**
 * `error`: the verdict cannot be given because too many cells are errors (error share above maxErrorShare,
 * and the bounds do not decide it however the errors would have resolved). Never lets CI pass.
 */
export type Verdict = 'pass' | 'fail' | 'inconclusive' | 'error';
export type AggregateMethod = 'mean' | 'weighted' | 'min';
/**
 * Which claim a verdict is about (docs/verdicts.md#two-claims-the-inputs-run-and-the-input-population): `inputs`
 * (the default) — the inputs that were run, each output a trial; `population` — an input drawn at random from the
 * population the inputs came from, each input a unit (core/population.ts).
 */
export type Estimand = 'inputs' | 'population';
/** `sequential`: sample until each validator's confidence sequence decides it (core/stopping.ts). */
export type StoppingRule = 'fixed' | 'sequential';

export interface Interval {
  low: number;
  high: number;
  /** The interval's method; `confidence-sequence` for the anytime-valid sequence of a sequential run. */
  method: IntervalMethod | 'confidence-sequence';
  /** Confidence level, e.g. 0.95. */
  level: number;
}

export interface Counts {
  pass: number;
  fail: number;
  /** Infrastructure errors: shown, never in a denominator. */
  error: number;
  /** Cells not run yet (interrupted or running). */
  pending: number;
}

/** A success rate over decided cells (pass / (pass + fail)); null when nothing was decided. */
export interface RateWithCI {
  rate: number | null;
  ci: Interval | null;
  counts: Counts;
  /** error / (pass + fail + error): the share of checked cells the rate leaves out; null when none was checked. */
  errorShare: number | null;
}

/**
 * A pooled rate over several cells of each output (IRP, ORP, all outputs): the output is the unit. Its
 * interval is Clopper–Pearson (or the configured method) on the effective sample size n / deff, where the
 * design effect deff comes from the cluster-robust variance over outputs (core/cluster.ts).
 */
export interface PooledRate extends RateWithCI {
  /** Outputs with at least one decided cell (the clusters). */
  outputs: number;
  /** The effective number of independent cells, between `outputs` and the decided cells; null when nothing was decided. */
  effectiveN: number | null;
}
