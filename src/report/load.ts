import { runAuditSummaries } from '../grades/audits.js';
import type { RunSummary, SummaryOptions } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { UsageError } from '../errors.js';
import { loadGrading } from '../grades/load.js';
import { summarizeRun } from '../core/decision.js';
import { computeStats } from '../run/stats.js';
import type { RunRecord, Store } from '../store/types.js';
import { reportMeta, type ReportMeta } from './meta.js';
import { assayCommandLine } from '../invocation.js';

export interface StoredRunReport {
  run: RunRecord;
  tensor: ReliabilityTensor;
  summary: RunSummary;
  meta: ReportMeta;
}

/**
 * A stored run read back into the report spine (`assay show`, `assay runs`, the dashboard): its tensor,
 * summarised by the decision parameters stored with it (core/decision.ts), and its metadata. `withStats` also reads every
 * sample for the operational figures (tokens, latency, retries). People's grades of its outputs (docs/judges.md)
 * check its rules against people and correct their rates.
 */
export async function loadStoredRun(
  store: Store,
  runId: string,
  opts: { withStats?: boolean; allowInconclusive?: boolean; options?: Partial<SummaryOptions>; store?: string; withClaimGrading?: boolean } = {},
): Promise<StoredRunReport> {
  const run = await store.runs.get(runId);
  if (!run) throw new UsageError(`no run with id "${runId}" in the store (list them with: ${assayCommandLine('runs')})`);
  const tensor = await store.samples.tensor(runId);
  // Grades given after the run count too: `assay show` reflects them.
  const summary = summarizeRun(run, tensor, opts.options, await loadGrading(store, run));
  const stats = opts.withStats ? computeStats(await store.samples.list(runId)) : undefined;
  const meta = reportMeta(run, stats, {
    ...(opts.allowInconclusive !== undefined ? { allowInconclusive: opts.allowInconclusive } : {}),
    ...(opts.store !== undefined ? { store: opts.store } : {}),
  });
  // People's grades of its grounded rules' claims (assay audits import --run), when asked (assay show).
  const claimGrading = opts.withClaimGrading ? await runAuditSummaries(store, runId) : [];
  return { run, tensor, summary, meta: claimGrading.length ? { ...meta, claimGrading } : meta };
}
