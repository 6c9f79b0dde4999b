import { describe, expect, it } from 'vitest';
import { combineGrades, type PersonGrade } from './grades.js';
import { FIRST_LOOK, gradingLook, lookGrades, lookLevel } from './grading-looks.js';
import { Outcome } from './outcome.js';
import { summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';

describe('grading looks: the verdict moves only at 20, 40, 80, … grades, α/2^e spent on look e', () => {
  it('looks, their grades and levels', () => {
    expect(gradingLook(19, 0.95)).toBeNull();
    expect(gradingLook(20, 0.95)).toEqual({ index: 1, grades: 20, level: 0.975, next: 40 });
    expect(gradingLook(79, 0.95)).toMatchObject({ index: 2, grades: 40, next: 80 });
    expect(gradingLook(79, 0.95)!.level).toBeCloseTo(0.9875, 12);
    expect(lookGrades(4)).toBe(160);
    // The levels spend at most α over every look.
    let spent = 0;
    for (let e = 1; e <= 60; e++) spent += 1 - lookLevel(e, 0.95);
    expect(spent).toBeLessThanOrEqual(0.05 + 1e-12);
    expect(() => gradingLook(-1, 0.95)).toThrow(/grades/);
    expect(() => gradingLook(3, 1)).toThrow(/level/);
  });

  it('one hand-picked FAIL does not replace a judge’s 100/100: the judge’s rate stands, and the report says how many grades the first look needs', () => {
    const t = new ReliabilityTensor(10, 10, 1);
    for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) t.set(i, j, 0, Outcome.PASS);
    const rule: ValidatorMeta[] = [{ name: 'polite', message: 'm', minSuccess: 0.95, weight: 1, kind: 'verifier' }];
    const one: PersonGrade[] = [{ i: 3, j: 4, k: 0, pass: false, grader: 'ada' }];
    for (const verdict of ['point', 'confident'] as const) {
      const v = summarize(t, rule, { verdict }, combineGrades(one, 1)).validators[0];
      expect(v.grading!.corrected).toBeNull();
      expect(v.figure).toBe(`judge's rate · 1 grade(s): too few to correct it (the first grading look is at ${FIRST_LOOK} grades: 19 more)`);
      expect(v.verdict).toBe(verdict === 'point' ? 'pass' : 'pass');
      expect(v.grading!.disagreements).toHaveLength(1);
    }
  });

  it('the look uses the first grades given, not the latest: grades past a look change nothing until the next', () => {
    const t = new ReliabilityTensor(20, 10, 1);
    for (let i = 0; i < 20; i++) for (let j = 0; j < 10; j++) t.set(i, j, 0, Outcome.PASS);
    const rule: ValidatorMeta[] = [{ name: 'polite', message: 'm', minSuccess: 0.8, weight: 1, kind: 'verifier' }];
    // 20 grades all PASS, then 15 FAIL: the look at 20 stands until 40 grades.
    const grades: PersonGrade[] = Array.from({ length: 35 }, (_, x) => ({ i: x % 20, j: Math.floor(x / 20), k: 0, pass: x < 20, grader: 'ada' }));
    const at35 = summarize(t, rule, {}, combineGrades(grades, 1)).validators[0];
    const at20 = summarize(t, rule, {}, combineGrades(grades.slice(0, 20), 1)).validators[0];
    expect(at35.grading!.corrected).toMatchObject({ grades: 20, look: { index: 1, of: 35, next: 40 } });
    expect(at35.grading!.corrected!.low).toBe(at20.grading!.corrected!.low);
    expect(at35.verdict).toBe(at20.verdict);
    expect(at35.figure).toBe('corrected by the first 20 of 35 grades (grading look 1 at 97.5%; the next at 40 grades)');
  });
});

describe('a draw whose probabilities differ within a verdict', () => {
  it('is refused below a look’s worth of effective grades, saying why; the rate stays the judge’s', () => {
    const t = new ReliabilityTensor(10, 10, 1);
    for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) t.set(i, j, 0, Outcome.PASS);
    const rule: ValidatorMeta[] = [{ name: 'polite', message: 'm', minSuccess: 0.9, weight: 1, kind: 'verifier' }];
    // 30 grades of the judge's PASS verdicts: 10 flagged outputs drawn 10× as often as the 20 others.
    const grades: PersonGrade[] = Array.from({ length: 30 }, (_, x) => ({
      i: x % 10,
      j: Math.floor(x / 10),
      k: 0,
      pass: x >= 10,
      grader: 'ada',
      probability: x < 10 ? 0.5 : 0.05,
      design: 'flagged outputs 10×',
    }));
    const v = summarize(t, rule, {}, combineGrades(grades, 1)).validators[0];
    expect(v.grading!.corrected).toBeNull();
    expect(v.figure).toMatch(
      /^judge's rate · 30 grade\(s\) not used: its grades were drawn with probabilities that differ within the judge's PASS verdicts \(weighted, they count as 1\d\.\d grades, Kish\): a weighted correction needs 20 effective grades in each verdict$/,
    );
    expect(v.rate).toBe(1);
    // The same grades at equal probabilities (one design, as assay's queues draw) correct it.
    const equal = summarize(
      t,
      rule,
      {},
      combineGrades(
        grades.map((g) => ({ ...g, probability: 0.3 })),
        1,
      ),
    ).validators[0];
    expect(equal.grading!.corrected).not.toBeNull();
  });
});
