import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue } from '../core/validator.js';
import type { RunRecord } from '../store/types.js';
import { compareRuns } from './compare.js';

const { PASS, FAIL, ERROR } = Outcome;

function make(id: string, inputs: InputValue[], M: number, names: string[], cell: (i: number, j: number, k: number) => OutcomeCode) {
  const t = new ReliabilityTensor(inputs.length, M, names.length);
  for (let i = 0; i < inputs.length; i++) for (let j = 0; j < M; j++) for (let k = 0; k < names.length; k++) t.set(i, j, k, cell(i, j, k));
  const run: RunRecord = {
    id,
    name: 'exp',
    config: {},
    inputs,
    samples: M,
    validators: names.map((name) => ({ name, message: name, minSuccess: 0.5, weight: 1, kind: 'validator' as const })),
    systemId: 's',
    status: 'complete',
    createdAt: `2026-01-0${id === 'A' ? 1 : 2}T00:00:00Z`,
    N: inputs.length,
    M,
    K: names.length,
  };
  return { run, t };
}

describe('compareRuns', () => {
  it('Fisher on [[3,1],[1,3]]: p = 0.4857 (hand: (1 + 16 + 16 + 1)/70), not significant', () => {
    // One input, 4 samples: A passes 3 of 4, B passes 1 of 4.
    const a = make('A', ['x'], 4, ['v'], (_i, j) => (j < 3 ? PASS : FAIL));
    const b = make('B', ['x'], 4, ['v'], (_i, j) => (j < 1 ? PASS : FAIL));
    const c = compareRuns(a.run, a.t, b.run, b.t);
    const v = c.validators[0];
    expect(v.test).toBe('fisher');
    // Tables with 4 passes in total: x ∈ 0..4 with weights C(4,x)·C(4,4−x) = 1, 16, 36, 16, 1 (sum 70);
    // the observed x = 3 has weight 16; tables no more likely: 1 + 16 + 16 + 1 = 34 → p = 34/70.
    expect(v.pValue).toBeCloseTo(34 / 70, 12);
    expect(v.diff).toBeCloseTo(-0.5, 12);
    expect(v.significant).toBe(false);
    expect(c.regressions).toEqual([]);
  });

  it('excludes errors from the counts, matches validators by name and inputs by content', () => {
    // A: inputs p, q; validators keep, dropped. B: inputs q, r (reordered, one new); validators added, keep.
    const a = make('A', ['p', { k: 'q' }], 2, ['keep', 'dropped'], (i, j) => (i === 0 && j === 0 ? ERROR : PASS));
    const b = make('B', [{ k: 'q' }, 'r'], 2, ['added', 'keep'], (i, _j, k) => (k === 1 && i === 0 ? FAIL : PASS));
    const c = compareRuns(a.run, a.t, b.run, b.t);
    expect(c.validators.map((v) => v.label)).toEqual(['keep']);
    // keep: A has 3 decided passes (one error excluded); B has 2 of 4 (input {k:q} fails twice).
    expect(c.validators[0].a).toMatchObject({ pass: 3, n: 3 });
    expect(c.validators[0].b).toMatchObject({ pass: 2, n: 4 });
    expect(c.onlyInA).toEqual(['dropped']);
    expect(c.onlyInB).toEqual(['added']);
    expect(c.inputs.map((r) => [r.label, r.iA, r.iB])).toEqual([['{"k":"q"}', 1, 0]]);
    // {k:q}: A 4/4 over both validators; B: 'added' passes 2, 'keep' fails 2 → 2/4
    expect(c.inputs[0].a).toMatchObject({ pass: 4, n: 4 });
    expect(c.inputs[0].b).toMatchObject({ pass: 2, n: 4 });
    expect([c.inputsOnlyInA, c.inputsOnlyInB]).toEqual([1, 1]);
  });

  it('flags a large, significant drop as a regression and a rise as better', () => {
    // 100 samples: A 95/100, B 80/100 → z-test (expected fails 12.5 ≥ 5), p ≈ 0.0013 → worse.
    const a = make('A', ['x'], 100, ['v', 'w'], (_i, j, k) => (k === 0 ? (j < 95 ? PASS : FAIL) : j < 50 ? PASS : FAIL));
    const b = make('B', ['x'], 100, ['v', 'w'], (_i, j, k) => (k === 0 ? (j < 80 ? PASS : FAIL) : j < 70 ? PASS : FAIL));
    const c = compareRuns(a.run, a.t, b.run, b.t);
    const [v, w] = c.validators;
    expect(v.test).toBe('z');
    // pooled 175/200 = 0.875, se = sqrt(0.875·0.125·0.02) = 0.046771, z = −0.15/0.046771 = −3.2071
    expect(v.z!.z).toBeCloseTo(-3.2071, 3);
    expect(v.direction).toBe('worse');
    expect(w.direction).toBe('better');
    expect(c.regressions).toEqual(['v']);
  });
});
