import { fitLogistic, groupFolds, predictLogistic, type LogisticModel } from './logistic.js';

/**
 * Fitting and grouped cross-validation of the learned claim detector (run by bench/fit-detector.ts on the
 * dev/calibration splits only). Pure. A claim whose details fail the detail check is unsupported by rule,
 * as in the product (claimStatus); the model scores the others, and an item's score is an aggregate of its
 * claims' probabilities of being unsupported. Each dataset weighs the same in the fit and in the threshold.
 */

export interface FitClaim {
  /** Features in FEATURE_NAMES order. */
  x: number[];
  /** The detail check made the claim UNSUPPORTED or CONTRADICTED. */
  hard: boolean;
  /** … CONTRADICTED. */
  contradicted: boolean;
}

export interface FitItem {
  id: string;
  dataset: string;
  /** Items of one group (a WiCE claim's id, a FaithBench source) always share a fold. */
  group: string;
  unsupported: boolean;
  claims: FitClaim[];
}

export interface DetectorConfig {
  /** Indices into FEATURE_NAMES. */
  features: number[];
  lambda: number;
  /** Item score from its claims: the worst claim (as effective support = min claim support) or their mean. */
  aggregate: 'max' | 'mean';
  /**
   * What the detail check decides by rule: 'all' (as now: a missing or contradicted detail makes the claim
   * unsupported) or 'contradicted' (only a contradiction; missing details become a feature of the model).
   */
  rule?: 'all' | 'contradicted';
}

const ruled = (c: FitClaim, config: DetectorConfig) => ((config.rule ?? 'all') === 'all' ? c.hard : c.contradicted);

export interface Fitted {
  config: DetectorConfig;
  model: LogisticModel;
}

const pick = (x: number[], idx: number[]) => idx.map((j) => x[j]);

export function fitDetector(items: readonly FitItem[], config: DetectorConfig): Fitted {
  const perDataset = new Map<string, number>();
  for (const it of items) perDataset.set(it.dataset, (perDataset.get(it.dataset) ?? 0) + 1);
  const X: number[][] = [];
  const y: boolean[] = [];
  const w: number[] = [];
  for (const it of items) {
    if (it.claims.some((c) => ruled(c, config))) continue; // decided by rule, not by the model
    for (const c of it.claims) {
      X.push(pick(c.x, config.features));
      y.push(it.unsupported);
      w.push(1 / (it.claims.length * (perDataset.get(it.dataset) as number)));
    }
  }
  const mean = w.reduce((a, b) => a + b, 0) / w.length;
  return {
    config,
    model: fitLogistic(
      X,
      y,
      config.lambda,
      w.map((v) => v / mean),
    ),
  };
}

/** An item's score: +∞ when a claim fails the detail check, else the aggregate of its claims' P(unsupported). */
export function itemScore(f: Fitted, item: FitItem): number {
  if (item.claims.some((c) => ruled(c, f.config))) return Infinity;
  const p = item.claims.map((c) => predictLogistic(f.model, pick(c.x, f.config.features)));
  return f.config.aggregate === 'max' ? Math.max(...p) : p.reduce((a, b) => a + b, 0) / p.length;
}

/** Balanced accuracy of "unsupported when score > t". */
export function balancedAccuracy(scores: readonly number[], gold: readonly boolean[], t: number): number {
  let tp = 0;
  let fn = 0;
  let tn = 0;
  let fp = 0;
  scores.forEach((s, i) => {
    const flagged = s > t;
    if (gold[i] && flagged) tp++;
    else if (gold[i]) fn++;
    else if (flagged) fp++;
    else tn++;
  });
  return ((tp + fn ? tp / (tp + fn) : 0) + (tn + fp ? tn / (tn + fp) : 0)) / 2;
}

/** Mean over datasets of their balanced accuracies (each dataset counts once). */
export function meanBalancedAccuracy(items: readonly FitItem[], scores: readonly number[], t: number): number {
  const sets = [...new Set(items.map((i) => i.dataset))];
  const bas = sets.map((d) => {
    const idx = items.map((it, i) => (it.dataset === d ? i : -1)).filter((i) => i >= 0);
    return balancedAccuracy(
      idx.map((i) => scores[i]),
      idx.map((i) => items[i].unsupported),
      t,
    );
  });
  return bas.reduce((a, b) => a + b, 0) / bas.length;
}

/** The threshold maximising the mean balanced accuracy (midpoints of the sorted distinct finite scores). */
export function fitItemThreshold(items: readonly FitItem[], scores: readonly number[]): number {
  const finite = [...new Set(scores.filter(Number.isFinite))].sort((a, b) => a - b);
  const candidates = [-Infinity, ...finite.map((x, i) => (i + 1 < finite.length ? (x + finite[i + 1]) / 2 : x + 1e-9))];
  let best = { t: 0.5, ba: -1 };
  for (const t of candidates) {
    const ba = meanBalancedAccuracy(items, scores, t);
    if (ba > best.ba) best = { t, ba };
  }
  return best.t;
}

/** Out-of-fold item scores: each fold scored by a model fitted on the other folds. */
export function outOfFoldScores(items: readonly FitItem[], config: DetectorConfig, folds: readonly number[], k: number): number[] {
  const out = new Array<number>(items.length).fill(NaN);
  for (let f = 0; f < k; f++) {
    const fitted = fitDetector(
      items.filter((_, i) => folds[i] !== f),
      config,
    );
    items.forEach((it, i) => {
      if (folds[i] === f) out[i] = itemScore(fitted, it);
    });
  }
  return out;
}

export interface Selection {
  config: DetectorConfig;
  /** Threshold fitted on the chosen config's out-of-fold scores. */
  threshold: number;
  /** Its mean balanced accuracy at that threshold (optimistic: threshold and config chosen on the same scores). */
  cv: number;
}

/** Grouped k-fold CV over a grid of configs: the one with the best out-of-fold mean balanced accuracy. */
export function selectConfig(items: readonly FitItem[], grid: readonly DetectorConfig[], k: number, rnd: () => number): Selection {
  const folds = groupFolds(
    items.map((i) => i.group),
    k,
    rnd,
  );
  let best: Selection | undefined;
  for (const config of grid) {
    const oof = outOfFoldScores(items, config, folds, k);
    const threshold = fitItemThreshold(items, oof);
    const cv = meanBalancedAccuracy(items, oof, threshold);
    if (!best || cv > best.cv) best = { config, threshold, cv };
  }
  return best as Selection;
}
