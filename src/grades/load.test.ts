import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { combineGrades } from '../core/grades.js';
import { mulberry32 } from '../core/prng.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { NewGrade } from '../store/types.js';
import { loadGrading, loadGradingKept, personGrades } from './load.js';
import { writeGradedFixture } from './testing/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadGrading reads only the grades that decide (GradeStore.decisive), and gives what combining all of them gives', () => {
  it('property: seeded logs of corrections, draws and probabilities out of bounds (written as an older assay would), SQLite', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const path = join(dir, `s${seed}.db`);
      const store = openSqliteStore(path);
      const run = await writeGradedFixture(store, { N: 6, M: 3, cell: (i, j) => ((i + j) % 3 ? Outcome.PASS : Outcome.FAIL) });
      const rnd = mulberry32(seed);
      const pick = (n: number) => Math.floor(rnd() * n);
      const grades: NewGrade[] = Array.from({ length: 400 }, () => ({
        i: pick(6),
        j: pick(3),
        rule: pick(2) ? 'polite' : 'short',
        grade: pick(2) ? 'pass' : 'fail',
        grader: `g${pick(4)}`,
        ...(pick(3) === 0 ? { probability: 0.05 + pick(19) / 20, design: pick(2) ? 'uniform' : 'stratified' } : {}),
      }));
      await store.grades.recordMany(run.id, grades.slice(0, 200));
      await store.close();
      const db = new Database(path);
      const insert = db.prepare(
        `INSERT INTO grades (run_id, i, j, rule, grade, grader, graded_at, probability, design) VALUES (?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', ?, 'old')`,
      );
      for (const p of [1e-155, 0, 2, 1e-9, 1]) insert.run(run.id, pick(6), pick(3), pick(2) ? 'polite' : 'short', pick(2) ? 'pass' : 'fail', `g${pick(4)}`, p);
      db.close();
      const again = openSqliteStore(path);
      await again.grades.recordMany(run.id, grades.slice(200));
      const all = await again.grades.list(run.id);
      const expected = combineGrades(personGrades(run, all), run.K);
      const read = (await loadGrading(again, run))!.map((outs) => outs.map(({ reasons: _, ...o }) => o));
      expect(read, `seed ${seed}`).toEqual(expected);
      expect(expected.flat().some((o) => o.notes?.length)).toBe(true);
      expect(expected.flat().some((o) => o.probability !== undefined && o.disputed)).toBe(true);
      // The server's kept combination: read once, then a grade added, equals a fresh read.
      const version = await again.grades.version(run.id);
      const first = await loadGradingKept(again, run, version);
      await again.grades.record(run.id, { i: 0, j: 0, rule: 'polite', grade: 'fail', grader: 'late' });
      const next = await loadGradingKept(again, run, await again.grades.version(run.id), first.kept);
      expect(next.kept.combiner).toBe(first.kept.combiner); // added to, not read again
      expect(next.grading).toEqual(await loadGrading(again, run));
      await again.close();
    }
  });
});
