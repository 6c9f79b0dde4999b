/**
 * The report model: what statistics make of a reliability tensor. Built by core/summarize.ts
 * (pure), read by the JSON/JUnit/Markdown/HTML reports, the terminal table and the dashboard.
 */

export type IntervalMethod = 'wilson' | 'clopper-pearson' | 'wald';
export type VerdictMode = 'point' | 'confident';
export type Verdict = 'pass' | 'fail' | 'inconclusive';
export type AggregateMethod = 'mean' | 'weighted' | 'min';

export interface Interval {
  low: number;
  high: number;
  method: IntervalMethod;
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
}

export interface ValidatorSummary extends RateWithCI {
  k: number;
  name: string;
  message: string;
  kind: 'validator' | 'verifier';
  minSuccess: number;
  weight: number;
  verdict: Verdict;
  /** Confident mode, inconclusive: further samples that would likely decide the verdict. */
  samplesToDecide?: number;
}

export interface InputSummary extends RateWithCI {
  /** Input index i: this is the IRP entry (Input MSP, over samples and validators). */
  i: number;
  /** Share of this input's samples that passed every validator at once (errors excluded). */
  allPass: RateWithCI;
  /** Per-validator rate for this input (a row of the rows view). */
  perValidator: RateWithCI[];
}

export interface IterationSummary extends RateWithCI {
  /** Iteration index j: the ORP entry (Output MSP, over inputs and validators). */
  j: number;
}

export interface OverallSummary {
  /** §3.3 over validator rates: simple mean, weighted mean, minimum. */
  mean: number | null;
  weighted: number | null;
  min: number | null;
  /** The configured method and its value. */
  method: AggregateMethod;
  value: number | null;
  /** §3.6.7 over the tensor: mean over decided cells, weighted (W[i][j][k], default the validator weight), and the minimum of the IRP, ORP and VRP rates (the paper's text; its literal min over binary cells is 0 as soon as one cell fails). */
  tensor: { mean: number | null; weighted: number | null; min: number | null };
}

export interface SummaryOptions {
  interval: IntervalMethod;
  /** Confidence level, default 0.95. */
  level: number;
  verdict: VerdictMode;
  aggregate: AggregateMethod;
}

export interface RunSummary {
  N: number;
  M: number;
  K: number;
  options: SummaryOptions;
  /** VRP with intervals and verdicts, one per validator k. */
  validators: ValidatorSummary[];
  /** IRP, one per input i. */
  inputs: InputSummary[];
  /** ORP, one per iteration j. */
  iterations: IterationSummary[];
  /** All outputs pooled ("validating all N² outputs"), every validator cell. */
  allOutputs: RateWithCI;
  /** Share of all samples passing every validator at once. */
  allPass: RateWithCI;
  overall: OverallSummary;
  /** pass if every validator passes; fail if any fails; else inconclusive. */
  verdict: Verdict;
}
