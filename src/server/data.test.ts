import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MIN_PROBABILITY } from '../core/limits.js';
import { summarizeRun } from '../core/decision.js';
import { Outcome } from '../core/outcome.js';
import { gradingPlan, gradingQueue, queueSettings } from '../grades/queue.js';
import { loadGrading } from '../grades/load.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { MemoryStore } from '../store/memory.js';
import { openSqliteStore } from '../store/sqlite.js';
import type { NewGrade, Store } from '../store/types.js';
import { DashboardData } from './data.js';
import { gradingQueueView } from './grading.js';

// Issue 30: the dashboard's summaries now combine the store's pages as they come, key kept summaries by the
// run's own grades version, and the grading queue draws from the kept summary's combined grades. Each figure
// must equal what the old path (every grade listed, then combined; the queue from the rule's grades) gave.

const dir = mkdtempSync(join(tmpdir(), 'assay-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function gradedStore(store: Store) {
  const run = await writeGradedFixture(store, { N: 60, M: 4, cell: (i, j, k) => ((i * 3 + j + k) % 5 ? Outcome.PASS : Outcome.FAIL) });
  const grades: NewGrade[] = [];
  // Over a page of the SQL stores; corrections, disagreements, drawn grades with extreme but accepted probabilities.
  for (let n = 0; n < 5600; n++)
    grades.push({
      i: (n * 11) % 60,
      j: (n >> 2) % 4,
      rule: n % 3 ? 'polite' : 'short',
      grade: (n * 7) % 4 ? 'pass' : 'fail',
      grader: `g${n % 9}`,
      ...(n % 4 === 0 ? { probability: n % 8 ? 0.3 : MIN_PROBABILITY, design: n % 16 ? 'uniform' : 'stratified' } : {}),
    });
  await store.grades.recordMany(run.id, grades);
  return run;
}

describe.each([
  ['memory', async () => new MemoryStore() as Store],
  ['sqlite', async () => openSqliteStore(join(dir, `${Math.random().toString(36).slice(2)}.db`)) as Store],
])('summaries by the new path equal the old (%s)', (_name, make) => {
  it('the run summary (alignment, PPI-corrected rates) equals the one made from every grade listed', async () => {
    await using store = await make();
    const run = await gradedStore(store);
    const tensor = await store.samples.tensor(run.id);
    const old = summarizeRun(run, tensor, {}, await loadGrading(store, run, await store.grades.list(run.id)));
    const data = new DashboardData(store);
    const loaded = (await data.load(run.id))!;
    expect(loaded.summary).toEqual(old);
    expect(JSON.stringify(loaded.summary)).toBe(JSON.stringify(old));
    expect(old.validators.some((v) => v.grading?.corrected)).toBe(true); // the figures compared are there
    // A grade given since: only it is read and added to the grades kept combined, and the summary is the old path's.
    const late = await store.grades.record(run.id, { i: 0, j: 0, rule: 'polite', grade: 'fail', grader: 'late' });
    await store.grades.record(run.id, { i: 1, j: 3, rule: 'short', grade: 'pass', grader: 'g1', probability: 0.5, design: 'uniform' });
    const again = summarizeRun(run, tensor, {}, await loadGrading(store, run, await store.grades.list(run.id)));
    const pages = vi.spyOn(store.grades, 'pages');
    const decisive = vi.spyOn(store.grades, 'decisive');
    expect((await data.load(run.id))!.summary).toEqual(again);
    // Reads of the whole log (those that decide, or every grade).
    const all = () => pages.mock.calls.filter(([, filter]) => filter?.after === undefined).length + decisive.mock.calls.length;
    expect(all()).toBe(0);
    expect(again).not.toEqual(old);
    // An undo: everything is read again.
    await store.grades.delete(run.id, late.id);
    pages.mockClear();
    decisive.mockClear();
    const reloaded = (await data.load(run.id))!.summary;
    expect(all()).toBe(1);
    const undone = summarizeRun(run, tensor, {}, await loadGrading(store, run, await store.grades.list(run.id)));
    expect(reloaded).toEqual(undone);
    expect(undone).not.toEqual(again);
  });

  it("the grading queue and the grades it needs equal those drawn from the rule's grades", async () => {
    await using store = await make();
    const run = await gradedStore(store);
    const data = new DashboardData(store);
    const tensor = await store.samples.tensor(run.id);
    for (const [rule, k] of [
      ['polite', 1],
      ['short', 0],
    ] as const)
      for (const design of ['uniform', 'stratified'] as const) {
        const settings = queueSettings(run.id, rule, { design, seed: 17, count: 25 });
        const ruleGrades = await store.grades.list(run.id, { rule });
        const queue = gradingQueue(tensor, k, { count: settings.count, design, seed: settings.seed, graded: ruleGrades });
        const { graded: _graded, ...plan } = gradingPlan(run, tensor, k, ruleGrades, { width: settings.width, design });
        const view = await gradingQueueView(store, data, false, { params: { id: run.id }, query: { rule, design, seed: '17', count: '25' } });
        const body = JSON.parse(view.body) as { items: { i: number; j: number; probability: number }[]; queue: { population: number }; gradesNeeded: unknown };
        expect(body.items.map(({ i, j, probability }) => ({ i, j, probability }))).toEqual(queue.items.map(({ i, j, probability }) => ({ i, j, probability })));
        expect(body.queue.population).toBe(queue.population);
        expect(body.gradesNeeded).toEqual(plan);
        expect(queue.items.length).toBeGreaterThan(0);
      }
  });
});
