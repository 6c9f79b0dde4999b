import { describe, expect, it } from 'vitest';
import { combineGrades, type GradedOutput, type PersonGrade } from './grades.js';
import { gradingSummary, NOT_CHECKED } from './grading-summary.js';
import { Outcome, type OutcomeCode } from './outcome.js';
import { mulberry32 } from './prng.js';
import { summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import type { ValidatorMeta } from './validator.js';
import { correctedVerdict } from './verdict.js';

const N = 100;
const M = 10;
const rules: ValidatorMeta[] = [
  { name: 'short', message: 'short', minSuccess: 0.9, weight: 1, kind: 'validator' },
  { name: 'polite', message: 'polite', minSuccess: 0.9, weight: 1, kind: 'verifier' },
];

/** A judge that passes every output while a quarter of them are bad (the trap): the truth of output (i, j). */
const bad = (i: number, j: number) => (i * M + j) % 4 === 0;

function tensor(cell: (i: number, j: number, k: number) => OutcomeCode): ReliabilityTensor {
  const t = new ReliabilityTensor(N, M, 2);
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) for (let k = 0; k < 2; k++) t.set(i, j, k, cell(i, j, k));
  return t;
}

/** `count` outputs drawn uniformly at random (seeded), graded truthfully for rule k. */
function drawn(count: number, k: number, seed = 1): PersonGrade[] {
  const rnd = mulberry32(seed);
  const ids = [...Array(N * M).keys()];
  for (let a = ids.length - 1; a > 0; a--) {
    const b = Math.floor(rnd() * (a + 1));
    [ids[a], ids[b]] = [ids[b], ids[a]];
  }
  return ids.slice(0, count).map((id) => {
    const [i, j] = [Math.floor(id / M), id % M];
    return { i, j, k, pass: !bad(i, j), grader: 'ada', probability: count / (N * M) };
  });
}

const judgePassesAll = tensor(() => Outcome.PASS);

describe('summarize with people’s grades', () => {
  it('a verifier without grades says its judge was not checked against people; a code validator says nothing', () => {
    const s = summarize(judgePassesAll, rules, { verdict: 'confident' });
    expect(s.validators[1].figure).toBe(`judge's rate · ${NOT_CHECKED}`);
    expect(s.validators[1].grading).toBeUndefined();
    expect(s.validators[0].figure).toBeUndefined();
    expect(s.validators.map((v) => v.verdict)).toEqual(['pass', 'pass']);
  });

  it('the judge that lets bad outputs through: 80 random grades turn its confident PASS into a corrected FAIL', () => {
    const grades = combineGrades(drawn(80, 1), 2).map((outs, k) =>
      k === 1 ? outs.map((o): GradedOutput => ({ ...o, reasons: [`looks fine (${o.i}.${o.j})`] })) : outs,
    );
    const s = summarize(judgePassesAll, rules, { verdict: 'confident' }, grades);
    const v = s.validators[1];
    const failsInDraw = drawn(80, 1).filter((g) => !g.pass).length;
    expect(failsInDraw).toBeGreaterThan(10);
    expect(v.rate).toBe(1); // the judge's own rate is kept as it is
    expect(v.figure).toBe('corrected by 80 grades (grading look 3 at 99.38%; the next at 160 grades)');
    expect(v.grading!.grades).toBe(80);
    expect(v.grading!.alignment).toMatchObject({ n: 80, tp: 80 - failsInDraw, fp: failsInDraw, fn: 0, tn: 0 });
    expect(v.grading!.alignment.tnr).toMatchObject({ rate: 0 });
    expect(v.grading!.corrected!.rate).toBeCloseTo(1 - failsInDraw / 80, 1);
    expect(v.grading!.disagreements).toHaveLength(failsInDraw);
    expect(v.grading!.disagreements[0]).toMatchObject({ judge: true, person: false, disputed: false, reasons: [expect.stringMatching(/^looks fine/)] });
    expect(v.grading!.caveats).toEqual([]);
    expect(v.verdict).toBe('fail');
    expect(v.reason).toMatch(/^upper bound [\d.]+% \(corrected by 80 grades\) < minSuccess 90\.0%$/);
    expect(v.errorBounds).toEqual({ low: v.grading!.corrected!.low, high: v.grading!.corrected!.high });
    expect(s.verdict).toBe('fail');
    // point mode compares the corrected rate
    expect(summarize(judgePassesAll, rules, { verdict: 'point' }, grades).validators[1]).toMatchObject({
      verdict: 'fail',
      reason: expect.stringMatching(/\(corrected by 80 grades\) < minSuccess/),
    });
  });

  it('a code validator gets alignment and correction too', () => {
    const t = tensor((i, j, k) => (k === 0 ? (bad(i, j) && j % 2 === 0 ? Outcome.FAIL : Outcome.PASS) : Outcome.PASS));
    const s = summarize(t, rules, { verdict: 'confident' }, combineGrades(drawn(100, 0, 3), 2));
    const v = s.validators[0];
    // 100 grades: the verdict moves only at looks (20, 40, 80, …): it rests on the first 80 given.
    expect(v.figure).toBe('corrected by the first 80 of 100 grades (grading look 3 at 99.38%; the next at 160 grades)');
    expect(v.grading!.alignment.tp + v.grading!.alignment.fn).toBe(drawn(100, 0, 3).filter((g) => g.pass).length);
    expect(v.grading!.alignment.fn).toBe(0);
    expect(s.validators[1].figure).toBe(`judge's rate · ${NOT_CHECKED}`);
  });

  it('says when grades were hand-picked, disputed, or about outputs the rule did not decide', () => {
    const t = tensor((i, j, k) => (k === 1 && i === 0 && j === 0 ? Outcome.ERROR : Outcome.PASS));
    const grades: PersonGrade[] = [
      { i: 0, j: 0, k: 1, pass: false, grader: 'ada' },
      { i: 0, j: 1, k: 1, pass: false, grader: 'ada' },
      { i: 0, j: 1, k: 1, pass: true, grader: 'bob' },
      { i: 0, j: 2, k: 1, pass: true, grader: 'ada', probability: 0.5 },
      { i: 0, j: 3, k: 1, pass: true, grader: 'ada' },
    ];
    const g = summarize(t, rules, { verdict: 'confident' }, combineGrades(grades, 2)).validators[1].grading!;
    expect([g.grades, g.notRandom, g.disputed, g.undecided]).toEqual([3, 2, 1, 1]);
    expect(g.caveats).toEqual([
      '2 of 3 grades were not drawn at random (hand-picked, or imported without a probability): the correction is unbiased only for random draws and assumes these were',
      '1 graded output(s) were graded differently by different people: their majority, or on a tie the latest grade, counts',
      '1 graded output(s) have no verdict of the rule (an error, or not checked): left out',
    ]);
    // Grades only on outputs the judge did not decide: not checked, and it says why.
    const only = summarize(t, rules, {}, combineGrades([grades[0]], 2)).validators[1];
    expect(only.figure).toBe(`judge's rate · ${NOT_CHECKED} (its 1 graded output(s) have no verdict of it)`);
    expect(only.grading!.corrected).toBeNull();
  });

  it('a hand-picked grade among grades drawn with unequal probabilities counts as drawn with the others of its verdict', () => {
    // The judge fails outputs with j = 0 and passes the rest; a stratified queue drew 3 PASS verdicts with
    // probability 0.1 and 2 FAIL verdicts with 0.5; then someone graded one more PASS verdict by hand (the page's ?i=&j=).
    const t = tensor((i, j, k) => (k === 1 && j === 0 ? Outcome.FAIL : Outcome.PASS));
    const drawnGrades: PersonGrade[] = [
      { i: 0, j: 1, k: 1, pass: true, grader: 'ada', probability: 0.1 },
      { i: 0, j: 2, k: 1, pass: true, grader: 'ada', probability: 0.1 },
      { i: 0, j: 3, k: 1, pass: false, grader: 'ada', probability: 0.1 },
      { i: 1, j: 0, k: 1, pass: false, grader: 'ada', probability: 0.5 },
      { i: 2, j: 0, k: 1, pass: true, grader: 'ada', probability: 0.5 },
    ];
    const hand: PersonGrade = { i: 3, j: 4, k: 1, pass: true, grader: 'bob' };
    const s = summarize(t, rules, { verdict: 'confident' }, combineGrades([...drawnGrades, hand], 2)).validators[1];
    const asDrawn = summarize(t, rules, { verdict: 'confident' }, combineGrades([...drawnGrades, { ...hand, probability: 0.1 }], 2)).validators[1];
    expect(s.grading!.notRandom).toBe(1);
    expect(s.grading!.alignment).toEqual(asDrawn.grading!.alignment);
    expect(s.grading!.corrected).toEqual(asDrawn.grading!.corrected);
    expect(s.grading!.alignment.weighted).toBe(true);
    // A verdict with hand-picked grades only has no draw to borrow from: then every grade counts plainly.
    const failByHand: PersonGrade = { i: 4, j: 0, k: 1, pass: false, grader: 'bob' };
    const onlyPass = drawnGrades.slice(0, 3);
    const plain = summarize(t, rules, {}, combineGrades([...onlyPass, failByHand], 2)).validators[1];
    const unweighted = summarize(
      t,
      rules,
      {},
      combineGrades(
        [...onlyPass, failByHand].map(({ probability: _p, ...g }) => g),
        2,
      ),
    ).validators[1];
    expect(plain.grading!.alignment).toEqual(unweighted.grading!.alignment);
    expect(plain.grading!.corrected).toEqual(unweighted.grading!.corrected);
    expect(plain.grading!.notRandom).toBe(1);
  });

  it("two of assay's stratified queues, one after the other: post-stratified on the judge's verdict, not weighted by each batch's own probability", () => {
    // 1,000 outputs: the judge fails the 100 with j = 0. Batch 1 graded 20 of its 900 PASS verdicts and 10 of its
    // 100 FAIL verdicts; batch 2, drawn from what was left, 10 of 880 and 10 of 90.
    const t = tensor((_i, j, k) => (k === 1 && j === 0 ? Outcome.FAIL : Outcome.PASS));
    const batch = (n: number, from: number, j: (x: number) => number, probability: number, person: (x: number) => boolean): PersonGrade[] =>
      Array.from({ length: n }, (_, x) => ({ i: from + x, j: j(x), k: 1, pass: person(x), grader: 'ada', probability, design: 'stratified' }));
    const grades = [
      ...batch(
        20,
        0,
        () => 1,
        20 / 900,
        (x) => x % 5 !== 0,
      ), // 16 of 20 PASS
      ...batch(
        10,
        0,
        () => 0,
        10 / 100,
        (x) => x < 3,
      ), // 3 of 10 PASS
      ...batch(
        10,
        20,
        () => 1,
        10 / 880,
        (x) => x % 2 === 0,
      ), // 5 of 10 PASS
      ...batch(
        10,
        10,
        () => 0,
        10 / 90,
        (x) => x < 1,
      ), // 1 of 10 PASS
    ];
    // All 50 grades (a report's look would use the first 40: core/grading-looks.ts).
    const g = gradingSummary(t, 1, combineGrades(grades, 2)[1], { pass: 900, fail: 100, error: 0, pending: 0 }, 0.95, true);
    const [a, b] = [21 / 30, 4 / 20]; // people's PASS share among the judge's PASS and FAIL verdicts, both batches
    expect(g.corrected!.method).toBe('ppi++-stratified-beta');
    expect(g.corrected!.rate).toBeCloseTo(0.9 * a + 0.1 * b, 12);
    // TPR = P(judge PASS | person PASS), each verdict weighted by its outputs per grade (900/30 and 100/20).
    expect(g.alignment.tpr!.rate).toBeCloseTo((0.9 * a) / (0.9 * a + 0.1 * b), 12);
    expect(g.alignment.tnr!.rate).toBeCloseTo((0.1 * (1 - b)) / (0.9 * (1 - a) + 0.1 * (1 - b)), 12);
    // Probabilities that differ within a verdict by another design (imported from elsewhere) still weight it.
    const foreign = grades.map((x, n) => ({ ...x, design: 'by input', probability: n % 2 ? 0.05 : 0.1 }));
    expect(gradingSummary(t, 1, combineGrades(foreign, 2)[1], { pass: 900, fail: 100, error: 0, pending: 0 }, 0.95, true).corrected!.method).toBe(
      'ppi++-stratified-beta-weighted',
    );
  });

  it('an inconclusive corrected verdict plans the grading look that would decide it, or says that none would', () => {
    const graded = (n: number, fails: number) =>
      combineGrades(
        drawn(n, 1).map((g, x) => ({ ...g, pass: x >= fails })),
        2,
      );
    // 19 of 20 graded PASS: corrected 95% against minSuccess 90%, too few grades to tell.
    const few = summarize(judgePassesAll, rules, {}, graded(40, 2)).validators[1];
    expect(few.verdict).toBe('inconclusive');
    expect(few.grading!.corrected!.look).toMatchObject({ index: 2, of: 40, next: 80 });
    // A plan: the grades of a later look (80, 160, 320 …), never a count between looks.
    expect([80, 160, 320, 640]).toContain(few.gradesToDecide);
    // 72 of 80: corrected 90% against 90%; no number of grades of these 1,000 outputs decides that.
    const tie = summarize(judgePassesAll, rules, {}, graded(80, 8)).validators[1];
    expect([tie.verdict, tie.grading!.corrected!.rate]).toEqual(['inconclusive', 0.9]);
    expect(tie.gradesToDecide).toBeNull();
  });

  it('a sequential run shows its grades against the judge but never corrects its verdict with them', () => {
    const grades = combineGrades(drawn(80, 1), 2);
    const plain = summarize(judgePassesAll, rules, { stopping: 'sequential' });
    const s = summarize(judgePassesAll, rules, { stopping: 'sequential' }, grades);
    const v = s.validators[1];
    expect(v.grading!.corrected).toBeNull();
    expect(v.grading!.alignment.n).toBe(80);
    expect(v.figure).toMatch(/^judge's rate · its 80 grades are not used: a sequential run's verdict rests on its confidence sequence/);
    expect([v.verdict, v.reason, v.ci]).toEqual([plain.validators[1].verdict, plain.validators[1].reason, plain.validators[1].ci]);
  });

  it('refuses grades that do not match the rules', () => {
    expect(() => summarize(judgePassesAll, rules, {}, [[]])).toThrow(/one list per validator \(K = 2\), got 1/);
  });
});

describe('correctedVerdict: errors are missing data, whatever the errored outputs were', () => {
  const c = { pass: 80, fail: 10, error: 10 };
  const corrected = { rate: 0.8, low: 0.7, high: 0.9, grades: 60 };
  const confident = { mode: 'confident' as const, interval: 'clopper-pearson' as const, level: 0.95 };
  it('bounds over all checked outputs: [low·(1 − e), high·(1 − e) + e]', () => {
    const r = correctedVerdict(c, corrected, 0.95, confident);
    expect(r.errorBounds!.low).toBeCloseTo(0.63, 12);
    expect(r.errorBounds!.high).toBeCloseTo(0.91, 12);
    expect(r).toMatchObject({ verdict: 'fail', reason: 'upper bound 91.0% (corrected by 60 grades) < minSuccess 95.0%, errors counted as passes' });
    expect(correctedVerdict(c, corrected, 0.6, confident)).toMatchObject({
      verdict: 'pass',
      reason: expect.stringMatching(/lower bound 63\.0% .*errors counted as failures$/),
    });
    expect(correctedVerdict(c, corrected, 0.8, confident)).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/error share 10\.0% > maxErrorShare 5\.0%.*straddle/),
    });
    expect(correctedVerdict(c, corrected, 0.8, { ...confident, maxErrorShare: 0.2 })).toMatchObject({ verdict: 'inconclusive' });
  });
  it('point mode compares the corrected rate, unless errors are too many', () => {
    expect(correctedVerdict({ pass: 90, fail: 10, error: 0 }, corrected, 0.75, { ...confident, mode: 'point' })).toMatchObject({ verdict: 'pass' });
    expect(correctedVerdict({ pass: 90, fail: 10, error: 0 }, corrected, 0.85, { ...confident, mode: 'point' })).toMatchObject({ verdict: 'fail' });
    expect(correctedVerdict(c, corrected, 0.75, { ...confident, mode: 'point' })).toMatchObject({ verdict: 'error' });
  });
});
