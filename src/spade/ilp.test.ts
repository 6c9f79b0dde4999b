import { describe, expect, it } from 'vitest';
import { solveBinaryProgram, solveLexicographic, toLpFormat, type BinaryProgram } from './ilp.js';

// Choose from a, b, c with a + b + c ≥ 2; costs differ per stage.
const base: BinaryProgram = {
  sense: 'minimize',
  objective: [],
  constraints: [
    {
      name: 'two',
      terms: [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
      op: '>=',
      rhs: 2,
    },
  ],
  variables: ['a', 'b', 'c'],
};

describe('HiGHS programs', () => {
  it('writes LP format with binaries and an empty objective', () => {
    const lp = toLpFormat(base);
    expect(lp).toMatch(/^Minimize\n obj: 0 __zero\nSubject To\n two: a \+ b \+ c >= 2\n zero_fix: __zero = 0\nBinary\n a b c __zero\nEnd$/);
  });
  it('solves a small program and reports infeasibility', async () => {
    const s = await solveBinaryProgram({
      ...base,
      objective: [
        ['a', 3],
        ['b', 1],
        ['c', 2],
      ],
    });
    expect(s.status).toBe('optimal');
    expect(s.objective).toBe(3);
    expect(s.values).toMatchObject({ a: 0, b: 1, c: 1 });
    const inf = await solveBinaryProgram({
      ...base,
      constraints: [
        ...base.constraints,
        {
          name: 'one',
          terms: [
            ['a', 1],
            ['b', 1],
            ['c', 1],
          ],
          op: '<=',
          rhs: 1,
        },
      ],
    });
    expect(inf.status).toBe('infeasible');
  });
  it('lexicographic: the second stage only chooses among optima of the first', async () => {
    // Stage 1: minimise a + b + c (optimum 2: any pair). Stage 2: minimise a + 2b among those pairs: {a, c}.
    const s = await solveLexicographic(base, [
      [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
      [
        ['a', 1],
        ['b', 2],
      ],
    ]);
    expect(s.stages).toEqual([2, 1]);
    expect(s.values).toMatchObject({ a: 1, b: 0, c: 1 });
    // Stage 1 takes c; stage 2 alone would pick {a, b} (cost 3), but with c held it must be {b, c} (cost 6).
    const t = await solveLexicographic(base, [
      [['c', -1]],
      [
        ['a', 2],
        ['b', 1],
        ['c', 5],
      ],
    ]);
    expect(t.values).toMatchObject({ a: 0, b: 1, c: 1 });
    expect(t.stages).toEqual([-1, 6]);
  });
});
