import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matrixFromResults } from './metrics.js';
import { countExcludedNotSubsumed, select } from './select.js';
import type { EvaluationMatrix, SubsumptionPair } from './types.js';

/** Build a matrix from the set of examples each assertion fails. */
function build(labels: Record<string, 'good' | 'bad'>, failsOf: Record<string, string[]>): EvaluationMatrix {
  const examples = Object.entries(labels).map(([id, label]) => ({ id, label }));
  const ids = Object.keys(failsOf);
  return matrixFromResults(examples, ids, (e, a) => !failsOf[ids[a]].includes(examples[e].id));
}

const labels = { g1: 'good', g2: 'good', g3: 'good', g4: 'good', b1: 'bad', b2: 'bad', b3: 'bad' } as const;
// a: FFR .25 cov 2/3; b: FFR 0 cov 1/3; c: FFR .5 cov 1; d: FFR 0 cov 1/3
const m = build(labels, { a: ['g1', 'b1', 'b2'], b: ['b3'], c: ['g1', 'g2', 'b1', 'b2', 'b3'], d: ['b2'] });

describe('base', () => {
  it('keeps every assertion whose own FFR ≤ τ and reports the conjunction', async () => {
    const r = await select(m, { method: 'base', alpha: 1, tau: 0.25 });
    expect(r.selected).toEqual(['a', 'b', 'd']);
    expect(r.ffr).toBe(0.25);
    expect(r.coverage).toBe(1);
    expect(r.meetsFfr && r.meetsCoverage).toBe(true);
  });
  it('flags a conjunction that violates τ although each member meets it', async () => {
    const m2 = build({ g1: 'good', g2: 'good', b1: 'bad' }, { a: ['g1', 'b1'], b: ['g2'] });
    const r = await select(m2, { method: 'base', alpha: 0.5, tau: 0.5 });
    expect(r.selected).toEqual(['a', 'b']);
    expect(r.ffr).toBe(1);
    expect(r.meetsFfr).toBe(false);
  });
});

describe('cov', () => {
  it('finds the hand-checked minimum {a, b}', async () => {
    const r = await select(m, { method: 'cov', alpha: 1, tau: 0.25 });
    expect(r.status).toBe('ok');
    expect(r.selected).toEqual(['a', 'b']);
    expect(r.ffr).toBe(0.25);
    expect(r.coverage).toBe(1);
  });
  it('with a looser α one assertion suffices', async () => {
    const r = await select(m, { method: 'cov', alpha: 0.6, tau: 0.25 });
    expect(r.selected).toEqual(['a']);
  });
  it('reports joint infeasibility with the best coverage under τ and the best FFR at α', async () => {
    const r = await select(m, { method: 'cov', alpha: 1, tau: 0 });
    expect(r.status).toBe('infeasible');
    expect(r.infeasibility?.constraint).toBe('coverage+ffr');
    expect(r.infeasibility?.bestCoverageUnderFfr).toBeCloseTo(2 / 3, 10);
    expect(r.infeasibility?.bestFfrUnderCoverage).toBe(0.25);
    expect(r.infeasibility?.message).toMatch(/cannot both be met/);
  });
  it('reports when no set at all reaches α', async () => {
    const m3 = build(labels, { a: ['g1', 'b1', 'b2'], d: ['b2'] });
    const r = await select(m3, { method: 'cov', alpha: 1, tau: 1 });
    expect(r.status).toBe('infeasible');
    expect(r.infeasibility?.constraint).toBe('coverage');
    expect(r.infeasibility?.maxCoverage).toBeCloseTo(2 / 3, 10);
    expect(r.infeasibility?.message).toMatch(/catch 2 of 3 bad examples/);
  });
  it('rejects α or τ outside [0, 1]', async () => {
    await expect(select(m, { method: 'cov', alpha: 1.5, tau: 0 })).rejects.toThrow(/alpha/);
  });
});

describe('sub', () => {
  // a ⊒ b (a fails wherever b fails); c independent; all FFR 0.
  const ms = build({ g1: 'good', b1: 'bad', b2: 'bad', b3: 'bad' }, { a: ['b1', 'b2'], b: ['b2'], c: ['b3'] });
  const K: SubsumptionPair[] = [{ subsumer: 'a', subsumed: 'b' }];
  it('paper objective: |S| + excluded-not-subsumed, ties toward fewer excluded', async () => {
    const r = await select(ms, { method: 'sub', alpha: 0.6, tau: 0, subsumes: K, objective: 'paper' });
    expect(r.selected).toEqual(['a', 'c']);
    expect(r.nExcludedNotSubsumed).toBe(0);
    const cov = await select(ms, { method: 'cov', alpha: 0.6, tau: 0, subsumes: K });
    expect(cov.selected).toEqual(['a']);
    expect(cov.nExcludedNotSubsumed).toBe(1);
  });
  it('code objective: excluded-not-subsumed only, |S| minimal among ties', async () => {
    const r = await select(ms, { method: 'sub', alpha: 0.3, tau: 0, subsumes: K, objective: 'code' });
    expect(r.selected).toEqual(['a', 'c']);
  });
  it('without the subsumption pair, b must be selected or counted', async () => {
    const r = await select(ms, { method: 'sub', alpha: 0.3, tau: 0, subsumes: [], objective: 'code' });
    expect(r.selected).toEqual(['a', 'b', 'c']);
    expect(countExcludedNotSubsumed(ms, ['a', 'c'], 0, [])).toBe(1);
  });
});

/** Brute force over every subset: the reference the solver must match. */
function brute(mx: EvaluationMatrix, alpha: number, tau: number, K: SubsumptionPair[]) {
  const A = mx.assertions.length;
  const good = mx.examples.filter((e) => e.label === 'good').length;
  const bad = mx.examples.length - good;
  let minSize = Infinity;
  let minPaper = Infinity;
  let minCode = Infinity;
  for (let mask = 0; mask < 1 << A; mask++) {
    const S = mx.assertions.filter((_, a) => mask & (1 << a));
    let ff = 0;
    let caught = 0;
    mx.examples.forEach((ex, e) => {
      const flagged = mx.assertions.some((_, a) => mask & (1 << a) && mx.cells[e * A + a] === 2);
      if (flagged && ex.label === 'good') ff++;
      if (flagged && ex.label === 'bad') caught++;
    });
    if (good && ff / good > tau + 1e-9) continue;
    if (bad && caught / bad < alpha - 1e-9) continue;
    const pen = countExcludedNotSubsumed(mx, S, tau, K);
    minSize = Math.min(minSize, S.length);
    minPaper = Math.min(minPaper, S.length + pen);
    minCode = Math.min(minCode, pen);
  }
  return { minSize, minPaper, minCode };
}

const instance = fc.record({ A: fc.integer({ min: 1, max: 6 }), E: fc.integer({ min: 2, max: 9 }) }).chain(({ A, E }) =>
  fc.record({
    labels: fc.array(fc.boolean(), { minLength: E, maxLength: E }),
    cells: fc.array(fc.boolean(), { minLength: A * E, maxLength: A * E }),
    pairs: fc.array(fc.tuple(fc.nat(A - 1), fc.nat(A - 1)), { maxLength: 4 }),
    alpha: fc.constantFrom(0, 0.25, 0.5, 0.6, 0.75, 1),
    tau: fc.constantFrom(0, 0.2, 0.25, 0.5, 1),
    A: fc.constant(A),
  }),
);

describe('property: the programs match brute force on random small matrices', () => {
  it('cov |S| and sub objectives equal the brute-force optima; infeasible exactly when no subset is feasible', async () => {
    await fc.assert(
      fc.asyncProperty(instance, async ({ labels: ls, cells, pairs, alpha, tau, A }) => {
        const examples = ls.map((g, e) => ({ id: `e${e}`, label: (g ? 'good' : 'bad') as 'good' | 'bad' }));
        const ids = Array.from({ length: A }, (_, a) => `a${a}`);
        const mx = matrixFromResults(examples, ids, (e, a) => cells[e * A + a]);
        const K = pairs.map(([i, j]) => ({ subsumer: ids[i], subsumed: ids[j] }));
        const ref = brute(mx, alpha, tau, K);
        const cov = await select(mx, { method: 'cov', alpha, tau });
        if (ref.minSize === Infinity) {
          expect(cov.status).toBe('infeasible');
          return;
        }
        expect(cov.status).toBe('ok');
        expect(cov.selected.length).toBe(ref.minSize);
        expect(cov.meetsFfr && cov.meetsCoverage).toBe(true);
        const paper = await select(mx, { method: 'sub', alpha, tau, subsumes: K, objective: 'paper' });
        expect(paper.selected.length + paper.nExcludedNotSubsumed).toBe(ref.minPaper);
        const code = await select(mx, { method: 'sub', alpha, tau, subsumes: K, objective: 'code' });
        expect(code.nExcludedNotSubsumed).toBe(ref.minCode);
      }),
      { numRuns: 150, seed: 20240205 },
    );
  });
});

describe('assertions that never ran', () => {
  // e: every cell ERROR (a function that always times out); a real assertion a beside it.
  const labelsE = { g1: 'good', g2: 'good', b1: 'bad', b2: 'bad' } as const;
  const examples = Object.entries(labelsE).map(([id, label]) => ({ id, label }));
  const mE = matrixFromResults(examples, ['a', 'e'], (ex, col) => (col === 1 ? null : examples[ex].id !== 'b1'));
  it('are never selected, carry no penalty, and are reported as unevaluated', async () => {
    for (const method of ['base', 'cov', 'sub'] as const) {
      const r = await select(mE, { method, alpha: 0.5, tau: 0, objective: 'paper' });
      expect(r.selected, method).toEqual(['a']);
      expect(r.unevaluated, method).toEqual(['e']);
      expect(r.nExcludedNotSubsumed, method).toBe(0);
    }
  });
  it('infeasibility is diagnosed over the assertions that ran', async () => {
    const r = await select(mE, { method: 'cov', alpha: 1, tau: 0 });
    expect(r.status).toBe('infeasible');
    expect(r.infeasibility?.constraint).toBe('coverage');
    expect(r.infeasibility?.message).toMatch(/all 1 usable candidates together catch 1 of 2 bad examples \(best achievable coverage 0\.500\)/);
  });
});

describe('tie-breaking', () => {
  // Both {a} and {b} reach α = 0.5 with one assertion; b catches more and flags nothing.
  const mt = build({ g1: 'good', g2: 'good', b1: 'bad', b2: 'bad', b3: 'bad' }, { a: ['g1', 'b1', 'b2'], b: ['b1', 'b2', 'b3'], c: ['b3'] });
  it('cov prefers the highest coverage, then the lowest FFR, among the minimum sets', async () => {
    const r = await select(mt, { method: 'cov', alpha: 0.5, tau: 0.5 });
    expect(r.selected).toEqual(['b']);
    expect(r.coverage).toBe(1);
    expect(r.ffr).toBe(0);
  });
  it('sub (paper) prefers fewer excluded-not-subsumed at equal |S| + penalty', async () => {
    // b ⊒ c: selecting b covers c; a stays excluded (penalty 1) or is selected (|S| + 1): a tie the rule settles.
    const r = await select(mt, { method: 'sub', alpha: 0.5, tau: 0.5, objective: 'paper', subsumes: [{ subsumer: 'b', subsumed: 'c' }] });
    expect(r.selected).toEqual(['a', 'b']);
    expect(r.nExcludedNotSubsumed).toBe(0);
    const bare = await select(mt, { method: 'sub', alpha: 0.5, tau: 0.5, objective: 'paper', subsumes: [{ subsumer: 'b', subsumed: 'c' }], tieBreak: false });
    expect(bare.selected.length + bare.nExcludedNotSubsumed).toBe(2);
  });
});
