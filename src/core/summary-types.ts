import type { Alignment } from './alignment.js';
import type { PassKSummary } from './pass-k.js';
import type { PerInputResult } from './per-input.js';
import type { PopulationRate } from './population.js';
import type { CorrectedRate } from './ppi.js';

/**
 * The report model: what statistics make of a reliability tensor. Built by core/summarize.ts
 * (pure), read by the JSON/JUnit/Markdown/HTML reports, the terminal table and the dashboard.
 */

export type { Estimand, IntervalMethod, VerdictMode, Verdict, AggregateMethod, StoppingRule, Interval, Counts, RateWithCI, PooledRate } from './rate-types.js';
import type { Estimand, IntervalMethod, VerdictMode, Verdict, AggregateMethod, StoppingRule, RateWithCI, PooledRate } from './rate-types.js';

/** Where a sequential validator stopped and why (stopping: sequential). */
export interface SequentialSummary {
  /** lower-bound → pass, upper-bound → fail, samples (every sample run, undecided), running (samples remain). */
  reason: 'lower-bound' | 'upper-bound' | 'samples' | 'running';
  /** Samples per input it used (complete rounds j = 0 … rounds − 1). */
  rounds: number;
  /** Outputs it used: N × rounds. */
  outputs: number;
  /** Outcomes over those rounds. */
  counts: { pass: number; fail: number; error: number };
}

/** An output where the rule's verdict and the people's grade differ, with the judge's reasons beside it. */
export interface Disagreement {
  i: number;
  j: number;
  /** The rule's verdict (the judge's, for a verifier): true for PASS. */
  judge: boolean;
  /** The people's grade. */
  person: boolean;
  /** Its graders disagreed among themselves. */
  disputed: boolean;
  reasons?: string[];
}

/** A rule checked against people's grades (docs/judges.md). */
export interface GradingSummary {
  /** Graded outputs the rule decided (PASS or FAIL): the pairs behind the alignment and the correction. */
  grades: number;
  /** Of them, graded without a known random draw (hand-picked, imported without a probability). */
  notRandom: number;
  /** Of them, outputs whose graders disagreed. */
  disputed: number;
  /** Graded outputs the rule did not decide (an error, or not checked): left out. */
  undecided: number;
  /** The confusion matrix against people, TPR and TNR with exact intervals, agreement and Cohen's κ. */
  alignment: Alignment;
  /** The rate corrected by the grades (prediction-powered inference); null when not corrected (see `figure`). */
  corrected: CorrectedRate | null;
  /** Every output where the rule and the people differ. */
  disagreements: Disagreement[];
  /** What a reader must know about these grades (not drawn at random, disputed, left out), one sentence each. */
  caveats: string[];
  /** Why the grades were not used to correct the rate although a grading look was reached (a thin weighted draw). */
  refused?: string;
}

export interface ValidatorSummary extends RateWithCI {
  k: number;
  name: string;
  message: string;
  kind: 'validator' | 'verifier';
  minSuccess: number;
  weight: number;
  /** Largest error share a verdict may rest on (the validator's own, else the run's). */
  maxErrorShare: number;
  /**
   * The interval's lower bound with every error counted as a failure and its upper bound with every error
   * counted as a pass: where the rate could be however the errors would have resolved. The confident verdict
   * passes on `low` and fails on `high`. null when nothing was checked.
   */
  errorBounds: { low: number; high: number } | null;
  verdict: Verdict;
  /** One line: why this verdict. */
  reason: string;
  /**
   * Confident mode, inconclusive: `outputs` more outputs decide the verdict with probability `probability`
   * if the shares of passes, failures and errors stay at their estimates (Infinity: they would not).
   */
  toDecide?: { outputs: number; probability: number };
  /** stopping: sequential — where it stopped and why. */
  sequential?: SequentialSummary;
  /**
   * The rate for the input population (an input drawn at random from the population the N ≥ 2 inputs came from,
   * the input as the unit; core/population.ts), beside `rate` and `ci`, which are about the inputs run. Absent with
   * fewer than two inputs that decided anything, and in a sequential run (its stopped counts would bias it).
   * Under `estimand: population` the verdict rests on it (errors as failures for its lower bound, as passes for its
   * upper).
   */
  population?: PopulationRate;
  /**
   * Which figure the verdict rests on, as every report says it: "corrected by 57 grades", "judge's rate ·
   * judge not checked against people" (a verifier without grades), "judge's rate · …" (grades not used, and
   * why); absent for a code validator without grades.
   */
  figure?: string;
  /** The rule checked against people's grades, when it has any. */
  grading?: GradingSummary;
  /**
   * A corrected verdict, inconclusive: about this many grades in all would narrow its interval enough to decide it
   * if the rates hold; null when grading every output the rule decided would not.
   */
  gradesToDecide?: number | null;
  /**
   * `perInput: { minSuccess }`: each input's verdict against the floor (Holm over the inputs) and the inputs
   * that fail it. `verdict` and `reason` are then the rule's whole verdict: the aggregate's and the floors'.
   */
  perInput?: PerInputResult;
  /**
   * `passK: { k, minSuccess? }`: pass^k and pass@k per input and over inputs with their intervals (core/pass-k.ts);
   * with minSuccess, the gate's verdict, included in `verdict` and `reason`.
   */
  passK?: PassKSummary;
}

export interface InputSummary extends PooledRate {
  /** Input index i: this is the IRP entry (Input MSP, over samples and validators). */
  i: number;
  /** Share of this input's samples that passed every validator at once (errors excluded). */
  allPass: RateWithCI;
  /** Per-validator rate for this input (a row of the rows view). */
  perValidator: RateWithCI[];
}

export interface IterationSummary extends PooledRate {
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
  /** Share of all checked cells that are errors: an aggregate is never shown without it. */
  errorShare: number | null;
  /** Validators with no decided cell, left out of the aggregates over validator rates. */
  undecidedValidators: number;
  /** §3.6.7 over the tensor: mean over decided cells, weighted (W[i][j][k], default the validator weight), and the minimum of the IRP, ORP and VRP rates (the paper's text; its literal min over binary cells is 0 as soon as one cell fails). */
  tensor: { mean: number | null; weighted: number | null; min: number | null };
}

export interface SummaryOptions {
  interval: IntervalMethod;
  /** Confidence level, default 0.95. */
  level: number;
  verdict: VerdictMode;
  aggregate: AggregateMethod;
  /** Largest error share a verdict may rest on (default 0.05); a validator's own maxErrorShare wins. */
  maxErrorShare: number;
  /** fixed (default): every sample is run; sequential: stop each validator once its confidence sequence decides it. */
  stopping: StoppingRule;
  /** What the verdicts are about: `inputs` (default, the inputs run) or `population` (the input population). */
  estimand: Estimand;
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
  /** All outputs pooled ("validating all N² outputs"), every validator cell; the output is the unit of its interval. */
  allOutputs: PooledRate;
  /** Share of all samples passing every validator at once. */
  allPass: RateWithCI;
  overall: OverallSummary;
  /** fail if any validator fails; else error if any is error; else inconclusive if any is; else pass. */
  verdict: Verdict;
  /** stopping: sequential — the samples per input run before every validator was decided (or all of them). */
  stoppedAfter?: number;
}
