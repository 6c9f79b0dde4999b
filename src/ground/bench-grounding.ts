import type { KbEmbedder } from './embedders/spec.js';
import { loadFaithBench, loadWice, scoreItems, type EvalItem } from './eval.js';
import { detectionMetrics, fitThreshold, type DetectionMetrics } from './metrics.js';
import type { DetailMode } from './score.js';

/**
 * `assay bench grounding`: unsupported-claim detection on WiCE or FaithBench. Thresholds are fitted on
 * the calibration split only and every figure is reported on the test split. Three variants show the
 * levers: the embedder's default threshold without the detail check (before), calibration alone, and
 * calibration with the numbers/dates/names check (after).
 */

export interface VariantResult {
  name: string;
  details: DetailMode;
  calibrated: boolean;
  thresholds: { weak: number; source: string };
  calibration_balanced_accuracy?: number;
  test: DetectionMetrics;
}

export interface GroundingBenchResult {
  dataset: string;
  embedder: string;
  splits: { calibration: number; test: number; rule: string };
  variants: VariantResult[];
}

export async function loadDataset(dataset: string, dir: string): Promise<{ items: EvalItem[]; rule: string }> {
  if (dataset === 'wice') return { items: await loadWice(dir), rule: 'calibrate on oracle_chunks/claim/dev.jsonl, report on test.jsonl (claims grouped by meta.id)' };
  return { items: await loadFaithBench(dir), rule: 'sources sorted by sha256("faithbench:" + source); first 60% calibrate, the rest test' };
}

export async function runGroundingBench(dataset: 'wice' | 'faithbench', dir: string, embedder: KbEmbedder, opts: { limit?: number; detailScope?: 'window' | 'chunk' } = {}): Promise<GroundingBenchResult> {
  const { items, rule } = await loadDataset(dataset, dir);
  const calib = items.filter((i) => i.split === 'calibration').slice(0, opts.limit);
  const test = items.filter((i) => i.split === 'test').slice(0, opts.limit);
  const variants: VariantResult[] = [];
  for (const details of ['off', 'count'] as const) {
    const c = await scoreItems(calib, embedder, { details, detailScope: opts.detailScope });
    const t = await scoreItems(test, embedder, { details, detailScope: opts.detailScope });
    const gold = t.map((s) => s.unsupported);
    const scores = t.map((s) => s.effective);
    if (details === 'off') {
      const w = embedder.thresholds.weak;
      variants.push({ name: 'before: default threshold, no detail check', details, calibrated: false, thresholds: { weak: w, source: 'embedder default' }, test: detectionMetrics(scores, gold, w) });
    }
    const fit = fitThreshold(c.map((s) => s.effective), c.map((s) => s.unsupported));
    variants.push({
      name: details === 'off' ? 'calibrated threshold, no detail check' : 'after: calibrated threshold + detail check',
      details,
      calibrated: true,
      thresholds: { weak: fit.threshold, source: 'fitted on the calibration split' },
      calibration_balanced_accuracy: fit.balanced_accuracy,
      test: detectionMetrics(scores, gold, fit.threshold),
    });
  }
  return { dataset, embedder: embedder.id, splits: { calibration: calib.length, test: test.length, rule }, variants };
}
