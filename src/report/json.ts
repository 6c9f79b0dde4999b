import { writeFile } from 'node:fs/promises';
import type { InputSummary, IterationSummary, RateWithCI, RunSummary, SummaryOptions, ValidatorSummary, Verdict } from '../core/summary-types.js';
import type { InputValue } from '../core/validator.js';
import type { RunStats } from '../run/stats.js';
import type { RunStatus } from '../store/types.js';
import type { ReportMeta } from './meta.js';

/**
 * The machine-readable report (`--json`). Versioned: a consumer checks `schemaVersion`; fields are only
 * ever added within a version. Documented as a JSON Schema in schemas/report.schema.json.
 */
export const REPORT_SCHEMA_VERSION = 1;

/** A rate in the report is the summary's own: pass / (pass + fail), its interval and its counts. */
export type JsonRate = RateWithCI;

export interface JsonReport {
  schemaVersion: 1;
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
  /** Verifiers carry `costUsd`: what their judge's priced calls cost. */
  validators: (ValidatorSummary & { costUsd?: number })[];
  /** IRP: one entry per input i, with the input itself. */
  inputs: (InputSummary & { input?: InputValue })[];
  /** ORP: one entry per iteration j. */
  iterations: IterationSummary[];
  allOutputs: JsonRate;
  allPass: JsonRate;
  overall: RunSummary['overall'];
  stats?: RunStats;
}

const rate = (r: RateWithCI): JsonRate => ({ rate: r.rate, ci: r.ci, counts: r.counts });

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
    passed: meta.status !== 'interrupted' && summary.validators.every((v) => v.verdict === 'pass' || (allow && v.verdict === 'inconclusive')),
    validators: summary.validators.map((v) => ({
      k: v.k,
      name: v.name,
      message: v.message,
      kind: v.kind,
      minSuccess: v.minSuccess,
      weight: v.weight,
      ...rate(v),
      verdict: v.verdict,
      ...(v.samplesToDecide !== undefined ? { samplesToDecide: v.samplesToDecide } : {}),
      ...(v.kind === 'verifier' && meta.stats?.checkCostUsd?.[v.k] !== undefined ? { costUsd: meta.stats.checkCostUsd[v.k] } : {}),
    })),
    inputs: summary.inputs.map((s) => ({
      i: s.i,
      ...(meta.inputs?.[s.i] !== undefined ? { input: meta.inputs[s.i] } : {}),
      ...rate(s),
      allPass: rate(s.allPass),
      perValidator: s.perValidator.map(rate),
    })),
    iterations: summary.iterations.map((s) => ({ j: s.j, ...rate(s) })),
    allOutputs: rate(summary.allOutputs),
    allPass: rate(summary.allPass),
    overall: summary.overall,
    ...(meta.stats ? { stats: meta.stats } : {}),
  };
}

export function renderJsonReport(summary: RunSummary, meta: ReportMeta): string {
  return JSON.stringify(buildJsonReport(summary, meta), null, 2) + '\n';
}

export async function writeJsonReport(path: string, summary: RunSummary, meta: ReportMeta): Promise<void> {
  await writeFile(path, renderJsonReport(summary, meta));
}
