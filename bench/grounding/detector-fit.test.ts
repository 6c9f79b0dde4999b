import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/prng.js';
import { balancedAccuracy, fitDetector, itemScore, outOfFoldScores, selectConfig, type DetectorConfig, type FitItem } from './detector-fit.js';
import { groupFolds } from './logistic.js';

/** Seeded simulation: feature 0 carries the label (logistic, slope 4), feature 1 is noise; groups of 1–3 items. */
function simulate(n: number, seed: number): FitItem[] {
  const rnd = mulberry32(seed);
  const items: FitItem[] = [];
  for (let i = 0; i < n; i++) {
    const signal = rnd() * 2 - 1;
    const unsupported = rnd() < 1 / (1 + Math.exp(-4 * signal));
    items.push({
      id: `i${i}`,
      dataset: i % 2 ? 'a' : 'b',
      group: `g${Math.floor(i / (1 + (i % 3)))}`,
      unsupported,
      claims: [{ x: [signal, rnd()], hard: false, contradicted: false }],
    });
  }
  return items;
}

describe('learned detector fitting', () => {
  it('scores every held-out item with a model fitted without its group', () => {
    const items = simulate(120, 7);
    const folds = groupFolds(
      items.map((i) => i.group),
      4,
      mulberry32(1),
    );
    const config: DetectorConfig = { features: [0, 1], lambda: 1, aggregate: 'max' };
    const oof = outOfFoldScores(items, config, folds, 4);
    for (let f = 0; f < 4; f++) {
      const train = items.filter((_, i) => folds[i] !== f);
      const heldGroups = new Set(items.filter((_, i) => folds[i] === f).map((i) => i.group));
      expect(train.some((t) => heldGroups.has(t.group))).toBe(false);
      const fitted = fitDetector(train, config);
      items.forEach((it, i) => {
        if (folds[i] === f) expect(oof[i]).toBe(itemScore(fitted, it));
      });
    }
  });

  it('chooses the informative feature over noise and detects well out of fold', () => {
    const items = simulate(400, 11);
    const grid: DetectorConfig[] = [
      { features: [1], lambda: 1, aggregate: 'max' },
      { features: [0], lambda: 1, aggregate: 'max' },
    ];
    const sel = selectConfig(items, grid, 5, mulberry32(2));
    expect(sel.config.features).toEqual([0]);
    expect(sel.cv).toBeGreaterThan(0.7);
    const fresh = simulate(400, 12);
    const fitted = fitDetector(items, sel.config);
    const ba = balancedAccuracy(
      fresh.map((i) => itemScore(fitted, i)),
      fresh.map((i) => i.unsupported),
      sel.threshold,
    );
    expect(ba).toBeGreaterThan(0.7);
  });

  it('leaves a claim failing the detail check to the rule', () => {
    const items = simulate(60, 3);
    const fitted = fitDetector(items, { features: [0], lambda: 1, aggregate: 'mean' });
    const ruled: FitItem = { ...items[0], claims: [...items[0].claims, { x: [-1, 0], hard: true, contradicted: false }] };
    expect(itemScore(fitted, ruled)).toBe(Infinity);
    expect(itemScore({ ...fitted, config: { ...fitted.config, rule: 'contradicted' } }, ruled)).toBeLessThan(1);
  });
});
