import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { DuplicateSampleError, GradeError, UnknownRunError } from './errors.js';
import { openStore } from './open.js';
import type { GuardAttemptRecord, GuardCallRecord, NewGrade, NewRun, SampleRecord, Store } from './types.js';

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

export function guardAttempt(callId: string, n: number, extra: Partial<GuardAttemptRecord> = {}): GuardAttemptRecord {
  return {
    callId,
    n,
    systemId: 'sys',
    status: 'rejected',
    input: { prompt: 'Invite', lang: 'en' },
    output: `Call 555 (${n})`,
    validators: [
      { name: 'no_digits', outcome: 'fail' },
      { name: 'short', outcome: 'error', error: 'timed out after 5 ms' },
    ],
    verifier: { outcome: 'fail', reasons: ['has digits', 'too curt'] },
    reasons: ['has digits'],
    latencyMs: 12.75,
    usage: { system: { promptTokens: 100, completionTokens: 7 }, verifier: { promptTokens: 50, completionTokens: 3 } },
    startedAt: '2026-01-02T03:04:05.000Z',
    ...extra,
  };
}

export function guardCall(callId: string, extra: Partial<GuardCallRecord> = {}): GuardCallRecord {
  return {
    callId,
    systemId: 'sys',
    input: 'Invite',
    accepted: true,
    reason: 'accepted',
    output: 'Call us',
    attempts: 2,
    usage: { promptTokens: 300, completionTokens: 20 },
    cost: 0.0125,
    latencyMs: 40.5,
    finishedAt: '2026-01-02T03:04:06.000Z',
    ...extra,
  };
}

export function grade(i: number, j: number, extra: Partial<NewGrade> = {}): NewGrade {
  return { i, j, rule: 'v1', grade: 'fail', grader: 'reviewer-1', ...extra };
}

/** For persistent adapters: where a fresh, empty store can be made (a SQLite path, a postgres:// URL). */
export interface PersistentStoreOptions {
  fresh: () => Promise<string>;
}

/**
 * The contract every Store adapter passes (GUIDE: one shared suite per interface).
 * `make` returns a fresh, empty store. Persistent adapters also give `persistent`, and then pass the
 * tests of what survives: reopening, a second connection writing at the same time, read-only opening,
 * and a writer killed with SIGKILL.
 */
export function storeContract(name: string, make: () => Promise<Store>, persistent?: PersistentStoreOptions) {
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

    it('discards the samples whose generation failed, and only those, so that a resume runs them again', async () => {
      const run = await store.createRun(newRun());
      await store.recordSample(run.id, sample(0, 0, [P, F]));
      await store.recordSample(run.id, sample(0, 1, [E, E], { output: undefined, generationError: 'ECONNREFUSED' }));
      await store.recordSample(run.id, sample(1, 0, [E, P])); // a validator error: the output was checked, kept
      await store.recordSample(run.id, sample(1, 2, [E, E], { output: undefined, generationError: 'HTTP 401' }));
      expect(await store.discardGenerationErrors(run.id)).toBe(2);
      expect((await store.listSamples(run.id)).map((s) => [s.i, s.j])).toEqual([
        [0, 0],
        [1, 0],
      ]);
      const t = await store.loadTensor(run.id);
      expect(t.get(0, 1, 0)).toBe(Outcome.PENDING);
      expect(t.get(1, 2, 1)).toBe(Outcome.PENDING);
      expect(t.get(1, 0, 0)).toBe(E);
      // The cell can be stored again, once.
      await store.recordSample(run.id, sample(0, 1, [P, P]));
      expect((await store.getSample(run.id, 0, 1))!.outcomes).toEqual([P, P]);
      expect(await store.discardGenerationErrors(run.id)).toBe(0);
      await expect(store.discardGenerationErrors('nope')).rejects.toThrow(/nope/);
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
      for (const [i, j] of [
        [1, 2],
        [0, 1],
        [1, 0],
        [0, 0],
      ] as const)
        await store.recordSample(run.id, sample(i, j, [P, P]));
      expect((await store.listSamples(run.id)).map((s) => [s.i, s.j])).toEqual([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 2],
      ]);
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

    it('pages through runs with limit and offset, counts them, and searches names case-insensitively', async () => {
      const made: string[] = [];
      for (const name of ['Nightly-A', 'nightly-b', 'weekly', 'NIGHTLY-c', 'other']) {
        made.unshift((await store.createRun(newRun({ name }))).id);
        await new Promise((r) => setTimeout(r, 3));
      }
      expect((await store.listRuns({ limit: 2 })).map((r) => r.id)).toEqual(made.slice(0, 2));
      expect((await store.listRuns({ limit: 2, offset: 2 })).map((r) => r.id)).toEqual(made.slice(2, 4));
      expect((await store.listRuns({ offset: 4 })).map((r) => r.id)).toEqual(made.slice(4));
      expect(await store.listRuns({ limit: 2, offset: 10 })).toEqual([]);
      expect(await store.countRuns()).toBe(5);
      const nightly = await store.listRuns({ nameContains: 'nIgHtLy' });
      expect(nightly.map((r) => r.name)).toEqual(['NIGHTLY-c', 'nightly-b', 'Nightly-A']);
      expect(await store.countRuns({ nameContains: 'NIGHT', limit: 1 })).toBe(3);
      expect((await store.listRuns({ nameContains: 'night', limit: 1, offset: 1 })).map((r) => r.name)).toEqual(['nightly-b']);
      expect(await store.countRuns({ name: 'weekly' })).toBe(1);
      // Text that would be a wildcard in LIKE is only text here.
      expect(await store.countRuns({ nameContains: '%' })).toBe(0);
      expect(await store.countRuns({ nameContains: '_' })).toBe(0);
      // A run named by the start of its id.
      const id = made[2];
      expect((await store.listRuns({ idPrefix: id })).map((r) => r.id)).toEqual([id]);
      expect((await store.listRuns({ idPrefix: id.slice(0, 9) })).map((r) => r.id)).toContain(id);
      expect(await store.countRuns({ idPrefix: id.slice(0, 9) })).toBe(made.filter((m) => m.startsWith(id.slice(0, 9))).length);
      expect(await store.listRuns({ idPrefix: 'zz' })).toEqual([]);
      expect(await store.countRuns({ idPrefix: '%' })).toBe(0);
    });

    it('of several writes of one (i, j) at once, exactly one succeeds; the rest are DuplicateSampleErrors', async () => {
      const run = await store.createRun(newRun());
      const writes = await Promise.allSettled(Array.from({ length: 5 }, (_, n) => store.recordSample(run.id, sample(1, 1, [P, F], { output: `writer ${n}` }))));
      expect(writes.filter((w) => w.status === 'fulfilled')).toHaveLength(1);
      for (const w of writes) if (w.status === 'rejected') expect(w.reason).toBeInstanceOf(DuplicateSampleError);
      expect((await store.getSample(run.id, 1, 1))!.output).toBe(`writer ${writes.findIndex((w) => w.status === 'fulfilled')}`);
    });

    it('keeps any text a model may write, U+0000 and astral characters included', async () => {
      const run = await store.createRun(newRun({ inputs: ['nul \u0000 in an input', { q: 'é 😀' }] }));
      const odd = "a\u0000b — “quoted” \\ 'single' 😀 \u2028 end";
      await store.recordSample(run.id, sample(0, 0, [P, P], { output: odd, errors: [odd, undefined], reasons: [[odd], undefined] }));
      await store.recordSample(run.id, sample(0, 1, [E, E], { output: undefined, generationError: `failed: ${odd}` }));
      const got = await store.getSample(run.id, 0, 0);
      expect(got!.output).toBe(odd);
      expect(got!.errors).toEqual([odd, undefined]);
      expect(got!.reasons).toEqual([[odd], undefined]);
      expect((await store.getSample(run.id, 0, 1))!.generationError).toBe(`failed: ${odd}`);
      expect((await store.getRun(run.id))!.inputs).toEqual(['nul \u0000 in an input', { q: 'é 😀' }]);
    });

    it('keeps the guard attempt log: attempts in order, replaced on rewrite, calls newest first', async () => {
      await store.recordGuardAttempt(guardAttempt('c1', 2, { status: 'accepted', output: 'Call us', verifier: undefined, reasons: [] }));
      await store.recordGuardAttempt(guardAttempt('c1', 1));
      await store.recordGuardAttempt(
        guardAttempt('c2', 1, { output: undefined, generationError: 'HTTP 503 \u0000', validators: [], verifier: undefined, status: 'error' }),
      );
      expect((await store.listGuardAttempts('c1')).map((a) => [a.n, a.status])).toEqual([
        [1, 'rejected'],
        [2, 'accepted'],
      ]);
      expect((await store.listGuardAttempts('c1'))[0]).toEqual(guardAttempt('c1', 1));
      const [c2] = await store.listGuardAttempts('c2');
      expect(c2.output).toBeUndefined();
      expect(c2.verifier).toBeUndefined();
      expect(c2.generationError).toBe('HTTP 503 \u0000');
      expect(await store.listGuardAttempts('none')).toEqual([]);
      // Written again (a retried write): replaced, not duplicated.
      await store.recordGuardAttempt(guardAttempt('c1', 1, { latencyMs: 99 }));
      expect((await store.listGuardAttempts('c1')).map((a) => a.latencyMs)).toEqual([99, 12.75]);

      await store.recordGuardCall(guardCall('c1'));
      await store.recordGuardCall(
        guardCall('c2', {
          accepted: false,
          reason: 'error',
          detail: 'the system failed',
          output: undefined,
          cost: null,
          finishedAt: '2026-01-02T03:05:00.000Z',
        }),
      );
      expect(await store.getGuardCall('c1')).toEqual(guardCall('c1'));
      const c2call = await store.getGuardCall('c2');
      expect(c2call).toMatchObject({ accepted: false, reason: 'error', detail: 'the system failed', cost: null });
      expect(c2call!.output).toBeUndefined();
      expect(await store.getGuardCall('none')).toBeUndefined();
      expect((await store.listGuardCalls()).map((c) => c.callId)).toEqual(['c2', 'c1']);
      expect((await store.listGuardCalls({ limit: 1, offset: 1 })).map((c) => c.callId)).toEqual(['c1']);
      await store.recordGuardCall(guardCall('c1', { attempts: 3 }));
      expect((await store.getGuardCall('c1'))!.attempts).toBe(3);
      expect(await store.listGuardCalls()).toHaveLength(2);
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

  gradeContract(name, make);
  if (persistent) persistentContract(name, persistent);
}

/** People's grades of outputs: a log per run, checked against the run, all-or-none in batches. */
function gradeContract(name: string, make: () => Promise<Store>) {
  describe(`Store contract: ${name}, grades`, () => {
    let store: Store;
    let runId: string;
    beforeEach(async () => {
      store = await make();
      runId = (await store.createRun(newRun())).id;
      for (const [i, j] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 2],
      ])
        await store.recordSample(runId, sample(i, j, [P, F]));
      await store.recordSample(runId, sample(1, 1, [E, E], { output: undefined, generationError: 'HTTP 503' }));
    });
    afterEach(async () => {
      await store.close();
    });

    it('stores grades with every field and lists them oldest first, filtered by rule, grader and output', async () => {
      const a = await store.recordGrade(runId, grade(0, 1, { gradedAt: '2026-03-01T10:00:00.000Z', probability: 0.25, design: 'uniform, seed 7' }));
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
      const b = await store.recordGrade(runId, grade(1, 2, { rule: 'v0', grade: 'pass', grader: '  Ada Lovelace ' }));
      expect(b.grader).toBe('Ada Lovelace');
      expect(b.probability).toBeUndefined();
      expect(b.design).toBeUndefined();
      expect(Date.parse(b.gradedAt)).toBeGreaterThanOrEqual(before - 1000);
      const c = await store.recordGrade(runId, grade(0, 1, { grade: 'pass', grader: 'reviewer-2', gradedAt: '2026-02-01T00:00:00+02:00' }));
      expect(c.gradedAt).toBe('2026-01-31T22:00:00.000Z');
      expect(new Set([a.id, b.id, c.id]).size).toBe(3);
      const all = await store.listGrades(runId);
      expect(all.map((g) => g.id)).toEqual([c.id, a.id, b.id]);
      expect(all[1]).toEqual(a);
      expect((await store.listGrades(runId, { rule: 'v0' })).map((g) => g.id)).toEqual([b.id]);
      expect((await store.listGrades(runId, { grader: 'reviewer-2' })).map((g) => g.id)).toEqual([c.id]);
      expect((await store.listGrades(runId, { i: 0, j: 1 })).map((g) => g.id)).toEqual([c.id, a.id]);
      expect(await store.listGrades(runId, { i: 1, j: 0 })).toEqual([]);
    });

    it('keeps every grade of one output as a log (a second grade is a new row)', async () => {
      await store.recordGrade(runId, grade(0, 0, { gradedAt: '2026-01-01T00:00:00.000Z' }));
      await store.recordGrade(runId, grade(0, 0, { grade: 'pass', gradedAt: '2026-01-01T00:00:01.000Z' }));
      expect((await store.listGrades(runId)).map((g) => g.grade)).toEqual(['fail', 'pass']);
    });

    it('refuses grades outside the run, of unknown rules, of missing outputs or malformed, naming the field, storing nothing', async () => {
      const refused = async (g: NewGrade, field: string, text: RegExp) => {
        const err = await store.recordGrade(runId, g).then(
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
      await refused(grade(0, 0, { probability: 0 }), 'probability', /\(0, 1\]/);
      await refused(grade(0, 0, { probability: 1.5 }), 'probability', /\(0, 1\]/);
      await refused(grade(0, 0, { design: 'uniform' }), 'probability', /needs the probability/);
      await refused(grade(0, 2), 'i', /no stored output there/);
      await refused(grade(1, 1), 'i', /generation failed \(HTTP 503\).*no output to grade/);
      await expect(store.recordGrade('nope', grade(0, 0))).rejects.toBeInstanceOf(UnknownRunError);
      expect(await store.listGrades(runId)).toEqual([]);
    });

    it('stores a batch all or none', async () => {
      const err = await store.recordGrades(runId, [grade(0, 0), grade(1, 0), grade(0, 0, { rule: 'nope' })]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GradeError);
      expect(err).toMatchObject({ field: 'rule', index: 2, message: expect.stringMatching(/rule "nope"/) });
      expect(await store.listGrades(runId)).toEqual([]);
      const ok = await store.recordGrades(runId, [grade(0, 0), grade(1, 0, { grade: 'pass' }), grade(1, 2)]);
      expect(ok.map((g) => [g.i, g.j, g.grade])).toEqual([
        [0, 0, 'fail'],
        [1, 0, 'pass'],
        [1, 2, 'fail'],
      ]);
      expect((await store.listGrades(runId)).map((g) => g.id)).toEqual(ok.map((g) => g.id));
      expect(await store.recordGrades(runId, [])).toEqual([]);
    });

    it('deletes one grade (undo); a deleted id is never given again', async () => {
      const a = await store.recordGrade(runId, grade(0, 0));
      const b = await store.recordGrade(runId, grade(0, 1));
      expect(await store.deleteGrade(runId, b.id)).toBe(true);
      expect(await store.deleteGrade(runId, b.id)).toBe(false);
      expect(await store.deleteGrade(runId, 987654321)).toBe(false);
      const c = await store.recordGrade(runId, grade(1, 0));
      expect(c.id).not.toBe(b.id);
      expect((await store.listGrades(runId)).map((g) => g.id)).toEqual([a.id, c.id]);
      await expect(store.deleteGrade('nope', a.id)).rejects.toBeInstanceOf(UnknownRunError);
      await expect(store.listGrades('nope')).rejects.toBeInstanceOf(UnknownRunError);
    });

    it('gradesVersion changes whenever the grades of any run change (ids are never reused)', async () => {
      const seen = new Set([await store.gradesVersion()]);
      const changed = async () => {
        const v = await store.gradesVersion();
        expect(seen.has(v), v).toBe(false);
        seen.add(v);
        return v;
      };
      const a = await store.recordGrade(runId, grade(0, 0));
      await changed();
      const b = await store.recordGrade(runId, grade(0, 1));
      await changed();
      await store.deleteGrade(runId, a.id); // one grade again, but another one
      await changed();
      const c = await store.recordGrade(runId, grade(1, 0));
      const withC = await changed();
      await store.deleteGrade(runId, c.id); // the grades are {b} again: so may the version be
      expect(await store.gradesVersion()).not.toBe(withC);
      const other = (await store.createRun(newRun())).id;
      await store.recordSample(other, sample(0, 0, [P, P]));
      const before = await store.gradesVersion();
      await store.recordSample(other, sample(0, 1, [P, P])); // samples do not change it
      expect(await store.gradesVersion()).toBe(before);
      await store.recordGrade(other, grade(0, 0));
      expect(await store.gradesVersion()).not.toBe(before);
      expect(b.id).not.toBe(c.id);
    });

    it('keeps the grades of runs apart, and an id of one run cannot delete a grade of another', async () => {
      const other = (await store.createRun(newRun())).id;
      await store.recordSample(other, sample(0, 0, [P, P]));
      const mine = await store.recordGrade(runId, grade(0, 0));
      await store.recordGrade(other, grade(0, 0, { grade: 'pass' }));
      expect(await store.deleteGrade(other, mine.id)).toBe(false);
      expect((await store.listGrades(runId)).map((g) => g.grade)).toEqual(['fail']);
      expect((await store.listGrades(other)).map((g) => g.grade)).toEqual(['pass']);
    });
  });
}

function persistentContract(name: string, { fresh }: PersistentStoreOptions) {
  describe(`Store contract: ${name}, persistence`, () => {
    it('keeps runs and samples across close and reopen, and opens read-only', async () => {
      const at = await fresh();
      const s1 = await openStore(at);
      const run = await s1.createRun(newRun());
      await s1.recordSample(run.id, sample(1, 1, [P, F]));
      await s1.recordGuardCall(guardCall('c1'));
      const g = await s1.recordGrade(run.id, grade(1, 1, { probability: 0.5, design: 'uniform, seed 1' }));
      await s1.close();
      const ro = await openStore(at, { readonly: true });
      try {
        expect((await ro.getRun(run.id))!.name).toBe('exp');
        expect(await ro.listGrades(run.id)).toEqual([g]);
        expect((await ro.loadTensor(run.id)).get(1, 1, 1)).toBe(F);
        expect((await ro.getGuardCall('c1'))!.output).toBe('Call us');
        await expect(ro.createRun(newRun())).rejects.toThrow(/read-?only/i);
      } finally {
        await ro.close();
      }
    });

    it('two connections writing overlapping samples at once: each (i, j) stored once, every loser told so', async () => {
      const at = await fresh();
      const [a, b] = [await openStore(at), await openStore(at)];
      try {
        const run = await a.createRun(newRun({ inputs: Array.from({ length: 10 }, (_, i) => `in ${i}`), samples: 10 }));
        // a writes every sample, b every second one, interleaved in flight.
        const writes = [...Array(100).keys()].flatMap((x) => {
          const [i, j] = [Math.floor(x / 10), x % 10];
          const w = [a.recordSample(run.id, sample(i, j, [P, P], { output: 'a' }))];
          if (x % 2 === 0) w.push(b.recordSample(run.id, sample(i, j, [F, F], { output: 'b' })));
          return w;
        });
        const settled = await Promise.allSettled(writes);
        expect(settled.filter((w) => w.status === 'fulfilled')).toHaveLength(100);
        for (const w of settled) if (w.status === 'rejected') expect(w.reason).toBeInstanceOf(DuplicateSampleError);
        const stored = await b.listSamples(run.id);
        expect(stored).toHaveLength(100);
        expect(new Set(stored.map((s) => `${s.i},${s.j}`)).size).toBe(100);
        // The tensor agrees with the samples that won.
        const t = await a.loadTensor(run.id);
        for (const s of stored) expect(t.get(s.i, s.j, 0)).toBe(s.output === 'a' ? P : F);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('two processes opening a new store at once both find it ready (migrations run once)', async () => {
      const at = await fresh();
      const opened = await Promise.all([openStore(at), openStore(at), openStore(at)]);
      const runs = await Promise.all(opened.map((s) => s.createRun(newRun())));
      expect(new Set(runs.map((r) => r.id)).size).toBe(3);
      expect(await opened[0].countRuns()).toBe(3);
      for (const s of opened) await s.close();
    });

    killedWriterTests(fresh);
    killedGraderTest(fresh);
  });
}

// A child stores grades one by one (as a person grading does), printing each id once recordGrade has resolved.
function killedGraderTest(fresh: () => Promise<string>) {
  it('loses no acknowledged grade when the process storing them is killed with SIGKILL', async () => {
    const at = await fresh();
    const setup = await openStore(at);
    const run = await setup.createRun(newRun({ inputs: Array.from({ length: 20 }, (_, i) => `in ${i}`), samples: 5 }));
    for (let i = 0; i < 20; i++) for (let j = 0; j < 5; j++) await setup.recordSample(run.id, sample(i, j, [P, F]));
    await setup.close();
    const script = join(scratch, `grader-${scripts++}.mts`);
    writeFileSync(
      script,
      `import { openStore } from ${JSON.stringify(new URL('./open.ts', import.meta.url).pathname)};
const s = await openStore(${JSON.stringify(at)});
for (let n = 0; n < 100000; n++) {
  const g = await s.recordGrade(${JSON.stringify(run.id)}, { i: n % 20, j: Math.floor(n / 20) % 5, rule: 'v1', grade: n % 3 ? 'pass' : 'fail', grader: 'g' + (n % 4) });
  process.stdout.write(g.id + '\\n');
}
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: number[] = [];
    let buf = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        acked.push(...lines.map(Number));
        if (acked.length >= 200 && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    expect(acked.length).toBeGreaterThanOrEqual(200);
    expect(acked.length).toBeLessThan(100000);
    const after = await openStore(at);
    try {
      const ids = new Set((await after.listGrades(run.id)).map((g) => g.id));
      for (const id of acked) expect(ids.has(id)).toBe(true);
      await after.recordGrade(run.id, grade(0, 0)); // still writable after the crash
    } finally {
      await after.close();
    }
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'assay-store-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let scripts = 0;

// A child writes 50 × 40 samples, printing each (i, j) once recordSample has resolved; we kill -9 it
// mid-stream. One writer awaits each sample in turn; the other keeps 32 in flight, as the runner does,
// so samples share group commits.
const writers = {
  'one at a time': `for (let i = 0; i < 50; i++) for (let j = 0; j < 40; j++) await write(i, j);`,
  '32 in flight': `let next = 0;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < 2000) {
    const x = next++;
    await new Promise((r) => setTimeout(r, Math.random() * 2));
    await write(Math.floor(x / 40), x % 40);
  }
}));`,
};

function killedWriterTests(fresh: () => Promise<string>) {
  for (const [shape, loop] of Object.entries(writers)) {
    it(`loses no acknowledged sample when a process writing ${shape} is killed with SIGKILL`, async () => {
      const at = await fresh();
      const setup = await openStore(at);
      const run = await setup.createRun(newRun({ inputs: Array.from({ length: 50 }, (_, i) => `in ${i}`), samples: 40 }));
      await setup.close();
      const script = join(scratch, `writer-${scripts++}.mts`);
      writeFileSync(
        script,
        `import { openStore } from ${JSON.stringify(new URL('./open.ts', import.meta.url).pathname)};
const s = await openStore(${JSON.stringify(at)});
async function write(i: number, j: number) {
  await s.recordSample(${JSON.stringify(run.id)}, { i, j, outcomes: [1, 2], output: 'x'.repeat(200), latencyMs: 1, attempts: 1 });
  process.stdout.write(i + ',' + j + '\\n');
}
${loop}
`,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const acked: string[] = [];
      let buf = '';
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          const lines = buf.split('\n');
          buf = lines.pop()!;
          acked.push(...lines);
          if (acked.length >= 300 && !child.killed) child.kill('SIGKILL');
        });
        child.on('exit', () => resolve());
      });
      expect(acked.length).toBeGreaterThanOrEqual(300);
      expect(acked.length).toBeLessThan(2000); // it really was killed mid-run

      const after = await openStore(at);
      try {
        const stored = await after.listSamples(run.id);
        const keys = new Set(stored.map((s) => `${s.i},${s.j}`));
        for (const a of acked) expect(keys.has(a)).toBe(true); // every acknowledged write survived
        expect(keys.size).toBe(stored.length); // no duplicates
        const t = await after.loadTensor(run.id);
        expect(Array.from(t.cells).filter((c) => c !== Outcome.PENDING).length).toBe(stored.length * 2);
        // the store is still writable and consistent after the crash
        const next = [...Array(50 * 40).keys()].map((x) => [Math.floor(x / 40), x % 40]).find(([i, j]) => !keys.has(`${i},${j}`))!;
        await after.recordSample(run.id, sample(next[0], next[1], [Outcome.PASS, Outcome.PASS]));
      } finally {
        await after.close();
      }
    });
  }
}
