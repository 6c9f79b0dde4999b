import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { setAssayCommand } from '../invocation.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { NewGrade, RunRecord } from '../store/types.js';
import { DashboardViews } from './dashboard-views.js';
import { startServer, type ServerHandle } from './start.js';

// Issue 30: after a large import, reading and summarising a run's grades took the server's thread for seconds.
// Served with the store's location (as assay serve does), the dashboard's reads run on a worker thread with a
// connection of its own: this thread never makes a view, and every answer is the one this thread would give.

const dir = mkdtempSync(join(tmpdir(), 'assay-dashboard-pool-'));
const path = join(dir, 'assay.db');
let store: SqliteStore;
let run: RunRecord;
let other: RunRecord;
let auditId: string;
let pooled: ServerHandle;
let local: ServerHandle;

beforeAll(async () => {
  store = openSqliteStore(path);
  run = await writeGradedFixture(store, { N: 40, M: 5, cell: (i, j, k) => ((i + j + k) % 3 ? Outcome.PASS : Outcome.FAIL) });
  other = await writeGradedFixture(store, { N: 40, M: 5, cell: (i, j) => ((i * j) % 4 ? Outcome.PASS : Outcome.FAIL) });
  // More than a page of the store (5,000): corrections, several graders, drawn and hand-picked grades.
  const grades: NewGrade[] = [];
  for (let n = 0; n < 7000; n++)
    grades.push({
      i: (n * 7) % 40,
      j: n % 5,
      rule: n % 2 ? 'polite' : 'short',
      grade: n % 5 ? 'pass' : 'fail',
      grader: `g${n % 6}`,
      ...(n % 3 === 0 ? { probability: 0.2, design: 'uniform' } : {}),
    });
  await store.grades.recordMany(run.id, grades);
  auditId = (
    await store.audits.create({
      name: 'kb answers',
      claims: [
        { answer: 'returns', claim: 1, text: 'Returns are accepted within 30 days.', status: 'STRONG', evidence: 'Items may be returned within 30 days.' },
        { answer: 'returns', claim: 2, text: 'Refunds take two weeks.', status: 'CONTRADICTED', evidence: 'Refunds take 10 working days.' },
      ],
    })
  ).audit.id;
  await store.audits.recordGrades(auditId, [{ answer: 'returns', claim: 1, supported: true, grader: 'ada' }]);
  setAssayCommand('npx assay'); // as the bin sets it under npx: the worker's hints must say it too
  pooled = await startServer({ port: 0, store, storeLocation: path, grading: true, log: false });
  local = await startServer({ port: 0, store, grading: true, log: false });
}, 60_000);
afterAll(async () => {
  setAssayCommand('assay');
  await Promise.all([pooled, local].map((s) => s?.close()));
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (s: ServerHandle, p: string) => {
  const r = await fetch(s.url + p);
  return { status: r.status, type: r.headers.get('content-type'), csp: r.headers.get('content-security-policy'), body: await r.text() };
};

describe('dashboard reads on a worker thread (issue 30)', () => {
  it('answers every read exactly as this thread would, without making a view on this thread', async () => {
    const paths = [
      '/',
      '/api/runs',
      `/runs/${run.id}`,
      `/api/runs/${run.id}`,
      `/api/runs/${run.id}/grading?rule=polite&seed=3`,
      `/api/runs/${run.id}/grading?rule=short&count=7&design=stratified&seed=11&grader=g1`,
      `/api/runs/${run.id}/grading?rule=short&i=14&j=2&grader=g2`,
      `/api/compare?a=${other.id}&b=${run.id}`,
      `/compare?a=${other.id}&b=${run.id}&adjust=holm`,
      '/api/trend/graded',
      '/trend/graded',
      `/api/audits/${auditId}/grading?seed=2`,
      '/api/runs/nope',
      `/api/runs/${run.id}/grading?rule=nope`,
      '/api/runs?limit=0',
    ];
    const made = vi.spyOn(DashboardViews.prototype, 'read');
    const fromWorker = [];
    for (const p of paths) fromWorker.push(await get(pooled, p));
    expect(made).not.toHaveBeenCalled(); // the worker has its own copy of the module: its views are not this spy's
    for (const [n, p] of paths.entries()) expect(fromWorker[n], p).toEqual(await get(local, p));
    expect(made).toHaveBeenCalled();
    made.mockRestore();
    expect(fromWorker.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 404, 400, 400]);
    expect(fromWorker[2].csp).toContain("default-src 'none'");
    expect(JSON.parse(fromWorker[12].body).message).toContain('(list them with: npx assay runs)');
    expect(fromWorker[3].type).toBe('application/json');
    // The hand-picked output comes with this grader's latest grade of it, and the rule's verdict.
    const picked = JSON.parse(fromWorker[6].body) as { items: { mine?: { id: number; grade: string } }[] };
    const latest = (await store.grades.list(run.id, { rule: 'short', grader: 'g2', i: 14, j: 2 })).at(-1)!;
    expect(picked.items[0].mine).toEqual({ id: latest.id, grade: latest.grade });
  });

  it('sees a grade stored on this thread at once, and an undo', async () => {
    const before = JSON.parse((await get(pooled, `/api/runs/${run.id}`)).body) as { summary: unknown };
    const posted = await fetch(`${pooled.url}/api/runs/${run.id}/grades`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ i: 39, j: 4, rule: 'polite', grade: 'fail', grader: 'new person' }),
    });
    expect(posted.status).toBe(201);
    const { grade } = (await posted.json()) as { grade: { id: number } };
    const after = await get(pooled, `/api/runs/${run.id}`);
    expect(JSON.parse(after.body).summary).not.toEqual(before.summary);
    expect(after).toEqual(await get(local, `/api/runs/${run.id}`));
    const queue = await get(pooled, `/api/runs/${run.id}/grading?rule=polite&seed=3`);
    expect(queue).toEqual(await get(local, `/api/runs/${run.id}/grading?rule=polite&seed=3`));
    const undone = await fetch(`${pooled.url}/api/runs/${run.id}/grades/${grade.id}`, { method: 'DELETE' });
    expect(undone.status).toBe(200);
    expect(JSON.parse((await get(pooled, `/api/runs/${run.id}`)).body).summary).toEqual(before.summary);
    // Undoing a correction: the grader's earlier grade (found by the worker) counts again.
    const twice = async (grade: string) =>
      (
        (await (
          await fetch(`${pooled.url}/api/runs/${run.id}/grades`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ i: 38, j: 4, rule: 'polite', grade, grader: 'twice' }),
          })
        ).json()) as { grade: { id: number } }
      ).grade.id;
    const [first, second] = [await twice('pass'), await twice('fail')];
    const corrected = await fetch(`${pooled.url}/api/runs/${run.id}/grades/${second}`, { method: 'DELETE' });
    expect(await corrected.json()).toMatchObject({ deleted: { id: second }, mine: { id: first, grade: 'pass' } });
    // An audit grade's summary is made by the worker too, and counts the grade just stored.
    const claim = await fetch(`${pooled.url}/api/audits/${auditId}/grades`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'returns', claim: 2, supported: false, grader: 'ada' }),
    });
    expect(claim.status).toBe(201);
    const body = (await claim.json()) as { summary: { graded: number; lines: string[] } };
    expect(body.summary.graded).toBe(2);
    expect(body.summary).toEqual(JSON.parse((await get(local, `/api/audits/${auditId}/grading`)).body).summary);
  });
});
