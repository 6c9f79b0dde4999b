import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import { createTestDatabase } from '../testing/services.js';
import { startServer, type ServerHandle } from './start.js';

// The dashboard pages through a store with more runs than a page, on SQLite and on PostgreSQL.
const dir = mkdtempSync(join(tmpdir(), 'assay-dash-paging-'));
const db = await createTestDatabase();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

const backends: [string, (() => string) | undefined][] = [
  ['sqlite', () => join(dir, 'assay.db')],
  ['postgres', db ? () => `${db.url}?schema=dash` : undefined],
];

for (const [backend, location] of backends) {
  describe.skipIf(!location)(`dashboard paging (${backend})`, () => {
    let store: Store;
    let server: ServerHandle;
    const ids: string[] = []; // newest first
    const names = new Map<string, string>();
    const get = async (path: string) => {
      const res = await fetch(server.url + path);
      return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text() };
    };

    it('setup: 130 runs, 80 of them named nightly-…', async () => {
      const writer = await openStore(location!());
      for (let n = 0; n < 130; n++) {
        const run = await writer.runs.create({
          name: n % 13 < 8 ? `nightly-${n % 2}` : 'weekly',
          config: {},
          inputs: ['x'],
          samples: 2,
          validators: [{ name: 'v', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator' }],
          systemId: 'fixture',
        });
        await writer.samples.record(run.id, { i: 0, j: 0, outcomes: [n % 3 ? Outcome.PASS : Outcome.FAIL], latencyMs: 1, attempts: 1 });
        await writer.runs.setStatus(run.id, 'complete');
        ids.unshift(run.id);
        names.set(run.id, run.name);
        await new Promise((r) => setTimeout(r, 2));
      }
      await writer.close();
      store = await openStore(location!(), { readonly: true });
      server = await startServer({ port: 0, store, log: false });
    });
    afterAll(async () => {
      await server?.close();
      await store?.close();
    });

    it('/api/runs: a page of 50 by default, offset and limit page through, total counts them all', async () => {
      const first = (await get('/api/runs')).body;
      expect(first).toMatchObject({ total: 130, offset: 0, limit: 50 });
      expect(first.runs.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 50));
      const later = (await get('/api/runs?offset=120&limit=20')).body;
      expect(later.runs.map((r: { id: string }) => r.id)).toEqual(ids.slice(120));
      const nightly = (await get('/api/runs?name=NIGHTLY&limit=500')).body;
      expect(nightly.total).toBe(80);
      expect(nightly.runs).toHaveLength(80);
      for (const [q, field] of [
        ['offset=-1', 'offset'],
        ['offset=x', 'offset'],
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
      ]) {
        const r = await get(`/api/runs?${q}`);
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ error: 'invalid_request', field });
      }
    });

    it('the runs page links to the older and newer pages, keeping the name filter', async () => {
      const first = (await get('/')).body as string;
      expect(first).toContain('runs 1–50 of 130');
      expect(first).toContain('href="/?offset=50">older →</a>');
      expect(first).not.toContain('← newer');
      const last = (await get('/?offset=100')).body as string;
      expect(last).toContain('runs 101–130 of 130');
      expect(last).toContain('href="/?offset=50">← newer</a>');
      expect(last).not.toContain('older →');
      for (const id of ids.slice(100)) expect(last).toContain(id);
      const filtered = (await get('/?name=nightly&offset=50')).body as string;
      expect(filtered).toContain('runs 51–80 of 80');
      expect(filtered).toContain('href="/?name=nightly&amp;offset=0">← newer</a>');
      expect((await get('/?offset=abc')).status).toBe(400);
    });

    it('a trend shows the newest 100 runs of its name by default and says how many there are', async () => {
      const t = (await get('/api/trend/weekly')).body;
      expect(t.totalRuns).toBe(50);
      expect(t.runs).toHaveLength(50);
      const few = (await get('/api/trend/nightly-0?limit=10')).body;
      expect(few.totalRuns).toBe(40);
      // The newest ten of the name, shown oldest first.
      expect(few.runs.map((r: { id: string }) => r.id)).toEqual(
        ids
          .filter((id) => names.get(id) === 'nightly-0')
          .slice(0, 10)
          .reverse(),
      );
      const page = (await get('/trend/nightly-0?limit=10')).body as string;
      expect(page).toContain('The newest 10 of 40 runs of this name.');
      expect(page).toContain('href="/trend/nightly-0?limit=40">Show all</a>');
      expect((await get('/api/trend/weekly?limit=0')).status).toBe(400);
      expect((await get('/trend/weekly?limit=5000')).status).toBe(400);
    });
  });
}
