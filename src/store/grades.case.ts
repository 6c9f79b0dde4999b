import { describe, expect, it } from 'vitest';
import { GradeError, UnknownRunError } from './errors.js';
import { grade, gradedRun, newRun, P, sample, type MakeStore } from './testing/fixtures.js';
import { pushAll } from '../core/arrays.js';
import { combineGrades } from '../core/grades.js';
import { decisiveGrades } from './decisive.js';
import type { GradeRecord, NewGrade, Store } from './types.js';

/** The outputs gradedRun stores. */
const STORED = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 2],
] as const;

/**
 * Grades `make(k)` of run `runId`, k counting from 0, in two batches of `sizes` with a grade of another run
 * (returned) stored between them: the run's ids interleave with another's.
 */
async function interleaved(store: Store, runId: string, sizes: [number, number], make: (k: number) => NewGrade): Promise<string> {
  const batch = (n: number, from: number) => Array.from({ length: n }, (_, x) => make(from + x));
  await store.grades.recordMany(runId, batch(sizes[0], 0));
  const other = (await store.runs.create(newRun())).id;
  await store.samples.record(other, sample(0, 0, [P, P]));
  await store.grades.record(other, grade(0, 0));
  await store.grades.recordMany(runId, batch(sizes[1], sizes[0]));
  return other;
}

/** The contract of `store.grades`: people's grades of outputs, a log per run, checked against the run, all-or-none in batches. */
export function gradesContract(make: MakeStore): void {
  describe('grades', () => {
    it('stores grades with every field and lists them in the order recorded, filtered by rule, grader and output', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const a = await store.grades.record(runId, grade(0, 1, { gradedAt: '2026-03-01T10:00:00.000Z', probability: 0.25, design: 'uniform, seed 7' }));
      expect(a).toEqual({
        id: expect.any(Number),
        runId,
        i: 0,
        j: 1,
        rule: 'v1',
        grade: 'fail',
        grader: 'reviewer-1',
        gradedAt: '2026-03-01T10:00:00.000Z',
        probability: 0.25,
        design: 'uniform, seed 7',
      });
      const before = Date.now();
      const b = await store.grades.record(runId, grade(1, 2, { rule: 'v0', grade: 'pass', grader: '  Ada Lovelace ' }));
      expect(b.grader).toBe('Ada Lovelace');
      expect(b.probability).toBeUndefined();
      expect(b.design).toBeUndefined();
      expect(Date.parse(b.gradedAt)).toBeGreaterThanOrEqual(before - 1000);
      const c = await store.grades.record(runId, grade(0, 1, { grade: 'pass', grader: 'reviewer-2', gradedAt: '2026-02-01T00:00:00+02:00' }));
      expect(c.gradedAt).toBe('2026-01-31T22:00:00.000Z');
      expect(new Set([a.id, b.id, c.id]).size).toBe(3);
      const all = await store.grades.list(runId);
      // Recorded order, not gradedAt's (issue 30: a date a file claims must not outrank a later correction).
      expect(all.map((g) => g.id)).toEqual([a.id, b.id, c.id]);
      expect(all[0]).toEqual(a);
      expect((await store.grades.list(runId, { rule: 'v0' })).map((g) => g.id)).toEqual([b.id]);
      expect((await store.grades.list(runId, { grader: 'reviewer-2' })).map((g) => g.id)).toEqual([c.id]);
      expect((await store.grades.list(runId, { i: 0, j: 1 })).map((g) => g.id)).toEqual([a.id, c.id]);
      expect(await store.grades.list(runId, { i: 1, j: 0 })).toEqual([]);
    });

    it('lists a correction after the grade it corrects even when an import dated the first one later (issue 30)', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const imported = await store.grades.record(runId, grade(0, 0, { gradedAt: new Date(Date.now() + 30_000).toISOString() }));
      const correction = await store.grades.record(runId, grade(0, 0, { grade: 'pass' }));
      expect(correction.gradedAt < imported.gradedAt).toBe(true);
      expect((await store.grades.list(runId)).map((g) => g.id)).toEqual([imported.id, correction.id]);
    });

    it('lists 12,001 grades (more than one page of a SQL store) in the order recorded, whole and filtered', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const n = 12_001;
      const stored = await store.grades.recordMany(
        runId,
        Array.from({ length: n }, (_, k) => grade(0, k % 2, { grade: k % 3 ? 'pass' : 'fail', grader: `g${k % 7}` })),
      );
      const all = await store.grades.list(runId);
      expect(all.map((g) => g.id)).toEqual(stored.map((g) => g.id));
      expect(all[n - 1]).toEqual(stored[n - 1]);
      const mine = await store.grades.list(runId, { grader: 'g3', j: 1 });
      expect(mine.map((g) => g.id)).toEqual(stored.filter((g) => g.grader === 'g3' && g.j === 1).map((g) => g.id));
    }, 60_000);

    it('keeps every grade of one output as a log (a second grade is a new row)', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      await store.grades.record(runId, grade(0, 0, { gradedAt: '2026-01-01T00:00:00.000Z' }));
      await store.grades.record(runId, grade(0, 0, { grade: 'pass', gradedAt: '2026-01-01T00:00:01.000Z' }));
      expect((await store.grades.list(runId)).map((g) => g.grade)).toEqual(['fail', 'pass']);
    });

    it('refuses grades outside the run, of unknown rules, of missing outputs or malformed, naming the field, storing nothing', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const refused = async (g: NewGrade, field: string, text: RegExp) => {
        const err = await store.grades.record(runId, g).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, JSON.stringify(g)).toBeInstanceOf(GradeError);
        expect((err as GradeError).field).toBe(field);
        expect((err as GradeError).exitCode).toBe(2);
        expect((err as Error).message).toMatch(text);
      };
      await refused(grade(2, 0), 'i', /i must be a whole number in 0\.\.1/);
      await refused(grade(-1, 0), 'i', /0\.\.1/);
      await refused(grade(0, 3), 'j', /j must be a whole number in 0\.\.2/);
      await refused(grade(0.5, 0), 'i', /whole number/);
      await refused(grade(0, 0, { rule: 'polite' }), 'rule', /rule "polite" is not one of the run's \("v0", "v1"\)/);
      await refused(grade(0, 0, { grade: 'maybe' as 'pass' }), 'grade', /"pass" or "fail", found "maybe"/);
      await refused(grade(0, 0, { grader: ' ' }), 'grader', /grader/);
      await refused(grade(0, 0, { grader: 'a\u0000b' }), 'grader', /control characters/);
      await refused(grade(0, 0, { grader: 'x'.repeat(201) }), 'grader', /200/);
      await refused(grade(0, 0, { gradedAt: 'yesterday' }), 'gradedAt', /ISO 8601/);
      // Impossible dates (Date.parse takes Feb 30 as 2 March) and times after now (beyond a minute of skew).
      await refused(grade(0, 0, { gradedAt: '2026-02-30' }), 'gradedAt', /calendar has \(2026-02 has days 1 to 28/);
      await refused(grade(0, 0, { gradedAt: '2024-02-30T10:00:00Z' }), 'gradedAt', /2024-02 has days 1 to 29/);
      await refused(grade(0, 0, { gradedAt: '2026-04-31T10:00:00Z' }), 'gradedAt', /calendar/);
      await refused(grade(0, 0, { gradedAt: '2026-01-01T24:30:00Z' }), 'gradedAt', /calendar/);
      await refused(grade(0, 0, { gradedAt: '2099-01-01T00:00:00Z' }), 'gradedAt', /must not be in the future/);
      await refused(grade(0, 0, { gradedAt: new Date(Date.now() + 5 * 60_000).toISOString() }), 'gradedAt', /in the future/);
      await refused(grade(0, 0, { probability: 0 }), 'probability', /\[1e-9, 1\]/);
      await refused(grade(0, 0, { probability: 1.5 }), 'probability', /\[1e-9, 1\]/);
      // Below the bound the weights' arithmetic takes (issue 30): 1e-155 made every view of the run fail.
      await refused(grade(0, 0, { probability: 1e-155 }), 'probability', /\[1e-9, 1\].*found 1e-155/);
      await refused(grade(0, 0, { probability: Number.NaN }), 'probability', /\[1e-9, 1\]/);
      await refused(grade(0, 0, { design: 'uniform' }), 'probability', /needs the probability/);
      await refused(grade(0, 2), 'i', /no stored output there/);
      await refused(grade(1, 1), 'i', /generation failed \(HTTP 503\).*no output to grade/);
      await expect(store.grades.record('nope', grade(0, 0))).rejects.toBeInstanceOf(UnknownRunError);
      expect(await store.grades.list(runId)).toEqual([]);
    });

    it('stores a batch all or none', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const err = await store.grades.recordMany(runId, [grade(0, 0), grade(1, 0), grade(0, 0, { rule: 'nope' })]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GradeError);
      expect(err).toMatchObject({ field: 'rule', index: 2, message: expect.stringMatching(/rule "nope"/) });
      expect(await store.grades.list(runId)).toEqual([]);
      const ok = await store.grades.recordMany(runId, [grade(0, 0), grade(1, 0, { grade: 'pass' }), grade(1, 2)]);
      expect(ok.map((g) => [g.i, g.j, g.grade])).toEqual([
        [0, 0, 'fail'],
        [1, 0, 'pass'],
        [1, 2, 'fail'],
      ]);
      expect((await store.grades.list(runId)).map((g) => g.id)).toEqual(ok.map((g) => g.id));
      expect(await store.grades.recordMany(runId, [])).toEqual([]);
    });

    it('deletes one grade (undo); a deleted id is never given again', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const a = await store.grades.record(runId, grade(0, 0));
      const b = await store.grades.record(runId, grade(0, 1));
      expect(await store.grades.delete(runId, b.id)).toBe(true);
      expect(await store.grades.delete(runId, b.id)).toBe(false);
      expect(await store.grades.delete(runId, 987654321)).toBe(false);
      const c = await store.grades.record(runId, grade(1, 0));
      expect(c.id).not.toBe(b.id);
      expect((await store.grades.list(runId)).map((g) => g.id)).toEqual([a.id, c.id]);
      await expect(store.grades.delete('nope', a.id)).rejects.toBeInstanceOf(UnknownRunError);
      await expect(store.grades.list('nope')).rejects.toBeInstanceOf(UnknownRunError);
    });

    it('version changes whenever the grades of any run change (ids are never reused)', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const seen = new Set([await store.grades.version()]);
      const changed = async () => {
        const v = await store.grades.version();
        expect(seen.has(v), v).toBe(false);
        seen.add(v);
        return v;
      };
      const a = await store.grades.record(runId, grade(0, 0));
      await changed();
      const b = await store.grades.record(runId, grade(0, 1));
      await changed();
      await store.grades.delete(runId, a.id); // one grade again, but another one
      await changed();
      const c = await store.grades.record(runId, grade(1, 0));
      const withC = await changed();
      await store.grades.delete(runId, c.id); // the grades are {b} again: so may the version be
      expect(await store.grades.version()).not.toBe(withC);
      const other = (await store.runs.create(newRun())).id;
      await store.samples.record(other, sample(0, 0, [P, P]));
      const before = await store.grades.version();
      await store.samples.record(other, sample(0, 1, [P, P])); // samples do not change it
      expect(await store.grades.version()).toBe(before);
      await store.grades.record(other, grade(0, 0));
      expect(await store.grades.version()).not.toBe(before);
      expect(b.id).not.toBe(c.id);
    });

    it('pages: the grades of list, in the same order, a page at a time past the first page; filters as list does, an id included', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      // More than one page (5,000) of the SQL stores.
      const other = await interleaved(store, runId, [6000, 500], (k) =>
        grade(STORED[k % 4][0], STORED[k % 4][1], { grader: `g${k % 7}`, rule: k % 3 ? 'v1' : 'v0' }),
      );
      const all = await store.grades.list(runId);
      expect(all).toHaveLength(6500);
      const paged: number[] = [];
      let pages = 0;
      for await (const page of store.grades.pages(runId)) {
        pages++;
        for (const g of page) paged.push(g.id);
      }
      expect(paged).toEqual(all.map((g) => g.id));
      expect(pages).toBeGreaterThanOrEqual(1);
      const some: number[] = [];
      for await (const page of store.grades.pages(runId, { rule: 'v0', grader: 'g3' })) for (const g of page) some.push(g.id);
      expect(some).toEqual(all.filter((g) => g.rule === 'v0' && g.grader === 'g3').map((g) => g.id));
      expect(some.length).toBeGreaterThan(0);
      expect(await store.grades.list(runId, { id: all[4321].id })).toEqual([all[4321]]);
      expect(await store.grades.list(other, { id: all[4321].id })).toEqual([]);
      const none = store.grades.pages('nope')[Symbol.asyncIterator]();
      await expect(none.next()).rejects.toBeInstanceOf(UnknownRunError);
    });

    it('decisive: the grades that decide the combined grades, in the order recorded; combining them gives what combining all gives (issue 30)', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      // Many grades per output, graders correcting themselves, some drawn at random (a probability), of two rules.
      await interleaved(store, runId, [3000, 300], (k) => {
        const [i, j] = STORED[(k * 7) % 4];
        return grade(i, j, {
          rule: k % 3 ? 'v1' : 'v0',
          grade: (k * 13) % 5 < 2 ? 'pass' : 'fail',
          grader: `g${(k * 11) % 5}`,
          ...(k % 4 === 1 && k > 40 ? { probability: 0.1 + ((k * 17) % 9) / 10, design: `draw ${k % 3}` } : {}),
        });
      });
      const all = await store.grades.list(runId);
      const decisive: GradeRecord[] = [];
      for await (const page of store.grades.decisive(runId)) pushAll(decisive, page);
      expect(decisive).toEqual(decisiveGrades(all));
      // At most each grader's latest, the first and the first drawn, per output and rule: 2 rules × 4 outputs × (5 + 2).
      expect(decisive.length).toBeGreaterThan(2 * 4 * 5);
      expect(decisive.length).toBeLessThanOrEqual(2 * 4 * 7);
      const combined = (grades: readonly GradeRecord[]) =>
        combineGrades(
          grades.map((g) => ({
            i: g.i,
            j: g.j,
            k: g.rule === 'v0' ? 0 : 1,
            pass: g.grade === 'pass',
            grader: g.grader,
            at: g.id,
            probability: g.probability,
            design: g.design,
          })),
          2,
        );
      expect(combined(decisive)).toEqual(combined(all));
      expect(combined(all)[0].some((o) => o.probability !== undefined && o.disputed)).toBe(true);
      // A run without grades has none; no run is an UnknownRunError.
      const none: GradeRecord[] = [];
      for await (const page of store.grades.decisive((await store.runs.create(newRun())).id)) pushAll(none, page);
      expect(none).toEqual([]);
      await expect(store.grades.decisive('nope')[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(UnknownRunError);
    });

    it("version(runId) changes with that run's grades only", async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const other = (await store.runs.create(newRun())).id;
      await store.samples.record(other, sample(0, 0, [P, P]));
      const mine = await store.grades.version(runId);
      const theirs = await store.grades.version(other);
      const a = await store.grades.record(runId, grade(0, 0));
      const afterA = await store.grades.version(runId);
      expect(afterA).not.toBe(mine);
      expect(await store.grades.version(other)).toBe(theirs);
      await store.grades.record(other, grade(0, 0));
      expect(await store.grades.version(other)).not.toBe(theirs);
      expect(await store.grades.version(runId)).toBe(afterA);
      await store.grades.record(runId, grade(0, 1));
      const afterB = await store.grades.version(runId);
      await store.grades.delete(runId, a.id); // one grade again, but another one
      expect(await store.grades.version(runId)).not.toBe(afterB);
      expect(await store.grades.version(runId)).not.toBe(afterA);
    });

    it('keeps the grades of runs apart, and an id of one run cannot delete a grade of another', async () => {
      await using store = await make();
      const runId = await gradedRun(store);
      const other = (await store.runs.create(newRun())).id;
      await store.samples.record(other, sample(0, 0, [P, P]));
      const mine = await store.grades.record(runId, grade(0, 0));
      await store.grades.record(other, grade(0, 0, { grade: 'pass' }));
      expect(await store.grades.delete(other, mine.id)).toBe(false);
      expect((await store.grades.list(runId)).map((g) => g.grade)).toEqual(['fail']);
      expect((await store.grades.list(other)).map((g) => g.grade)).toEqual(['pass']);
    });
  });
}
