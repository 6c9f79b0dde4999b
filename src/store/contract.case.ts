import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { NewRun, SampleRecord, Store } from './types.js';

const P = Outcome.PASS;
const F = Outcome.FAIL;
const E = Outcome.ERROR;

export function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    name: 'exp',
    config: { name: 'exp', samples: 3, nested: { a: [1, 2] } },
    configPath: 'assay.yaml',
    inputs: ['first', { prompt: 'second', lang: 'fr' }],
    samples: 3,
    validators: [
      { name: 'v0', message: 'm0', minSuccess: 0.9, weight: 1, kind: 'validator', source: 'o => true' },
      { name: 'v1', message: 'm1', minSuccess: 0.5, weight: 2, kind: 'verifier' },
    ],
    systemId: 'simulated',
    ...overrides,
  };
}

export function sample(i: number, j: number, outcomes: OutcomeCode[], extra: Partial<SampleRecord> = {}): SampleRecord {
  return { i, j, outcomes, output: `out ${i},${j}`, latencyMs: 12.5, attempts: 1, ...extra };
}

/**
 * The contract every Store adapter passes (GUIDE: one shared suite per interface).
 * `make` returns a fresh, empty store; `reopen` (optional) reopens the same persistent store.
 */
export function storeContract(name: string, make: () => Promise<Store>) {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates a run and reads it back with its shape and metadata', async () => {
      const run = await store.createRun(newRun());
      expect(run.id).toMatch(/\S/);
      expect(run.status).toBe('running');
      expect([run.N, run.M, run.K]).toEqual([2, 3, 2]);
      const got = await store.getRun(run.id);
      expect(got).toEqual(run);
      expect(got!.inputs[1]).toEqual({ prompt: 'second', lang: 'fr' });
      expect(got!.config).toEqual({ name: 'exp', samples: 3, nested: { a: [1, 2] } });
      expect(got!.validators[1].kind).toBe('verifier');
      expect(Date.parse(got!.createdAt)).not.toBeNaN();
    });

    it('returns undefined for an unknown run and rejects writes to it', async () => {
      expect(await store.getRun('nope')).toBeUndefined();
      await expect(store.recordSample('nope', sample(0, 0, [P, P]))).rejects.toThrow(/nope/);
      await expect(store.setStatus('nope', 'complete')).rejects.toThrow(/nope/);
      await expect(store.loadTensor('nope')).rejects.toThrow(/nope/);
    });

    it('builds the tensor from stored samples, leaving the rest pending', async () => {
      const run = await store.createRun(newRun());
      await store.recordSample(run.id, sample(0, 0, [P, F]));
      await store.recordSample(run.id, sample(1, 2, [E, P], { generationError: undefined }));
      const t = await store.loadTensor(run.id);
      expect([t.N, t.M, t.K]).toEqual([2, 3, 2]);
      expect(t.get(0, 0, 0)).toBe(P);
      expect(t.get(0, 0, 1)).toBe(F);
      expect(t.get(1, 2, 0)).toBe(E);
      expect(t.get(1, 2, 1)).toBe(P);
      expect(t.get(0, 1, 0)).toBe(Outcome.PENDING);
      const filled = Array.from(t.cells).filter((c) => c !== Outcome.PENDING).length;
      expect(filled).toBe(4);
    });

    it('refuses a duplicate (i, j) and keeps the first', async () => {
      const run = await store.createRun(newRun());
      await store.recordSample(run.id, sample(0, 1, [P, P], { output: 'first' }));
      await expect(store.recordSample(run.id, sample(0, 1, [F, F], { output: 'second' }))).rejects.toThrow(/already stored/);
      expect((await store.getSample(run.id, 0, 1))!.output).toBe('first');
      expect((await store.listSamples(run.id)).length).toBe(1);
    });

    it('rejects samples outside the shape or with the wrong number of outcomes, storing nothing', async () => {
      const run = await store.createRun(newRun());
      await expect(store.recordSample(run.id, sample(2, 0, [P, P]))).rejects.toThrow(/i=2/);
      await expect(store.recordSample(run.id, sample(0, 3, [P, P]))).rejects.toThrow(/j=3/);
      await expect(store.recordSample(run.id, sample(0, 0, [P]))).rejects.toThrow(/K=2/);
      await expect(store.recordSample(run.id, sample(0, 0, [P, 4 as OutcomeCode]))).rejects.toThrow(/outcome code 4/);
      expect(await store.listSamples(run.id)).toEqual([]);
    });

    it('keeps a column a stop rule left unchecked (code 0) as pending in the tensor', async () => {
      const run = await store.createRun(newRun());
      await store.recordSample(run.id, sample(0, 0, [P, 0 as OutcomeCode]));
      const t = await store.loadTensor(run.id);
      expect([t.get(0, 0, 0), t.get(0, 0, 1)]).toEqual([P, 0]);
      expect((await store.getSample(run.id, 0, 0))!.outcomes).toEqual([P, 0]);
    });

    it('round-trips every field of a sample', async () => {
      const run = await store.createRun(newRun());
      const s = sample(1, 0, [E, F], {
        output: undefined,
        generationError: 'HTTP 503 after 4 attempts',
        errors: ['timeout', undefined],
        reasons: [undefined, ['too long', 'off topic']],
        latencyMs: 812.25,
        attempts: 4,
        usage: { promptTokens: 120, completionTokens: 33 },
        cost: { usd: 0.00125, checks: [undefined, 0.0004], unpriced: 1 },
        cached: true,
        finishedAt: '2026-01-02T03:04:05.000Z',
      });
      await store.recordSample(run.id, s);
      const got = await store.getSample(run.id, 1, 0);
      expect(got).toEqual(s);
      expect(got!.output).toBeUndefined();
      expect(got!.generationError).toBe('HTTP 503 after 4 attempts');
      expect(got!.errors![0]).toBe('timeout');
      expect(got!.errors![1]).toBeUndefined();
      expect(got!.reasons![0]).toBeUndefined();
      expect(got!.reasons![1]).toEqual(['too long', 'off topic']);
      expect(got!.latencyMs).toBe(812.25);
      expect(got!.attempts).toBe(4);
      expect(got!.usage).toEqual({ promptTokens: 120, completionTokens: 33 });
      expect(got!.cost).toEqual({ usd: 0.00125, checks: [undefined, 0.0004], unpriced: 1 });
      expect(got!.cached).toBe(true);
      expect(got!.finishedAt).toBe('2026-01-02T03:04:05.000Z');
      expect(got!.outcomes).toEqual([E, F]);
      expect(await store.getSample(run.id, 0, 0)).toBeUndefined();
    });

    it('lists samples ordered by (i, j)', async () => {
      const run = await store.createRun(newRun());
      for (const [i, j] of [[1, 2], [0, 1], [1, 0], [0, 0]] as const) await store.recordSample(run.id, sample(i, j, [P, P]));
      expect((await store.listSamples(run.id)).map((s) => [s.i, s.j])).toEqual([[0, 0], [0, 1], [1, 0], [1, 2]]);
    });

    it('updates status and sets finishedAt when the run ends', async () => {
      const run = await store.createRun(newRun());
      await store.setStatus(run.id, 'interrupted');
      let got = await store.getRun(run.id);
      expect(got!.status).toBe('interrupted');
      expect(got!.finishedAt).toBeDefined();
      await store.setStatus(run.id, 'complete');
      got = await store.getRun(run.id);
      expect(got!.status).toBe('complete');
    });

    it('lists runs newest first, filters by name and limits', async () => {
      const a = await store.createRun(newRun({ name: 'alpha' }));
      await new Promise((r) => setTimeout(r, 5));
      const b = await store.createRun(newRun({ name: 'beta' }));
      await new Promise((r) => setTimeout(r, 5));
      const c = await store.createRun(newRun({ name: 'alpha' }));
      expect((await store.listRuns()).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.listRuns({ name: 'alpha' })).map((r) => r.id)).toEqual([c.id, a.id]);
      expect((await store.listRuns({ limit: 1 })).map((r) => r.id)).toEqual([c.id]);
      expect(await store.listRuns({ name: 'gamma' })).toEqual([]);
    });

    it('leaves cost and cached out of a sample that had none', async () => {
      const run = await store.createRun(newRun());
      await store.recordSample(run.id, sample(0, 0, [P, P]));
      const got = await store.getSample(run.id, 0, 0);
      expect(got).not.toHaveProperty('cost');
      expect(got).not.toHaveProperty('cached');
    });

    it('response cache: get, set (insert or replace), clear', async () => {
      expect(await store.cache.get('k1')).toBeUndefined();
      const before = Date.now();
      await store.cache.set('k1', '{"text":"one"}');
      await store.cache.set('k2', '{"text":"two"}');
      const e = await store.cache.get('k1');
      expect(e?.value).toBe('{"text":"one"}');
      expect(Date.parse(e!.storedAt)).toBeGreaterThanOrEqual(before - 1000);
      await store.cache.set('k1', '{"text":"uno"}');
      expect((await store.cache.get('k1'))?.value).toBe('{"text":"uno"}');
      expect(await store.cache.clear()).toBe(2);
      expect(await store.cache.get('k2')).toBeUndefined();
      expect(await store.cache.clear()).toBe(0);
    });

    it('keeps runs apart', async () => {
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun());
      expect(a.id).not.toBe(b.id);
      await store.recordSample(a.id, sample(0, 0, [F, F]));
      await store.recordSample(b.id, sample(0, 0, [P, P]));
      expect((await store.loadTensor(a.id)).get(0, 0, 0)).toBe(F);
      expect((await store.loadTensor(b.id)).get(0, 0, 0)).toBe(P);
    });
  });
}
