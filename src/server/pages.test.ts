import { describe, expect, it } from 'vitest';
import type { RunListItem } from './data.js';
import { runsListBody } from './pages.js';

// The runs list's overall rate is of the verdicts as given; beside a rule whose rate grades corrected, it says so
// (issue 26, item 5: one number, one label).
const item = (corrected?: number): RunListItem => ({
  id: 'r1',
  name: 'bot',
  createdAt: '2026-11-28T09:00:00.000Z',
  status: 'complete',
  shape: { N: 40, M: 3, K: 1 },
  verdict: 'fail',
  verdictMode: 'confident',
  overall: { method: 'mean', value: 0.675, mean: 0.675, weighted: 0.675, min: 0.675, errorShare: 0 },
  allPass: 0.675,
  allPassErrorShare: 0,
  validators: [
    { name: 'polite', rate: 0.675, verdict: 'fail', errorShare: 0, ...(corrected !== undefined ? { corrected, figure: 'corrected by 21 grades' } : {}) },
  ],
});

describe('the runs list', () => {
  it('labels the overall rate of a run with a corrected rule as the verdicts as given', () => {
    const html = runsListBody([item(0.838)], undefined, new Map());
    expect(html).toContain('67.5%<br><span class="muted">of the verdicts as given, not the rate corrected by grades</span>');
    expect(html).toContain('polite 83.8%');
  });

  it('says nothing more where no rate was corrected', () => {
    expect(runsListBody([item()], undefined, new Map())).not.toContain('verdicts as given');
  });
});
