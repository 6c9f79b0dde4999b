import type { SummaryOptions } from './summary-types.js';

/** Summary options of an experiment (its config keys interval, confidence, verdict, aggregate, maxErrorShare, stopping). */
export function summaryOptionsOf(
  x:
    | { interval?: unknown; confidence?: unknown; verdict?: unknown; aggregate?: unknown; maxErrorShare?: unknown; stopping?: unknown; estimand?: unknown }
    | null
    | undefined,
): Partial<SummaryOptions> {
  const o: Partial<SummaryOptions> = {};
  if (!x || typeof x !== 'object') return o;
  if (x.interval === 'wilson' || x.interval === 'clopper-pearson' || x.interval === 'wald') o.interval = x.interval;
  if (typeof x.confidence === 'number' && x.confidence > 0 && x.confidence < 1) o.level = x.confidence;
  if (x.verdict === 'point' || x.verdict === 'confident') o.verdict = x.verdict;
  if (x.aggregate === 'mean' || x.aggregate === 'weighted' || x.aggregate === 'min') o.aggregate = x.aggregate;
  if (typeof x.maxErrorShare === 'number' && x.maxErrorShare >= 0 && x.maxErrorShare <= 1) o.maxErrorShare = x.maxErrorShare;
  if (x.estimand === 'inputs' || x.estimand === 'population') o.estimand = x.estimand;
  // A sequential run is always read as one: its verdicts were decided by the sequence, whatever else is stored.
  if (x.stopping === 'sequential') {
    o.stopping = 'sequential';
    o.verdict = 'confident';
  }
  return o;
}
