import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { openSqliteStore } from '../store/sqlite.js';
import { assertionAgreement, setAgreement } from './agreement.js';
import { gradedExamples, labelGradedOutputs } from './graded.js';
import { matrixFromResults } from './metrics.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-spade-agreement-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('assertionAgreement: each assertion against the labels, as a judge against people', () => {
  // Six examples (3 good, 3 bad); a fails g1 and b1, b2; c errs on g2 and b3.
  const examples = ['g1', 'g2', 'g3', 'b1', 'b2', 'b3'].map((id) => ({ id, label: id[0] === 'g' ? ('good' as const) : ('bad' as const) }));
  const table: Record<string, (boolean | null)[]> = {
    a: [false, true, true, false, false, true],
    c: [true, null, true, false, true, null],
    never: [null, null, null, null, null, null],
  };
  const ids = Object.keys(table);
  const m = matrixFromResults(examples, ids, (e, k) => table[ids[k]][e]);

  it('counts PASS as "good" (tp: passes a good one, tn: fails a bad one); ERROR cells are left out and counted', () => {
    const [a, c, never] = assertionAgreement(m);
    expect(a.alignment).toMatchObject({ n: 6, tp: 2, fp: 1, fn: 1, tn: 2 });
    // TPR = 1 − FFR = 2/3, TNR = coverage = 2/3; κ = (4/6 − 1/2)/(1 − 1/2) = 1/3.
    expect(a.alignment.tpr!.rate).toBeCloseTo(2 / 3, 12);
    expect(a.alignment.tnr!.rate).toBeCloseTo(2 / 3, 12);
    expect(a.alignment.kappa).toBeCloseTo(1 / 3, 12);
    expect(a.errors).toBe(0);
    expect(c).toMatchObject({ errors: 2, alignment: { n: 4, tp: 2, fp: 1, fn: 0, tn: 1 } });
    // Clopper–Pearson 95% for 3 of 4 agreeing (scipy.stats.binomtest(3, 4).proportion_ci(0.95, 'exact')).
    expect(c.alignment.agreement!.low).toBeCloseTo(0.19412044968324338, 9);
    expect(c.alignment.agreement!.high).toBeCloseTo(0.9936905367902901, 9);
    expect(never).toMatchObject({ errors: 6, alignment: { n: 0, tpr: null, tnr: null, agreement: null, kappa: null } });
  });

  it('the selected set fails an example when any member fails it; an ERROR cell does not fail it', () => {
    const s = setAgreement(m, ['a', 'c']);
    // fails: g1 (a), b1 (a, c), b2 (a); b3: a passes, c errs → passed.
    expect(s).toMatchObject({ id: null, errors: 0, alignment: { n: 6, tp: 2, fp: 1, fn: 1, tn: 2 } });
    // No assertion: everything passes; κ is 0 (chance), not undefined, as people graded both ways.
    expect(setAgreement(m, []).alignment).toMatchObject({ tp: 3, fp: 3, fn: 0, tn: 0, kappa: 0 });
  });
});

describe('graded outputs as labelled examples', () => {
  it('labelGradedOutputs: one rule its grade; over several, a FAIL on any makes the output bad (mixed), disputes carried', () => {
    const labels = labelGradedOutputs([
      [
        { i: 0, j: 0, person: true, graders: 1, disputed: false },
        { i: 1, j: 0, person: true, graders: 3, disputed: true },
      ],
      [
        { i: 0, j: 0, person: false, graders: 1, disputed: false },
        { i: 2, j: 1, person: false, graders: 1, disputed: false },
      ],
    ]);
    expect([...labels.values()]).toEqual([
      { i: 0, j: 0, good: false, disputed: false, mixed: true },
      { i: 1, j: 0, good: true, disputed: true, mixed: false },
      { i: 2, j: 1, good: false, disputed: false, mixed: false },
    ]);
  });

  it('gradedExamples on a SQLite store: the graded outputs with their inputs, read one by one or (many) in one listing alike', async () => {
    await using store = openSqliteStore(join(dir, 'graded.db'));
    const run = await writeGradedFixture(store, { N: 30, M: 10, cell: () => Outcome.PASS, failed: (i, j) => i === 29 && j === 9 });
    // 12 outputs graded on `polite` (every 25th), then all but the failed one on `short`.
    const few = Array.from(
      { length: 12 },
      (_, n) => ({ i: Math.floor((n * 25) / 10), j: (n * 25) % 10, rule: 'polite', grade: n % 3 ? 'pass' : 'fail', grader: 'r1' }) as const,
    );
    await store.grades.recordMany(run.id, few);
    const one = await gradedExamples(store, run, { rule: 'polite' });
    expect(one.examples).toHaveLength(12);
    expect(one.examples[1]).toEqual({
      id: 'i2/j5',
      output: 'Answer 2.5: open Settings, then Security.',
      input: 'Question 2: how do I reset my password?',
      label: 'good',
    });
    expect(one.examples.filter((e) => e.label === 'bad').map((e) => e.id)).toEqual(['i0/j0', 'i7/j5', 'i15/j0', 'i22/j5']);
    expect(one.rules).toEqual([{ rule: 'polite', pass: 8, fail: 4 }]);

    const many = Array.from({ length: 299 }, (_, n) => ({ i: Math.floor(n / 10), j: n % 10, rule: 'short', grade: 'pass', grader: 'r1' }) as const);
    await store.grades.recordMany(run.id, many);
    const all = await gradedExamples(store, run);
    expect(all.examples).toHaveLength(299);
    expect(all.mixed).toBe(4);
    // The outputs read in one listing are the ones read one by one.
    const byId = new Map(all.examples.map((e) => [e.id, e]));
    for (const e of one.examples) expect(byId.get(e.id)).toEqual(e);
    expect(all.rules).toEqual([
      { rule: 'short', pass: 299, fail: 0 },
      { rule: 'polite', pass: 8, fail: 4 },
    ]);
  });
});
