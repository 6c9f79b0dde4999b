import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { RunRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { writeFixtureRun } from './testing/fixtures.js';

const { PASS, FAIL, ERROR } = Outcome;

let dir: string;
let store: SqliteStore;
let server: ServerHandle;
let base: RunRecord;
let worse: RunRecord;
let other: RunRecord;

async function get(path: string) {
  const res = await fetch(server.url + path);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text(),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'assay-dash-'));
  const path = join(dir, 'assay.db');
  const writer = openSqliteStore(path);
  // Baseline: 'short' passes all 3×4 cells; 'polite' fails input 2 everywhere (8/12); input 0 sample 3 errors on 'polite'.
  base = await writeFixtureRun(writer, {
    name: 'support-bot',
    inputs: ['hi', 'refund please', 'bye'],
    samples: 4,
    validators: [
      { name: 'short', minSuccess: 0.9 },
      { name: 'polite', minSuccess: 0.5 },
    ],
    cell: (i, j, k) => (k === 0 ? PASS : i === 0 && j === 3 ? ERROR : i === 2 ? FAIL : PASS),
  });
  await new Promise((r) => setTimeout(r, 5));
  // Candidate: 'short' now fails every cell of inputs 1 and 2 (4/12) → significantly worse.
  worse = await writeFixtureRun(writer, {
    name: 'support-bot',
    inputs: ['hi', 'refund please', 'bye'],
    samples: 4,
    validators: [
      { name: 'short', minSuccess: 0.9 },
      { name: 'polite', minSuccess: 0.5 },
    ],
    cell: (i, j, k) => (k === 0 ? (i === 0 ? PASS : FAIL) : i === 2 ? FAIL : PASS),
  });
  other = await writeFixtureRun(writer, {
    name: 'other-exp',
    inputs: [{ q: 'x' }],
    samples: 2,
    validators: [{ name: 'v' }],
    cell: () => PASS,
    skip: (_i, j) => j === 1,
  });
  await writer.close();
  store = openSqliteStore(path, { readonly: true });
  server = await startServer({ port: 0, store, log: false });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard data endpoints', () => {
  it('lists runs newest first with shape, verdict and overall rates, and filters by name', async () => {
    const all = await get('/api/runs');
    expect(all.status).toBe(200);
    expect(all.body.runs.map((r: { id: string }) => r.id)).toEqual([other.id, worse.id, base.id]);
    const b = all.body.runs.find((r: { id: string }) => r.id === base.id);
    expect(b.shape).toEqual({ N: 3, M: 4, K: 2 });
    // short 12/12 = 1; polite: 8 pass / (8 + 4 fail), the error excluded → 7/11
    expect(b.validators.map((v: { rate: number }) => v.rate)).toEqual([1, 7 / 11]);
    expect(b.overall.mean).toBeCloseTo((1 + 7 / 11) / 2, 12);
    // Every rate with its error share: polite's 1 error of 12 cells (8.3% > maxErrorShare 5%) makes its verdict `error`.
    expect(b.overall.errorShare).toBeCloseTo(1 / 24, 12);
    expect(b.validators.map((v: { errorShare: number }) => v.errorShare)).toEqual([0, 1 / 12]);
    expect(b.verdict).toBe('error');
    // The all-validators-at-once rate leaves out the one output with an error cell, and says so.
    expect(b.allPassErrorShare).toBeCloseTo(1 / 12, 12);
    const filtered = await get('/api/runs?name=OTHER');
    expect(filtered.body.runs.map((r: { id: string }) => r.id)).toEqual([other.id]);
  });

  it('serves a run with its summary and the tensor as digits in (i, j, k) order', async () => {
    const r = await get(`/api/runs/${base.id}`);
    expect(r.status).toBe(200);
    expect(r.body.tensor).toMatchObject({ N: 3, M: 4, K: 2 });
    // input 0: samples 0..2 → "11", sample 3 → "13"; input 1 → "11"×4; input 2 → "12"×4
    expect(r.body.tensor.cells).toBe('111111131111111112121212');
    expect(r.body.summary.validators[1].counts).toEqual({ pass: 7, fail: 4, error: 1, pending: 0 });
    expect(r.body.run.config).toBeUndefined();
    expect(r.body.errors).toEqual({ total: 1, distinct: 1, groups: [{ message: 'provider timeout', count: 1, variants: 1 }] });
    const pending = await get(`/api/runs/${other.id}`);
    expect(pending.body.tensor.cells).toBe('10');
    expect((await get('/api/runs/nope')).status).toBe(404);
    // A prefix of several ids: 404 saying so, with the candidates, as the CLI does (not "no run with id").
    let common = 0;
    while (base.id[common] === worse.id[common]) common++;
    const ambiguous = await get(`/api/runs/${base.id.slice(0, common)}`);
    expect(ambiguous.status).toBe(404);
    expect(JSON.stringify(ambiguous.body)).toMatch(/starts \d+ run ids \(.*give more of the id/);
    expect(JSON.stringify(ambiguous.body)).toContain(base.id);
    expect(await (await fetch(`${server.url}/runs/${base.id.slice(0, common)}`)).text()).toContain('give more of the id');
  });

  it('serves one sample with input, output and every validator outcome', async () => {
    const s = await get(`/api/runs/${base.id}/samples/0/3`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ i: 0, j: 3, input: 'hi', output: 'output 0-3' });
    expect(s.body.outcomes).toEqual([
      { validator: 'short', outcome: 'pass' },
      { validator: 'polite', outcome: 'error', error: 'provider timeout' },
    ]);
    expect((await get(`/api/runs/${base.id}/samples/3/0`)).status).toBe(404);
    expect((await get(`/api/runs/${base.id}/samples/-1/0`)).status).toBe(404);
    expect((await get(`/api/runs/${other.id}/samples/0/1`)).status).toBe(404);
  });

  it('builds the trend of one name with the significance of each change', async () => {
    const t = await get('/api/trend/support-bot');
    expect(t.status).toBe(200);
    expect(t.body.runs.map((r: { id: string }) => r.id)).toEqual([base.id, worse.id]);
    const short = t.body.validators.find((v: { name: string }) => v.name === 'short');
    expect(short.minSuccess).toBe(0.9);
    expect(short.entries[0].change).toBeUndefined();
    // 12/12 → 4/12: smallest expected count 12·8/24 = 4 < 5 → Fisher. Tables with 16 passes: x (A's passes) in 4..12,
    // P(x) ∝ C(12,x)·C(12,16−x); the observed x = 12 and its mirror x = 4 are the two least likely (495 each):
    // p = 2·495 / C(24,16) = 990 / 735471
    expect(short.entries[1].change).toMatchObject({ test: 'fisher', significant: true, direction: 'worse' });
    expect(short.entries[1].change.pValue).toBeCloseTo(990 / 735471, 9);
    const polite = t.body.validators.find((v: { name: string }) => v.name === 'polite');
    expect(polite.entries[1].change.significant).toBe(false);
    expect((await get('/api/trend/unknown')).status).toBe(404);
  });

  it('compares two runs per validator and per input, and validates its parameters', async () => {
    const c = await get(`/api/compare?a=${base.id}&b=${worse.id}`);
    expect(c.status).toBe(200);
    expect(c.body.regressions).toEqual(['short']);
    expect(c.body.validators[0]).toMatchObject({ label: 'short', direction: 'worse' });
    expect(c.body.validators[0].diff).toBeCloseTo(-8 / 12, 12);
    expect(c.body.inputs.map((r: { label: string }) => r.label)).toEqual(['hi', 'refund please', 'bye']);
    // input 1 ("refund please"): 8/8 → 4/8
    expect(c.body.inputs[1]).toMatchObject({ a: { pass: 8, n: 8 }, b: { pass: 4, n: 8 }, diff: -0.5 });
    expect((await get(`/api/compare?a=${base.id}`)).status).toBe(400);
    expect((await get(`/api/compare?a=${base.id}&b=${worse.id}&level=2`)).status).toBe(400);
    expect((await get(`/api/compare?a=${base.id}&b=missing`)).status).toBe(404);
  });

  it('renders the pages as self-contained HTML', async () => {
    for (const path of ['/', '/?name=support', `/runs/${base.id}`, '/trend/support-bot', `/compare?a=${base.id}&b=${worse.id}`, '/compare', '/grounding']) {
      const res = await fetch(server.url + path);
      const text = await res.text();
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      // No resource from another origin: no http(s) URL in src/href attributes.
      expect(text, path).not.toMatch(/(src|href)="https?:/);
    }
    const run = await (await fetch(`${server.url}/runs/${base.id}`)).text();
    expect(run.match(/<figure class="card heatmap"/g)).toHaveLength(2);
    expect(run.match(/href="#cell-\d+-\d+"/g)).toHaveLength(2 * 3 * 4);
    expect(run).toContain('<title>polite: input 1, sample 4: error</title>');
    // Why cells are errors, without clicking a cell; a run without errors has no such card.
    expect(run).toMatch(/<section class="card" aria-label="errors"><h2>Errors: 1 \(1 distinct\)<\/h2>.*<code>provider timeout<\/code>/s);
    expect(await (await fetch(`${server.url}/runs/${worse.id}`)).text()).not.toContain('aria-label="errors"');
    const trend = await (await fetch(`${server.url}/trend/support-bot`)).text();
    // The significant change is marked in its row, with its p-value and test, and ringed on the chart.
    const marked = /<tr data-significant="true">(.*?)<\/tr>/s.exec(trend)?.[1] ?? '';
    expect(marked).toContain('p=0.00135 <span class="muted">Fisher</span>');
    expect(marked).toContain('▼ worse');
    expect(trend).toContain('significantly worse than the previous run, p=0.00135');
    expect((await fetch(`${server.url}/runs/nope`)).status).toBe(404);
  });

  it('marks a point verdict as such in the list, the API and the run page (these fixtures were stored as point runs)', async () => {
    const all = await get('/api/runs');
    const w = all.body.runs.find((r: { id: string }) => r.id === worse.id);
    expect([w.verdict, w.verdictMode]).toEqual(['fail', 'point']);
    const list = await (await fetch(`${server.url}/`)).text();
    expect(list).toContain('<span class="badge fail" title="verdict: fail (point)">✗ fail (point)</span>');
    // An error verdict is not the point estimate's: no mark.
    expect(list).toContain('<span class="badge error" title="verdict: error">! error</span>');
    const page = await (await fetch(`${server.url}/runs/${worse.id}`)).text();
    expect(page).toContain('<span class="badge pass" title="verdict: pass (point)">✓ pass (point)</span>');
  });

  it('labels every cell of its tables for narrow screens and answers the favicon request', async () => {
    const list = await (await fetch(`${server.url}/`)).text();
    // Stacked rows on a phone: each cell carries its column's name.
    expect(list).toContain('<table class="stack" aria-label="runs">');
    expect(list).toContain('data-label="verdict"');
    // The all-pass column shows its error share as the other rates do.
    expect(list).toMatch(/data-label="all pass"><div>[\d.]+% <span class="muted">errors 8\.3%<\/span>/);
    const run = await (await fetch(`${server.url}/runs/${base.id}`)).text();
    expect(run).toMatch(/<td class="num" data-label="error"><div>1<\/div><\/td>/);
    expect((await fetch(`${server.url}/favicon.ico`)).status).toBe(204);
    const empty = await (await fetch(`${server.url}/?name=${encodeURIComponent('<nothing>')}`)).text();
    expect(empty).toContain('No runs with a name containing “&lt;nothing&gt;”');
  });

  it('compares with a Holm adjustment on request and rejects an unknown one', async () => {
    const c = await get(`/api/compare?a=${base.id}&b=${worse.id}&adjust=holm`);
    expect(c.status).toBe(200);
    expect(c.body.adjust).toBe('holm');
    // Two validators: short p = 990/735471 (Fisher), polite p = 1 → Holm: 2·p for the smaller.
    expect(c.body.validators[0].adjustedP).toBeCloseTo((2 * 990) / 735471, 9);
    expect(c.body.regressions).toEqual(['short']);
    const bad = await get(`/api/compare?a=${base.id}&b=${worse.id}&adjust=bonferroni`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('adjust');
    const page = await (await fetch(`${server.url}/compare?a=${base.id}&b=${worse.id}&adjust=holm`)).text();
    expect(page).toContain('Holm p=0.00269');
    expect(page).toContain('<option value="holm" selected>');
  });

  it('preselects the newest run and the previous run of the same name on the compare page', async () => {
    const page = await (await fetch(`${server.url}/compare`)).text();
    // Newest is 'other-exp' (no earlier run of that name): A falls back to the next newest.
    expect(page).toMatch(new RegExp(`<select name="a">.*<option value="${worse.id}" selected>`, 's'));
    expect(page).toMatch(new RegExp(`<select name="b">.*<option value="${other.id}" selected>`, 's'));
    const missing = await fetch(`${server.url}/compare?a=${base.id}&b=nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('No run with id “nope”');
  });
});

describe('dashboard over a store holding an unreadable run', () => {
  it('lists the other runs and flags the unreadable one instead of answering 500', async () => {
    const d = mkdtempSync(join(tmpdir(), 'assay-dash-bad-'));
    const path = join(d, 'assay.db');
    const writer = openSqliteStore(path);
    const good = await writeFixtureRun(writer, { name: 'ok', inputs: ['a'], samples: 2, validators: [{ name: 'v' }], cell: () => PASS });
    const bad = await writeFixtureRun(writer, { name: 'broken', inputs: ['a'], samples: 2, validators: [{ name: 'v' }], cell: () => PASS });
    // A record no tensor can be built for, as a crashed older version could leave behind.
    writer.db.prepare('UPDATE runs SET m = ? WHERE id = ?').run(1e12, bad.id);
    await writer.close();
    const ro = openSqliteStore(path, { readonly: true });
    const srv = await startServer({ port: 0, store: ro, log: false });
    try {
      const res = await fetch(`${srv.url}/api/runs`);
      expect(res.status).toBe(200);
      const runs = (await res.json()).runs as { id: string; verdict: string }[];
      expect(runs.find((r) => r.id === good.id)?.verdict).toBe('pass');
      expect(runs.find((r) => r.id === bad.id)?.verdict).toBe('unreadable');
      expect((await fetch(`${srv.url}/`)).status).toBe(200);
      expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    } finally {
      await srv.close();
      await ro.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
