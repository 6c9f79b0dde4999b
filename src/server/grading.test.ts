import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { MemoryStore } from '../store/memory.js';
import type { RunRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';

// polite's judge passes outputs whose i + j is even and fails the rest.
const cell = (i: number, j: number) => ((i + j) % 2 ? Outcome.FAIL : Outcome.PASS);
let store: MemoryStore;
let run: RunRecord;
let seq: RunRecord;
let server: ServerHandle;
let readOnly: ServerHandle;
let guarded: ServerHandle;
const TOKEN = 'grading-test-token-0123456789';

beforeAll(async () => {
  store = new MemoryStore();
  run = await writeGradedFixture(store, { N: 10, M: 4, cell, config: { verdict: 'confident' } });
  seq = await writeGradedFixture(store, { N: 3, M: 2, cell, config: { stopping: 'sequential', verdict: 'confident' } });
  server = await startServer({ port: 0, store, grading: true, log: false });
  readOnly = await startServer({ port: 0, store, log: false });
  guarded = await startServer({ port: 0, store, grading: true, log: false, token: TOKEN });
});
afterAll(async () => {
  await Promise.all([server, readOnly, guarded].map((s) => s?.close()));
});

const api = (s: ServerHandle, path: string, init: RequestInit = {}) =>
  fetch(`${s.url}${path}`, init).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> })); // eslint-disable-line @typescript-eslint/no-explicit-any
const post = (s: ServerHandle, id: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  api(s, `/api/runs/${id}/grades`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('grading API', () => {
  it('serves a seeded random queue with inputs and outputs, and no verdict of the rule before grading', async () => {
    const q = await api(server, `/api/runs/${run.id}/grading?count=8&seed=5&design=uniform`);
    expect(q.status).toBe(200);
    // What the rule asks, never its message (said when it fails: "verifier polite judged the output FAIL").
    expect(q.body.rule).toEqual({ name: 'polite', kind: 'verifier', asks: 'LLM judge mock: Is the answer polite?' });
    expect(q.body.queue).toEqual({ design: 'uniform', seed: 5, population: 40, count: 8, left: 0 });
    expect(q.body.writable).toBe(true);
    // 40 outputs, the judge's error rates not yet measured: no number of grades makes a 10-point interval.
    expect(q.body.gradesNeeded).toEqual({ width: 0.1, level: 0.95, design: 'uniform', grades: null });
    for (const it of q.body.items) {
      expect(it).toMatchObject({
        probability: 0.2,
        input: `Question ${it.i}: how do I reset my password?`,
        output: `Answer ${it.i}.${it.j}: open Settings, then Security.`,
      });
      expect(it.rule).toBeUndefined();
      expect(JSON.stringify(it)).not.toMatch(/judge says/);
    }
    expect((await api(server, `/api/runs/${run.id}/grading?count=8&seed=5&design=uniform`)).body.items).toEqual(q.body.items);
    const stratified = (await api(server, `/api/runs/${run.id}/grading?count=8&seed=5`)).body;
    expect(stratified.queue.design).toBe('stratified');
    // The stratum a stratified queue drew an output from is the judge's verdict: not sent before grading either.
    for (const it of stratified.items) expect(Object.keys(it).sort()).toEqual(['design', 'i', 'input', 'j', 'output', 'probability']);
    // The runs list says which figure each rate is.
    const listed = (await api(server, '/api/runs')).body.runs.find((r: { id: string }) => r.id === run.id);
    expect(listed.validators[1]).toEqual({
      name: 'polite',
      rate: 0.5,
      verdict: 'fail',
      errorShare: 0,
      figure: "judge's rate · judge not checked against people",
    });
    expect(await (await fetch(`${server.url}/`)).text()).toContain(
      'polite 50.0%</span> <span class="muted">· judge&#39;s rate · judge not checked against people</span>',
    );
  });

  it('stores a grade and answers with the verdict and agreement; the queue and the run summary then show it', async () => {
    const q = await api(server, `/api/runs/${run.id}/grading?count=4&seed=9&grader=ada&design=uniform`);
    const it = q.body.items[0];
    const r = await post(server, run.id, { i: it.i, j: it.j, rule: 'polite', grade: 'fail', grader: 'ada', probability: it.probability, design: it.design });
    expect(r.status).toBe(201);
    const judge = cell(it.i, it.j) === Outcome.PASS ? 'pass' : 'fail';
    expect(r.body.grade).toMatchObject({ runId: run.id, i: it.i, j: it.j, rule: 'polite', grade: 'fail', grader: 'ada', probability: 0.1 });
    expect(r.body.rule).toEqual({ verdict: judge, reasons: [`judge says ${judge === 'pass' ? 'polite' : 'rude'} (${it.i}.${it.j})`], agree: judge === 'fail' });
    // The next queue is a batch of what nobody graded yet; the graded output, opened again, shows its verdict to its grader only.
    const again = await api(server, `/api/runs/${run.id}/grading?count=4&seed=9&grader=ada&design=uniform`);
    expect(again.body.queue.population).toBe(39);
    expect(again.body.items.some((x: { i: number; j: number }) => x.i === it.i && x.j === it.j)).toBe(false);
    const opened = await api(server, `/api/runs/${run.id}/grading?i=${it.i}&j=${it.j}&grader=ada`);
    expect(opened.body.items[0]).toMatchObject({ mine: { id: r.body.grade.id, grade: 'fail' }, rule: { verdict: judge } });
    expect((await api(server, `/api/runs/${run.id}/grading?i=${it.i}&j=${it.j}&grader=bob`)).body.items[0].rule).toBeUndefined();
    // The dashboard's run JSON is not kept stale by its cache.
    const summary = (await api(server, `/api/runs/${run.id}`)).body.summary;
    expect(summary.validators[1].grading.grades).toBe(1);
    expect(summary.validators[1].figure).toMatch(/^judge's rate · 1 grade\(s\)|^corrected by 1 grades/);

    const undo = await api(server, `/api/runs/${run.id}/grades/${r.body.grade.id}`, { method: 'DELETE' });
    expect(undo).toEqual({ status: 200, body: { deleted: r.body.grade, mine: null } });
    expect((await api(server, `/api/runs/${run.id}/grades/${r.body.grade.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api(server, `/api/runs/${run.id}`)).body.summary.validators[1].figure).toBe("judge's rate · judge not checked against people");
  });

  it('grades one output picked by hand, without a draw probability', async () => {
    const q = await api(server, `/api/runs/${run.id}/grading?i=2&j=3&rule=short`);
    expect(q.body.queue).toEqual({ design: 'picked by hand', seed: null, population: null, count: 1, left: 0 });
    expect(q.body.items).toEqual([{ i: 2, j: 3, input: 'Question 2: how do I reset my password?', output: 'Answer 2.3: open Settings, then Security.' }]);
    const r = await post(server, run.id, { i: 2, j: 3, rule: 'short', grade: 'pass', grader: 'ada' });
    expect(r.status).toBe(201);
    expect(r.body.grade.probability).toBeUndefined();
    const caveats = (await api(server, `/api/runs/${run.id}`)).body.summary.validators[0].grading.caveats as string[];
    expect(caveats[0]).toMatch(/^1 of 1 grades were not drawn at random/);
  });

  it('answers bad requests with 4xx naming the field, never storing them', async () => {
    const before = (await store.grades.list(run.id)).length;
    const good = { i: 0, j: 0, rule: 'polite', grade: 'pass', grader: 'ada' };
    expect(await post(server, run.id, good, { 'content-type': 'text/plain' })).toMatchObject({ status: 415, body: { error: 'unsupported_media_type' } });
    expect(await post(server, run.id, good, {})).toMatchObject({ status: 415 });
    expect(await post(server, run.id, '{"i": 0,')).toMatchObject({ status: 400, body: { error: 'invalid_json' } });
    expect(await post(server, run.id, { ...good, note: 'x' })).toMatchObject({
      status: 400,
      body: { field: 'note', message: expect.stringMatching(/^note: unknown key \(expected one of: i, j, rule, grade, grader, probability, design\)/) },
    });
    expect(await post(server, run.id, { ...good, grade: 'maybe' })).toMatchObject({ status: 400, body: { field: 'grade' } });
    expect(await post(server, run.id, { ...good, i: 10 })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grade', field: 'i', message: expect.stringMatching(/0\.\.9/) },
    });
    expect(await post(server, run.id, { ...good, rule: 'kind' })).toMatchObject({ status: 400, body: { field: 'rule' } });
    expect(await post(server, run.id, { ...good, grader: 'x'.repeat(300) })).toMatchObject({ status: 400, body: { field: 'grader' } });
    expect(await post(server, run.id, { ...good, grader: 'x'.repeat(20_000) })).toMatchObject({ status: 413 });
    expect(await post(server, 'nope', good)).toMatchObject({ status: 404 });
    expect(await post(server, seq.id, good)).toMatchObject({
      status: 409,
      body: { error: 'not_gradable', message: expect.stringMatching(/stopping: sequential/) },
    });
    expect(await api(server, `/api/runs/${seq.id}/grading`)).toMatchObject({ status: 409 });
    expect(await api(server, `/api/runs/${run.id}/grading?rule=kind`)).toMatchObject({ status: 400, body: { field: 'rule' } });
    expect(await api(server, `/api/runs/${run.id}/grading?count=0`)).toMatchObject({ status: 400, body: { field: 'count' } });
    expect(await api(server, `/api/runs/${run.id}/grading?design=x`)).toMatchObject({ status: 400, body: { field: 'design' } });
    expect(await api(server, `/api/runs/${run.id}/grading?i=1`)).toMatchObject({ status: 400, body: { field: 'j' } });
    expect(await api(server, `/api/runs/${run.id}/grading?i=99&j=0`)).toMatchObject({ status: 400, body: { field: 'i' } });
    expect(await api(server, `/api/runs/${run.id}/grades/abc`, { method: 'DELETE' })).toMatchObject({ status: 404 });
    expect((await store.grades.list(run.id)).length).toBe(before);
  });

  it('a server without --grading shows the queue but takes no grades; the token and Host checks hold', async () => {
    const good = { i: 0, j: 0, rule: 'polite', grade: 'pass', grader: 'ada' };
    expect((await api(readOnly, `/api/runs/${run.id}/grading`)).body.writable).toBe(false);
    expect(await post(readOnly, run.id, good)).toMatchObject({
      status: 403,
      body: { error: 'grading_off', message: expect.stringMatching(/assay serve --grading/) },
    });
    expect(await api(readOnly, `/api/runs/${run.id}/grades/1`, { method: 'DELETE' })).toMatchObject({ status: 403 });
    expect(await post(guarded, run.id, good)).toMatchObject({ status: 401 });
    expect(await post(guarded, run.id, good, { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` })).toMatchObject({ status: 201 });
    // DNS rebinding: a page of another site reaching the loopback server under its own name gets 403.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: `/api/runs/${run.id}/grades`,
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(good));
    });
    expect(status).toBe(403);
  });

  it('serves the grading page, and says why a sequential run takes no grades', async () => {
    const page = await fetch(`${server.url}/runs/${run.id}/grade`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="g-item"');
    expect(html).not.toContain('data-testid="grading-off"');
    expect(await (await fetch(`${readOnly.url}/runs/${run.id}/grade`)).text()).toContain('assay serve --grading');
    expect(await (await fetch(`${server.url}/runs/${seq.id}/grade`)).text()).toMatch(/used stopping: sequential, which takes no grades/);
    expect((await fetch(`${server.url}/runs/nope/grade`)).status).toBe(404);
    expect(await (await fetch(`${server.url}/runs/${run.id}`)).text()).toContain(`href="/runs/${run.id}/grade"`);
  });
});
