import type { AuditSummary } from '../grades/audits.js';
import { writeFile } from 'node:fs/promises';
import type { Alignment } from '../core/alignment.js';
import type { CorrectedRate } from '../core/ppi.js';
import type {
  GradingSummary,
  InputSummary,
  IterationSummary,
  PooledRate,
  RateWithCI,
  RunSummary,
  SummaryOptions,
  ValidatorSummary,
  Verdict,
} from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import type { RunStats } from '../run/stats.js';
import type { RunStatus } from '../store/types.js';
import { verdictPasses, type ReportMeta } from './meta.js';
import { aggregatesWhose, countsWhose } from './grading-text.js';

/**
 * The machine-readable report (`--json`). Versioned: a consumer checks `schemaVersion`; fields are only
 * ever added within a version. Documented as a JSON Schema in schemas/report.schema.json.
 *
 * Version 2 (issue 9): every rate carries its error share; validators carry errorBounds (errors counted as
 * failures and as passes), maxErrorShare, reason, toDecide (replacing samplesToDecide) and, in a
 * sequential run, where and why they stopped; the verdict may be `error`; pooled rates give the number of
 * outputs and the effective sample size behind their interval; the default interval is Clopper–Pearson.
 * Added within version 2 (issue 16): per rule, `figure` (which figure its verdict rests on: "corrected by 57
 * grades", "judge's rate · judge not checked against people"), and for a rule with people's grades `alignment`,
 * `corrected`, `grading` and, when inconclusive, `gradesToDecide`. `rate` and `ci` stay the rule's own.
 * Added within version 2 (issue 19): per rule with `perInput: { minSuccess }`, `perInput` (each input's verdict
 * against the floor, Holm over the inputs, and the failing inputs' indices into `inputs`); the rule's `verdict`
 * and `reason` then include it.
 * Added within version 2 (issue 25): per rule with `passK: { k, minSuccess? }`, `passK` (pass^k and pass@k over the
 * inputs with betting intervals, each input's unbiased estimates with exact intervals, and the gate's verdict); and
 * `stats.agent` when the system's outputs came with their steps (steps, tool calls per tool, tool errors).
 * Added within version 2 (issue 29): per rule, `population` (the rate for the input population, the input as the
 * unit: rate, low, high, method, level, inputs, leftOut, effectiveN, icc, designEffect) beside `rate` and `ci`
 * (the inputs run), and `options.estimand` (which of the two the verdicts are about).
 */
export const REPORT_SCHEMA_VERSION = 2;

/** A rate in the report is the summary's own: pass / (pass + fail), its interval, its counts and error share. */
export type JsonRate = RateWithCI;
/** A pooled rate (IRP, ORP, all outputs): also its outputs and effective sample size. */
export type JsonPooledRate = PooledRate;
/** toDecide with JSON's limits: `outputs` null when no number of outputs decides it (Infinity). */
export type JsonValidator = Omit<ValidatorSummary, 'toDecide' | 'grading'> & {
  toDecide?: { outputs: number | null; probability: number };
  /** How the verdict was decided: `point` (rate ≥ minSuccess, no interval) or `confident` (bounds; sequential runs too). */
  verdictMode: SummaryOptions['verdict'];
  /** A rule with grades: its confusion matrix against people, TPR and TNR with exact intervals, agreement, Cohen's κ. */
  alignment?: Alignment;
  /** A rule with grades: its rate corrected by them (null when they did not correct it: `figure` says why). */
  corrected?: CorrectedRate | null;
  /** A rule with grades: how many, and what a reader must know about them; the disagreements with the judge's reasons. */
  grading?: Omit<GradingSummary, 'alignment' | 'corrected'>;
  /** Where grades corrected the rate: whose verdicts the counts are ("judge's verdicts"); the rate is the corrected one. */
  countsOf?: string;
};

export interface JsonReport {
  schemaVersion: 2;
  runId: string;
  name: string;
  status: RunStatus;
  system: string;
  createdAt: string;
  finishedAt?: string;
  configPath?: string;
  design: { N: number; M: number; K: number };
  options: SummaryOptions;
  /** pass if every validator passes; fail if any fails; else inconclusive. */
  verdict: Verdict;
  /** Whether the run's verdicts let CI pass (the exit code is 0 exactly when this is true and the run finished). */
  passed: boolean;
  /**
   * Verifiers carry `costUsd`: what their judge's priced calls cost (and so does a check that calls a judge, e.g. grounded).
   * A grounded rule whose claims people graded (`assay audits import --run`) carries `claimGrading`: each batch's
   * summary (assay-grounding-grading/1), newest first.
   */
  validators: (JsonValidator & { costUsd?: number; claimGrading?: AuditSummary[] })[];
  /** IRP: one entry per input i, with the input itself. */
  inputs: (InputSummary & { input?: InputValue })[];
  /** ORP: one entry per iteration j. */
  iterations: IterationSummary[];
  allOutputs: JsonPooledRate;
  allPass: JsonRate;
  /** `of`: present when a rule's rate was corrected by grades — the aggregates are of the verdicts as given. */
  overall: RunSummary['overall'] & { of?: string };
  /** stopping: sequential — samples per input run before every validator was decided (or all of them). */
  stoppedAfter?: number;
  stats?: RunStats;
}

function gradingJson(g: GradingSummary): Pick<JsonValidator, 'alignment' | 'corrected' | 'grading'> {
  const { alignment, corrected, ...rest } = g;
  return { alignment, corrected, grading: rest };
}

const rate = (r: RateWithCI): JsonRate => ({ rate: r.rate, ci: r.ci, counts: r.counts, errorShare: r.errorShare });
const pooled = (r: PooledRate): JsonPooledRate => ({ ...rate(r), outputs: r.outputs, effectiveN: r.effectiveN });

export function buildJsonReport(summary: RunSummary, meta: ReportMeta): JsonReport {
  const allow = meta.allowInconclusive ?? false;
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    runId: meta.runId,
    name: meta.name,
    status: meta.status,
    system: meta.systemId,
    createdAt: meta.createdAt,
    ...(meta.finishedAt !== undefined ? { finishedAt: meta.finishedAt } : {}),
    ...(meta.configPath !== undefined ? { configPath: meta.configPath } : {}),
    design: { N: summary.N, M: summary.M, K: summary.K },
    options: summary.options,
    verdict: summary.verdict,
    passed: meta.status !== 'interrupted' && summary.validators.every((v) => verdictPasses(v.verdict, allow)),
    validators: summary.validators.map((v) => ({
      k: v.k,
      name: v.name,
      message: v.message,
      kind: v.kind,
      minSuccess: v.minSuccess,
      weight: v.weight,
      maxErrorShare: v.maxErrorShare,
      ...rate(v),
      errorBounds: v.errorBounds,
      verdict: v.verdict,
      verdictMode: summary.options.verdict,
      reason: v.reason,
      ...(v.toDecide !== undefined
        ? { toDecide: { outputs: Number.isFinite(v.toDecide.outputs) ? v.toDecide.outputs : null, probability: v.toDecide.probability } }
        : {}),
      ...(v.population !== undefined ? { population: v.population } : {}),
      ...(v.sequential !== undefined ? { sequential: v.sequential } : {}),
      ...(v.figure !== undefined ? { figure: v.figure } : {}),
      // Where grades corrected the rate, whose the counts beside it are (one label: grading-text.ts).
      ...(countsWhose(v) ? { countsOf: countsWhose(v).replace(/: $/, '') } : {}),
      ...(v.grading ? gradingJson(v.grading) : {}),
      ...(v.gradesToDecide !== undefined ? { gradesToDecide: v.gradesToDecide } : {}),
      ...(v.perInput ? { perInput: v.perInput } : {}),
      ...(v.passK ? { passK: v.passK } : {}),
      // a verifier's judge, or a rule whose check calls one (grounded with a judge)
      ...(meta.stats?.checkCostUsd?.[v.k] !== undefined && (v.kind === 'verifier' || meta.stats.checkCostUsd[v.k] > 0)
        ? { costUsd: meta.stats.checkCostUsd[v.k] }
        : {}),
      ...(meta.claimGrading?.some((g) => g.run?.rule === v.name) ? { claimGrading: meta.claimGrading.filter((g) => g.run?.rule === v.name) } : {}),
    })),
    inputs: summary.inputs.map((s) => ({
      i: s.i,
      ...(meta.inputs?.[s.i] !== undefined ? { input: meta.inputs[s.i] } : {}),
      ...pooled(s),
      allPass: rate(s.allPass),
      perValidator: s.perValidator.map(rate),
    })),
    iterations: summary.iterations.map((s) => ({ j: s.j, ...pooled(s) })),
    allOutputs: pooled(summary.allOutputs),
    allPass: rate(summary.allPass),
    overall: { ...summary.overall, ...(aggregatesWhose(summary.validators) ? { of: aggregatesWhose(summary.validators) } : {}) },
    ...(summary.stoppedAfter !== undefined ? { stoppedAfter: summary.stoppedAfter } : {}),
    ...(meta.stats ? { stats: meta.stats } : {}),
  };
}

export function renderJsonReport(summary: RunSummary, meta: ReportMeta): string {
  return JSON.stringify(buildJsonReport(summary, meta), null, 2) + '\n';
}

export async function writeJsonReport(path: string, summary: RunSummary, meta: ReportMeta): Promise<void> {
  await writeFile(path, renderJsonReport(summary, meta));
}
