import type { KbEmbedder } from '../embedders/spec.js';
import type { ClaimChecker } from '../checkers/types.js';
import { loadFaithBench, loadWice, scoreItems, type EvalItem, type ItemScore } from './eval.js';
import { detectionMetrics, fitThreshold, type DetectionMetrics } from './metrics.js';
import type { DetailMode } from '../score.js';

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
  /** The claim checker that read each claim too (its id), when one was given. */
  checker?: string;
  /** Items the checker could not decide, per split: left out of the figures. */
  errors?: { calibration: number; test: number };
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

export async function loadDataset(dataset: string, dir: string, splits?: readonly EvalItem['split'][]): Promise<{ items: EvalItem[]; rule: string }> {
  if (dataset === 'wice')
    return { items: await loadWice(dir, splits), rule: 'calibrate on oracle_chunks/claim/dev.jsonl, report on test.jsonl (claims grouped by meta.id)' };
  return { items: await loadFaithBench(dir), rule: 'sources sorted by sha256("faithbench:" + source); first 60% calibrate, the rest test' };
}

export async function runGroundingBench(
  dataset: 'wice' | 'faithbench',
  dir: string,
  embedder: KbEmbedder,
  opts: { limit?: number; detailScope?: 'window' | 'chunk'; checker?: ClaimChecker } = {},
): Promise<GroundingBenchResult> {
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
      variants.push({
        name: 'before: default threshold, no detail check',
        details,
        calibrated: false,
        thresholds: { weak: w, source: 'embedder default' },
        test: detectionMetrics(scores, gold, w),
      });
    }
    const fit = fitThreshold(
      c.map((s) => s.effective),
      c.map((s) => s.unsupported),
    );
    variants.push({
      name: details === 'off' ? 'calibrated threshold, no detail check' : 'after: calibrated threshold + detail check',
      details,
      calibrated: true,
      thresholds: { weak: fit.threshold, source: 'fitted on the calibration split' },
      calibration_balanced_accuracy: fit.balanced_accuracy,
      test: detectionMetrics(scores, gold, fit.threshold),
    });
  }
  if (opts.checker) {
    // the same measure with the checker's verdict in the one status function (calibrated on the calibration split)
    const c = await scoreItems(calib, embedder, { details: 'count', detailScope: opts.detailScope, checker: opts.checker });
    const t = await scoreItems(test, embedder, { details: 'count', detailScope: opts.detailScope, checker: opts.checker });
    const ok = (s: ItemScore) => s.error === undefined;
    const fit = fitThreshold(
      c.filter(ok).map((s) => s.effective),
      c.filter(ok).map((s) => s.unsupported),
    );
    variants.push({
      name: `after + claim checker ${opts.checker.id}`,
      details: 'count',
      calibrated: true,
      checker: opts.checker.id,
      errors: { calibration: c.length - c.filter(ok).length, test: t.length - t.filter(ok).length },
      thresholds: { weak: fit.threshold, source: 'fitted on the calibration split' },
      calibration_balanced_accuracy: fit.balanced_accuracy,
      test: detectionMetrics(
        t.filter(ok).map((s) => s.effective),
        t.filter(ok).map((s) => s.unsupported),
        fit.threshold,
      ),
    });
  }
  return { dataset, embedder: embedder.id, splits: { calibration: calib.length, test: test.length, rule }, variants };
}

export interface CrossValidation {
  dataset: string;
  embedder: string;
  /** Items of the calibration split (the test split is never read). */
  n: number;
  folds: number;
  variants: { details: DetailMode; balanced_accuracy: number; per_fold: number[]; thresholds: number[] }[];
}

/**
 * k-fold cross-validation inside the calibration split, for tuning without touching the test split:
 * each fold's threshold is fitted on the other folds. Items sharing a document (FaithBench: one source,
 * ten summaries) stay in one fold.
 */
export async function crossValidateGrounding(dataset: 'wice' | 'faithbench', dir: string, embedder: KbEmbedder, folds = 5): Promise<CrossValidation> {
  const { items } = await loadDataset(dataset, dir, ['calibration']);
  const calib = items.filter((i) => i.split === 'calibration');
  const groupOf = new Map(calib.map((it) => [it.id, it.documents.join('\u0000')]));
  const groups = [...new Set(groupOf.values())];
  const foldOf = new Map(groups.map((g, k) => [g, k % folds]));
  const variants: CrossValidation['variants'] = [];
  for (const details of ['off', 'count'] as const) {
    const scores = await scoreItems(calib, embedder, { details });
    const per_fold: number[] = [];
    const thresholds: number[] = [];
    for (let f = 0; f < folds; f++) {
      const inFold = scores.map((s) => foldOf.get(groupOf.get(s.id) as string) === f);
      const train = scores.filter((_, i) => !inFold[i]);
      const held = scores.filter((_, i) => inFold[i]);
      const fit = fitThreshold(
        train.map((s) => s.effective),
        train.map((s) => s.unsupported),
      );
      thresholds.push(fit.threshold);
      per_fold.push(
        detectionMetrics(
          held.map((s) => s.effective),
          held.map((s) => s.unsupported),
          fit.threshold,
          0,
        ).balanced_accuracy.value,
      );
    }
    variants.push({ details, balanced_accuracy: per_fold.reduce((a, b) => a + b, 0) / folds, per_fold, thresholds });
  }
  return { dataset, embedder: embedder.id, n: calib.length, folds, variants };
}
