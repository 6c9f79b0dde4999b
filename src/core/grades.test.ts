import { describe, expect, it } from 'vitest';
import { combineGrades, type PersonGrade } from './grades.js';

const g = (i: number, j: number, pass: boolean, grader: string, extra: Partial<PersonGrade> = {}): PersonGrade => ({ i, j, k: 0, pass, grader, ...extra });

describe('combineGrades', () => {
  it("counts each grader's latest grade once; the majority of graders decides", () => {
    const [rule] = combineGrades([g(0, 0, true, 'ada'), g(0, 0, false, 'bob'), g(0, 0, false, 'ada'), g(0, 0, true, 'cy'), g(0, 0, false, 'cy')], 1);
    // ada's latest: fail, bob: fail, cy's latest: fail → fail, undisputed
    expect(rule).toEqual([{ i: 0, j: 0, person: false, graders: 3, disputed: false, first: 0 }]);
    const [two] = combineGrades([g(1, 2, true, 'ada'), g(1, 2, true, 'bob'), g(1, 2, false, 'cy')], 1);
    expect(two).toEqual([{ i: 1, j: 2, person: true, graders: 3, disputed: true, first: 0 }]);
  });

  it('breaks a tie between graders by the most recent grade', () => {
    expect(combineGrades([g(0, 0, true, 'ada'), g(0, 0, false, 'bob')], 1)[0][0]).toMatchObject({ person: false, disputed: true, graders: 2 });
    expect(combineGrades([g(0, 0, false, 'bob'), g(0, 0, true, 'ada')], 1)[0][0]).toMatchObject({ person: true, disputed: true });
  });

  it('keeps the probability of the draw that first brought the output to grading, and none for a hand-picked one', () => {
    const [rule] = combineGrades(
      [g(0, 0, true, 'ada'), g(0, 0, true, 'bob', { probability: 0.1 }), g(0, 0, true, 'cy', { probability: 0.3 }), g(1, 0, false, 'ada')],
      1,
    );
    expect(rule.map((o) => o.probability)).toEqual([0.1, undefined]);
  });

  it('keeps rules apart and orders outputs by (i, j)', () => {
    const out = combineGrades([g(2, 0, true, 'a', { k: 1 }), g(0, 1, false, 'a', { k: 1 }), g(0, 0, true, 'a')], 2);
    expect(out.map((r) => r.map((o) => [o.i, o.j]))).toEqual([
      [[0, 0]],
      [
        [0, 1],
        [2, 0],
      ],
    ]);
    // Each output remembers where its first grade stands in the log: the order grading looks count in.
    expect(out[1].map((o) => o.first)).toEqual([1, 0]);
    expect(() => combineGrades([g(0, 0, true, 'a', { k: 2 })], 2)).toThrow(/k=2 outside 0\.\.1/);
  });
});
