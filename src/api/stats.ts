/**
 * `assay/stats`: the statistics behind the verdicts, for use on their own — binomial intervals, a rule's
 * verdict, per-input floors, sample sizes, confidence sequences, comparisons of two rates, the decision
 * parameters of a stored run, people's grades with a judge's alignment and PPI-corrected rates, and the retry
 * planner. Listed in docs/api.md.
 */
export { wilson, clopperPearson, wald, interval } from '../core/intervals.js';
export { validatorVerdict, errorBounds } from '../core/verdict.js';
export { perInputFloors, combinePerInput, binomialCdf, binomialSf, type PerInputFloor, type PerInputResult, type InputFloor } from '../core/per-input.js';
export { toDecide, fixedSampleSize, sequentialSampleSize } from '../core/sample-size.js';
export { passHatK, passAtK, passKSummary, type PassKOption, type PassKSummary, type PassKInput } from '../core/pass-k.js';
export { bettingInterval, type BettingInterval } from '../core/betting.js';
export {
  populationRate,
  populationVerdict,
  populationDifference,
  planPopulation,
  type PopulationRate,
  type PopulationMethod,
  type PopulationDifference,
  type PopulationDesign,
  type PopulationPlanOptions,
} from '../core/population.js';
export { gradingLook, FIRST_LOOK, type GradingLook } from '../core/grading-looks.js';
export { sequenceBounds } from '../core/sequence.js';
export { RuleWatch, type WatchOptions, type WatchAlarm, type WindowSummary } from '../core/monitor.js';
export { sequentialStatus } from '../core/stopping.js';
export { compareProportions, type ProportionComparison } from '../core/significance.js';
export { decisionOfRun, type DecisionParameters, type RuleDecision } from '../core/decision.js';
export { loadGrading } from '../grades/load.js';
export { combineGrades, type PersonGrade, type GradedOutput } from '../core/grades.js';
export { alignment, type Alignment, type GradedPair, type RateInterval } from '../core/alignment.js';
export { correctedRate, type CorrectedRate, type CorrectedRateArgs } from '../core/ppi.js';
export { suggestGrading, gradesForWidth, type GradingDesign, type GradingOptions, type GradingPick, type GradesForWidthArgs } from '../core/grading-sample.js';
export { planFromRates, minAttempts, pSuccessWithin, type RatePlan } from '../core/retry.js';
export { planFromTensor, type TensorRetryPlan } from '../core/retry-tensor.js';
export { independenceCheck, type IndependenceCheck } from '../core/independence.js';
