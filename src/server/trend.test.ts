import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import type { Estimand } from '../core/summary-types.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { RunRecord } from '../store/types.js';
import { buildTrend } from './trend.js';

// Two runs of one experiment, 10 inputs × 20 samples: in the second, input 0 breaks (always fails).
const inputs = Array.from({ length: 10 }, (_, i) => `q${i}`);
function stored(id: string, broken: boolean, estimand: Estimand) {
  const t = new ReliabilityTensor(10, 20, 1);
  for (let i = 0; i < 10; i++) for (let j = 0; j < 20; j++) t.set(i, j, 0, broken && i === 0 ? Outcome.FAIL : Outcome.PASS);
  const summary = summarize(t, [{ name: 'v', message: 'v', minSuccess: 0.5, weight: 1, kind: 'validator' }], { estimand });
  const run = { id, name: 'e', createdAt: `2026-01-0${id}T00:00:00Z`, status: 'complete', inputs } as unknown as RunRecord;
  return { run, summary };
}

describe('buildTrend: each entry says which claim it shows', () => {
  it('inputs run: the cell test flags the break; the population figure rides beside it', () => {
    const [first, second] = buildTrend('e', [stored('1', false, 'inputs'), stored('2', true, 'inputs')]).validators[0].entries;
    expect(first).toMatchObject({ estimand: 'inputs', rate: 1 });
    expect(second.change).toMatchObject({ direction: 'worse', significant: true });
    expect(second.population!.rate).toBeCloseTo(0.9, 12);
  });

  it('population: the interval shown is the population one and the change is paired by input (one input of ten is not the population)', () => {
    const [, second] = buildTrend('e', [stored('1', false, 'population'), stored('2', true, 'population')]).validators[0].entries;
    expect(second.estimand).toBe('population');
    expect(second.low).toBeCloseTo(second.population!.low, 12);
    expect(second.change).toMatchObject({ direction: 'unchanged', test: null, pValue: null });
    expect(second.change!.diff).toBeCloseTo(-0.1, 12);
  });
});
