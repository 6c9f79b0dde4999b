import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MIN_PROBABILITY } from '../core/limits.js';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { startServer, type ServerHandle } from '../server/start.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { NewGrade } from '../store/types.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * Issue 30, item 1: every number a file or the API gives a grade is checked where it enters, with a bound the
 * arithmetic downstream takes; every view survives any value a store may hold; a bad grade can be removed.
 */
const tmp = useConfigDir('assay-grade-extremes-');
const cli = (...args: string[]) => captureCli(args);
const servers: ServerHandle[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function fixtureStore() {
  const path = join(tmp.dir(), `s${Math.random().toString(36).slice(2)}.db`);
  const store = openSqliteStore(path);
  const cell = (i: number, j: number) => ((i + j) % 3 ? Outcome.PASS : Outcome.FAIL);
  const a = await writeGradedFixture(store, { N: 4, M: 3, cell });
  const b = await writeGradedFixture(store, { N: 4, M: 3, cell });
  await store.close();
  return { path, runId: b.id, otherId: a.id };
}

/** Every view of a run that reads its grades: none may fail, whatever the grades hold. */
async function everyViewWorks(path: string, runId: string, otherId: string, server: ServerHandle): Promise<void> {
  const show = await cli('show', runId, '--store', path, '--json', '-');
  expect(show.code, show.err).toBeLessThanOrEqual(1);
  expect(show.err).not.toMatch(/NaN|at .*\.ts:\d+|Error:/);
  const report = JSON.parse(show.out) as { validators: { name: string; grading?: unknown }[] };
  expect(JSON.stringify(report)).not.toMatch(/null,"low":NaN|NaN/);
  const print = await cli('grade', runId, '--rule', 'polite', '--print', '--store', path);
  // 0, or 2 when every output the rule decided is graded: never 3.
  expect([0, 2], print.err).toContain(print.code);
  expect(print.err).not.toMatch(/NaN|Error:/);
  const cmp = await cli('compare', otherId, runId, '--store', path);
  expect(cmp.code, cmp.err).toBeLessThanOrEqual(1);
  expect(cmp.err).not.toMatch(/NaN|Error:/);
  for (const url of [
    `/runs/${runId}`,
    `/api/runs/${runId}`,
    `/api/runs/${runId}/grading?rule=polite`,
    `/api/runs/${runId}/grading?rule=short`,
    `/compare?a=${otherId}&b=${runId}`,
    `/api/compare?a=${otherId}&b=${runId}`,
    '/',
  ]) {
    const r = await fetch(`${server.url}${url}`);
    const text = await r.text();
    expect(r.status, `${url}: ${text.slice(0, 300)}`).toBe(200);
    expect(text, url).not.toMatch(/NaN/);
  }
}

describe('grade probabilities: checked where they enter, survived wherever they are stored', () => {
  it(`refuses a probability below ${MIN_PROBABILITY} from JSONL, CSV and the API, naming the line or field (exit 2 / 400)`, async () => {
    const { path, runId } = await fixtureStore();
    const jsonl = tmp.config(
      'tiny.jsonl',
      '{"input": 0, "sample": 1, "rule": "polite", "grade": "pass", "grader": "a", "probability": 0.5}\n' +
        '{"input": 1, "sample": 1, "rule": "polite", "grade": "pass", "grader": "a", "probability": 1e-155}\n',
    );
    const r = await cli('grades', 'import', jsonl, '--run', runId, '--store', path);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/tiny\.jsonl: line 2: field "probability": expected a number in \[1e-9, 1\].*found 1e-155/);
    const csv = tmp.config('tiny.csv', 'input,sample,rule,grade,grader,probability\n0,1,polite,pass,a,0.5\n1,1,polite,fail,a,1e-155\n');
    const c = await cli('grades', 'import', csv, '--run', runId, '--store', path);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/tiny\.csv: line 3: field "probability": expected a number in \[1e-9, 1\]/);

    const server = await startServer({ port: 0, store: openSqliteStore(path), grading: true, log: false });
    servers.push(server);
    const post = await fetch(`${server.url}/api/runs/${runId}/grades`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ i: 1, j: 1, rule: 'polite', grade: 'pass', grader: 'a', probability: 1e-155 }),
    });
    expect(post.status).toBe(400);
    expect(((await post.json()) as { field: string }).field).toBe('probability');
    expect((await fetch(`${server.url}/api/runs/${runId}`)).status).toBe(200);
  });

  it('a store already holding a grade of probability 1e-155 (or 0, 2, 5e-324) stays viewable, and `assay grade --remove` removes it', async () => {
    const { path, runId, otherId } = await fixtureStore();
    const seed = openSqliteStore(path);
    await seed.grades.recordMany(runId, [
      { i: 0, j: 1, rule: 'polite', grade: 'pass', grader: 'a', probability: 0.5, design: 'uniform' },
      { i: 0, j: 2, rule: 'polite', grade: 'fail', grader: 'a', probability: 0.25, design: 'uniform' },
    ]);
    await seed.close();
    // Written as an older assay (no bound) or a hand-edited store would have.
    const db = new Database(path);
    const ids: number[] = [];
    for (const [i, j, p] of [
      [1, 1, 1e-155],
      [1, 2, 5e-324],
      [2, 0, 0],
      [2, 1, 2],
    ] as const)
      ids.push(
        Number(
          db
            .prepare(
              `INSERT INTO grades (run_id, i, j, rule, grade, grader, graded_at, probability, design) VALUES (?, ?, ?, 'polite', 'pass', 'b', ?, ?, 'x')`,
            )
            .run(runId, i, j, '2026-01-01T00:00:00.000Z', p).lastInsertRowid,
        ),
      );
    db.close();
    const server = await startServer({ port: 0, store: openSqliteStore(path), grading: true, log: false });
    servers.push(server);
    await everyViewWorks(path, runId, otherId, server);
    // The out-of-bound grade is named with the way to remove it.
    const show = await cli('show', runId, '--store', path);
    expect(show.out + show.err).toMatch(new RegExp(`grade ${ids[0]} .*probability 1e-155.*assay grade ${runId} --remove ${ids[0]}`));

    const removed = await cli('grade', runId, '--remove', String(ids[0]), '--store', path);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.err).toMatch(new RegExp(`removed grade ${ids[0]} of run ${runId}: output \\(1, 1\\), rule polite, pass by b`));
    const again = await cli('grade', runId, '--remove', String(ids[0]), '--store', path);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(new RegExp(`--remove: run ${runId} has no grade ${ids[0]}`));
    expect((await cli('grade', runId, '--remove', 'x1', '--store', path)).code).toBe(2);
    const exported = await cli('grades', 'export', '--run', runId, '--store', path, '--ids');
    expect(
      exported.out
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).not.toContain(ids[0]);
    expect(exported.out).toContain(`"id":${ids[1]}`);
  });

  it('property: any accepted values (probabilities at the bounds, many graders, disagreement, dates at the edges) leave every view working', async () => {
    const { path, runId, otherId } = await fixtureStore();
    const server = await startServer({ port: 0, store: openSqliteStore(path), grading: true, log: false });
    servers.push(server);
    const probability = fc.oneof(
      fc.constant(MIN_PROBABILITY),
      fc.constant(1),
      fc.double({ min: MIN_PROBABILITY, max: 1, noNaN: true }),
      fc.constant(MIN_PROBABILITY * (1 + Number.EPSILON)),
      fc.constant(1 - Number.EPSILON),
    );
    // Outputs with a stored output: (3, 2) failed in none of these fixtures, every cell is stored.
    const grade = fc.record({
      i: fc.integer({ min: 0, max: 3 }),
      j: fc.integer({ min: 0, max: 2 }),
      rule: fc.constantFrom('polite', 'short'),
      grade: fc.constantFrom('pass' as const, 'fail' as const),
      grader: fc.constantFrom('a', 'b', 'c', '\u202etxt.exe'),
      probability: fc.option(probability, { nil: undefined }),
      gradedAt: fc.option(fc.constantFrom('1970-01-01T00:00:00Z', '2000-02-29T12:00:00Z', new Date(Date.now() - 1000).toISOString()), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(grade, { minLength: 1, maxLength: 12 }), async (grades) => {
        const store = openSqliteStore(path);
        const before = (await store.grades.list(runId)).map((g) => g.id);
        const stored = await store.grades.recordMany(
          runId,
          grades.map((g): NewGrade => {
            const { probability, gradedAt, ...rest } = g;
            return { ...rest, ...(probability !== undefined ? { probability, design: 'external' } : {}), ...(gradedAt ? { gradedAt } : {}) };
          }),
        );
        await store.close();
        try {
          await everyViewWorks(path, runId, otherId, server);
        } finally {
          const s = openSqliteStore(path);
          for (const g of stored) if (!before.includes(g.id)) await s.grades.delete(runId, g.id);
          await s.close();
        }
      }),
      { numRuns: 12, seed: 30 },
    );
  }, 180_000);
});

describe('grade dates: validated where they enter; grades ordered by when assay recorded them', () => {
  it('refuses Feb 30 and a date in the future (exit 2 naming the line), and a correction on the page outranks an import dated later', async () => {
    const { path, runId } = await fixtureStore();
    const at = (gradedAt: string, grade = 'fail') =>
      `{"input": 0, "sample": 1, "rule": "polite", "grade": "${grade}", "grader": "ada", "gradedAt": "${gradedAt}"}`;
    for (const [date, message] of [
      [
        '2026-02-30T10:00:00Z',
        /dates\.jsonl: line 2: field "gradedAt": .*calendar has \(2026-02 has days 1 to 28.*found "2026-02-30T10:00:00Z"; nothing was imported/,
      ],
      ['2099-01-01T00:00:00Z', /dates\.jsonl: line 2: field "gradedAt": .*must not be in the future.*; nothing was imported/],
    ] as const) {
      const file = tmp.config('dates.jsonl', `${at('2026-01-01T00:00:00Z')}\n${at(date)}\n`);
      const r = await cli('grades', 'import', file, '--run', runId, '--store', path);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(message);
    }
    // Dated 30 s ahead (inside the minute of skew allowed): a later correction still counts.
    const ahead = tmp.config('ahead.jsonl', `${at(new Date(Date.now() + 30_000).toISOString())}\n`);
    expect((await cli('grades', 'import', ahead, '--run', runId, '--store', path)).code).toBe(0);
    const server = await startServer({ port: 0, store: openSqliteStore(path), grading: true, log: false });
    servers.push(server);
    const post = await fetch(`${server.url}/api/runs/${runId}/grades`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ i: 0, j: 1, rule: 'polite', grade: 'pass', grader: 'ada' }),
    });
    expect(post.status).toBe(201);
    const q = (await (await fetch(`${server.url}/api/runs/${runId}/grading?rule=polite&grader=ada&i=0&j=1`)).json()) as {
      items: { mine?: { grade: string } }[];
    };
    expect(q.items[0].mine?.grade).toBe('pass');
    const show = await cli('show', runId, '--store', path, '--json', '-');
    const polite = (JSON.parse(show.out) as { validators: { name: string; alignment?: { tp: number; fn: number } }[] }).validators.find(
      (v) => v.name === 'polite',
    )!;
    // (0, 1): the judge said PASS ((0 + 1) % 3 ≠ 0) and the person's grade that counts is the correction, PASS.
    expect(polite.alignment).toMatchObject({ tp: 1, fn: 0 });
  });
});
