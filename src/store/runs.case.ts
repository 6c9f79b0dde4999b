import { describe, expect, it } from 'vitest';
import { newRun, P, sample, type MakeStore } from './testing/fixtures.js';

/** The contract of `store.runs`: records read back as written, status, listing, paging and search. */
export function runsContract(make: MakeStore): void {
  describe('runs', () => {
    it('creates a run and reads it back with its shape and metadata', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      expect(run.id).toMatch(/\S/);
      expect(run.status).toBe('running');
      expect([run.N, run.M, run.K]).toEqual([2, 3, 2]);
      const got = await store.runs.get(run.id);
      expect(got).toEqual(run);
      expect(got!.inputs[1]).toEqual({ prompt: 'second', lang: 'fr' });
      expect(got!.config).toEqual({ name: 'exp', samples: 3, nested: { a: [1, 2] } });
      expect(got!.validators[1].kind).toBe('verifier');
      expect(Date.parse(got!.createdAt)).not.toBeNaN();
    });

    it('returns undefined for an unknown run and rejects writes to it', async () => {
      await using store = await make();
      expect(await store.runs.get('nope')).toBeUndefined();
      await expect(store.samples.record('nope', sample(0, 0, [P, P]))).rejects.toThrow(/nope/);
      await expect(store.runs.setStatus('nope', 'complete')).rejects.toThrow(/nope/);
      await expect(store.samples.tensor('nope')).rejects.toThrow(/nope/);
    });

    it('updates status and sets finishedAt when the run ends', async () => {
      await using store = await make();
      const run = await store.runs.create(newRun());
      await store.runs.setStatus(run.id, 'interrupted');
      let got = await store.runs.get(run.id);
      expect(got!.status).toBe('interrupted');
      expect(got!.finishedAt).toBeDefined();
      await store.runs.setStatus(run.id, 'complete');
      got = await store.runs.get(run.id);
      expect(got!.status).toBe('complete');
    });

    it('lists runs newest first, filters by name and limits', async () => {
      await using store = await make();
      const a = await store.runs.create(newRun({ name: 'alpha' }));
      await new Promise((r) => setTimeout(r, 5));
      const b = await store.runs.create(newRun({ name: 'beta' }));
      await new Promise((r) => setTimeout(r, 5));
      const c = await store.runs.create(newRun({ name: 'alpha' }));
      expect((await store.runs.list()).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.runs.list({ name: 'alpha' })).map((r) => r.id)).toEqual([c.id, a.id]);
      expect((await store.runs.list({ limit: 1 })).map((r) => r.id)).toEqual([c.id]);
      expect(await store.runs.list({ name: 'gamma' })).toEqual([]);
    });

    it('pages through runs with limit and offset, counts them, and searches names case-insensitively', async () => {
      await using store = await make();
      const made: string[] = [];
      for (const name of ['Nightly-A', 'nightly-b', 'weekly', 'NIGHTLY-c', 'other']) {
        made.unshift((await store.runs.create(newRun({ name }))).id);
        await new Promise((r) => setTimeout(r, 3));
      }
      expect((await store.runs.list({ limit: 2 })).map((r) => r.id)).toEqual(made.slice(0, 2));
      expect((await store.runs.list({ limit: 2, offset: 2 })).map((r) => r.id)).toEqual(made.slice(2, 4));
      expect((await store.runs.list({ offset: 4 })).map((r) => r.id)).toEqual(made.slice(4));
      expect(await store.runs.list({ limit: 2, offset: 10 })).toEqual([]);
      expect(await store.runs.count()).toBe(5);
      const nightly = await store.runs.list({ nameContains: 'nIgHtLy' });
      expect(nightly.map((r) => r.name)).toEqual(['NIGHTLY-c', 'nightly-b', 'Nightly-A']);
      expect(await store.runs.count({ nameContains: 'NIGHT', limit: 1 })).toBe(3);
      expect((await store.runs.list({ nameContains: 'night', limit: 1, offset: 1 })).map((r) => r.name)).toEqual(['nightly-b']);
      expect(await store.runs.count({ name: 'weekly' })).toBe(1);
      // Text that would be a wildcard in LIKE is only text here.
      expect(await store.runs.count({ nameContains: '%' })).toBe(0);
      expect(await store.runs.count({ nameContains: '_' })).toBe(0);
      // A run named by the start of its id.
      const id = made[2];
      expect((await store.runs.list({ idPrefix: id })).map((r) => r.id)).toEqual([id]);
      expect((await store.runs.list({ idPrefix: id.slice(0, 9) })).map((r) => r.id)).toContain(id);
      expect(await store.runs.count({ idPrefix: id.slice(0, 9) })).toBe(made.filter((m) => m.startsWith(id.slice(0, 9))).length);
      expect(await store.runs.list({ idPrefix: 'zz' })).toEqual([]);
      expect(await store.runs.count({ idPrefix: '%' })).toBe(0);
    });
  });
}
