import { describe, expect, it } from 'vitest';
import type { RunStats } from '../run/stats.js';
import { costSummary } from './cost.js';

// Issue 26 leftover: assay/vitest leaves a pure replay (every answer from the cache) out of the store; `assay run
// --cache` keeps it (its id is what reports, `assay show` and --resume take), so every report marks it as one.
const stats = (samples: number, cachedSamples: number) => ({ samples, cachedSamples, costUsd: 0, unpricedCalls: 0 }) as unknown as RunStats;
const columns = [{ name: 'short' }, { name: 'polite', kind: 'verifier' }];

describe('costSummary: the cache part', () => {
  it('marks a run whose every sample came from the cache as a replay, not new evidence', () => {
    expect(costSummary(stats(4, 4), columns)).toBe('4 of 4 samples from the cache (8 cells): every answer replayed, no new draw of the system');
  });

  it('counts a partly cached run without calling it a replay', () => {
    expect(costSummary(stats(4, 3), columns)).toBe('3 of 4 samples from the cache (6 cells)');
    expect(costSummary(stats(4, 0), columns)).toBeUndefined();
  });
});
