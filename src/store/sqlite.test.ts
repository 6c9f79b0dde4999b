import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { NoStoreError, openStore } from './open.js';
import { openSqliteStore } from './sqlite.js';
import { MIGRATIONS, SCHEMA_VERSION } from './sqlite-rows.js';
import { newRun, sample } from './testing/fixtures.js';
import { DuplicateSampleError } from './validate.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `s${n++}`, 'assay.db');

/** A store with one run and its sample (0, 0), made older by `downgrade` (SQL run on the file as it is). */
async function olderStore(downgrade: string) {
  const path = freshPath();
  const s = openSqliteStore(path);
  const run = await s.runs.create(newRun());
  await s.samples.record(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
  await s.close();
  const raw = new Database(path);
  // every older version lacks what migration 11 added
  raw.exec(
    `DROP INDEX audits_by_content; DROP INDEX audits_by_run; ALTER TABLE audits DROP COLUMN run_id; ALTER TABLE audits DROP COLUMN rule; ALTER TABLE audits DROP COLUMN content_key; ALTER TABLE samples DROP COLUMN claims_json; UPDATE meta SET value = '10' WHERE key = 'schema_version'`,
  );
  raw.exec(downgrade);
  raw.close();
  return { path, run };
}

describe('SqliteStore persistence', () => {
  it('persists runs and samples across close and reopen, and opens read-only', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.runs.create(newRun());
    await s1.samples.record(run.id, sample(1, 1, [Outcome.PASS, Outcome.FAIL]));
    await s1.close();

    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.runs.get(run.id))!.name).toBe('exp');
    expect((await ro.samples.tensor(run.id)).get(1, 1, 1)).toBe(Outcome.FAIL);
    await expect(ro.runs.create(newRun())).rejects.toThrow(/readonly/i);
    await ro.close();
  });

  it('keeps the response cache across close and reopen', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    await s1.cache.set('k', 'v');
    await s1.close();
    const s2 = openSqliteStore(path, { readonly: true });
    expect((await s2.cache.get('k'))?.value).toBe('v');
    await s2.close();
  });

  // Each older store lacks what later versions added (trajectory_json: version 5; production_alarms.delivered: version 9).
  it('upgrades a schema-version-2 store in place: old samples read back, cost and the cache are stored', async () => {
    // A version-2 store: the columns and table added in version 3 did not exist.
    const { path, run } = await olderStore(
      `ALTER TABLE production_alarms DROP COLUMN delivered; ALTER TABLE samples DROP COLUMN trajectory_json; ALTER TABLE samples DROP COLUMN cost_json; ALTER TABLE samples DROP COLUMN cached; DROP TABLE response_cache; UPDATE meta SET value = '2' WHERE key = 'schema_version'`,
    );
    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.samples.get(run.id, 0, 0))!.outcomes).toEqual([Outcome.PASS, Outcome.PASS]);
    await ro.close();
    const s2 = openSqliteStore(path);
    await s2.samples.record(run.id, sample(1, 0, [Outcome.PASS, Outcome.FAIL], { cost: { usd: 0.5 }, cached: true }));
    expect((await s2.samples.get(run.id, 1, 0))!.cost).toEqual({ usd: 0.5 });
    expect((await s2.samples.get(run.id, 0, 0))!.cost).toBeUndefined();
    await s2.cache.set('k', 'v');
    await s2.close();
  });

  it("a version-10 store (before a grounded rule's claims) reads read-only, and keeps claims and a run's batches once upgraded", async () => {
    const { path, run } = await olderStore('');
    {
      const a = openSqliteStore(path, { readonly: true });
      expect(await a.samples.get(run.id, 0, 0)).not.toHaveProperty('claims');
      await a.close();
    }
    const raw = new Database(path);
    raw.prepare(`INSERT INTO audits (id, name, created_at, claims_json) VALUES ('a-20260101-000000-0000', 'old', '2026-01-01T00:00:00.000Z', '[]')`).run();
    raw.close();
    const ro = openSqliteStore(path, { readonly: true });
    expect(await ro.audits.list()).toEqual([{ id: 'a-20260101-000000-0000', name: 'old', createdAt: '2026-01-01T00:00:00.000Z', claims: 0 }]);
    expect(await ro.audits.get('a-20260101-000000-0000')).toEqual({
      id: 'a-20260101-000000-0000',
      name: 'old',
      createdAt: '2026-01-01T00:00:00.000Z',
      claims: [],
    });
    await ro.close();
    const s2 = openSqliteStore(path);
    const claims = [{ claim: 1, text: 'It reboots in two minutes.', status: 'STRONG' as const, evidence: 'It reboots in two minutes.' }];
    await s2.samples.record(run.id, sample(1, 0, [Outcome.PASS, Outcome.FAIL], { claims: [claims, undefined] }));
    expect((await s2.samples.get(run.id, 1, 0))!.claims).toEqual([claims, undefined]);
    const made = await s2.audits.create({ name: 'r', run: { id: run.id, rule: 'grounded' }, claims: [{ answer: '2,1', ...claims[0] }] });
    expect((await s2.audits.get(made.audit.id))!.run).toEqual({ id: run.id, rule: 'grounded' });
    await s2.close();
  });

  it('a version-3 store (before grades) lists no grades read-only, and takes them once upgraded', async () => {
    const { path, run } = await olderStore(
      `ALTER TABLE production_alarms DROP COLUMN delivered; ALTER TABLE samples DROP COLUMN trajectory_json; DROP TABLE grades; UPDATE meta SET value = '3' WHERE key = 'schema_version'`,
    );
    const ro = openSqliteStore(path, { readonly: true });
    expect(await ro.grades.list(run.id)).toEqual([]);
    await ro.close();
    const s2 = openSqliteStore(path);
    await s2.grades.record(run.id, { i: 0, j: 0, rule: 'v0', grade: 'pass', grader: 'ada' });
    expect((await s2.grades.list(run.id)).map((g) => g.grader)).toEqual(['ada']);
    await s2.close();
  });

  it('a version-9 store (before audit batches) lists none read-only, and keeps them once upgraded', async () => {
    const { path } = await olderStore(`DROP TABLE audit_grades; DROP TABLE audits; UPDATE meta SET value = '9' WHERE key = 'schema_version'`);
    const ro = openSqliteStore(path, { readonly: true });
    expect(await ro.audits.list()).toEqual([]);
    expect(await ro.audits.get('a-20260101-000000-0000')).toBeUndefined();
    await ro.close();
    const s2 = openSqliteStore(path);
    const { audit: a } = await s2.audits.create({ name: 'b', claims: [{ answer: 'x', claim: 1, text: 'A claim.', status: 'WEAK' }] });
    await s2.audits.recordGrades(a.id, [{ answer: 'x', claim: 1, supported: true, grader: 'ada' }]);
    expect((await s2.audits.listGrades(a.id)).map((g) => g.grader)).toEqual(['ada']);
    await s2.close();
  });

  it("a version-4 store (before trajectories) reads its samples read-only, and gains the column and stores an agent's steps once upgraded", async () => {
    const { path, run } = await olderStore(
      `ALTER TABLE production_alarms DROP COLUMN delivered; ALTER TABLE samples DROP COLUMN trajectory_json; UPDATE meta SET value = '4' WHERE key = 'schema_version'`,
    );
    const ro = openSqliteStore(path, { readonly: true });
    expect(await ro.samples.get(run.id, 0, 0)).not.toHaveProperty('trajectory');
    await ro.close();
    const s2 = openSqliteStore(path);
    const columns = s2.db.prepare(`SELECT name FROM pragma_table_info('samples')`).pluck().all();
    expect(columns).toContain('trajectory_json');
    const trajectory = { steps: [{ toolCalls: [{ name: 'lookup', arguments: { id: 1 }, result: 'ok' }] }], ended: 'final' as const };
    await s2.samples.record(run.id, sample(1, 0, [Outcome.PASS, Outcome.FAIL], { trajectory }));
    expect((await s2.samples.get(run.id, 1, 0))!.trajectory).toEqual(trajectory);
    expect((await s2.samples.get(run.id, 0, 0))!.outcomes).toEqual([Outcome.PASS, Outcome.PASS]);
    await s2.close();
  });

  it('refuses to open a missing file read-only, or a file that is not a store', async () => {
    expect(() => openSqliteStore(join(dir, 'missing.db'), { readonly: true })).toThrow(/cannot open/);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not sqlite at all, just text that is long enough to look like a header........');
    expect(() => openSqliteStore(junk)).toThrow();
  });

  it('a store that must exist (read, or written by grades): a missing file or one with no assay tables is one usage error, and nothing is created', async () => {
    const missing = join(dir, 'none', 'assay.db');
    mkdirSync(dirname(missing), { recursive: true });
    for (const options of [{ readonly: true }, { existing: true }]) {
      const err = await openStore(missing, options).catch((e: unknown) => e);
      expect(NoStoreError.isInstance(err)).toBe(true);
      expect(err).toMatchObject({ exitCode: 2, where: { key: 'store' } });
      expect((err as Error).message).toBe(`store: expected an assay store at ${missing}, found no file (runs are stored there by: assay run <config>)`);
      expect(existsSync(missing)).toBe(false);
    }
    const empty = join(dir, 'none', 'empty.db');
    new Database(empty).close();
    for (const options of [{ readonly: true }, { existing: true }]) {
      await expect(openStore(empty, options)).rejects.toThrow(`store: expected an assay store at ${empty}, found no assay tables there`);
    }
    const check = new Database(empty, { readonly: true });
    expect(check.prepare(`SELECT count(*) AS n FROM sqlite_master`).get()).toEqual({ n: 0 });
    check.close();
    // A store with runs opens for writing grades.
    const path = freshPath();
    await (await openStore(path)).close();
    const store = await openStore(path, { existing: true });
    await store.close();
  });

  it('group commit: samples of one event-loop turn commit together, each acknowledged only once on disk', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const run = await store.runs.create(newRun({ inputs: Array.from({ length: 10 }, (_, i) => `in ${i}`), samples: 10 }));
    const other = new Database(path, { readonly: true }); // a second connection sees only committed data
    const count = () => (other.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n;
    let acked = 0;
    const writes = Array.from({ length: 100 }, (_, x) =>
      store.samples.record(run.id, sample(Math.floor(x / 10), x % 10, [Outcome.PASS, Outcome.FAIL])).then(() => acked++),
    );
    const duplicate = store.samples.record(run.id, sample(3, 3, [Outcome.FAIL, Outcome.FAIL]));
    expect([count(), acked]).toEqual([0, 0]); // queued, not yet committed, not yet acknowledged
    await Promise.all(writes);
    await expect(duplicate).rejects.toBeInstanceOf(DuplicateSampleError); // fails alone, not its batch
    expect([count(), acked]).toEqual([100, 100]);
    expect((await store.samples.get(run.id, 3, 3))!.outcomes).toEqual([Outcome.PASS, Outcome.FAIL]);
    other.close();
    await store.close();
  });

  it('reads see queued writes, and close commits them', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const run = await store.runs.create(newRun());
    void store.samples.record(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    expect((await store.samples.list(run.id)).length).toBe(1);
    const last = store.samples.record(run.id, sample(1, 2, [Outcome.ERROR, Outcome.PASS]));
    await store.close();
    await last;
    const again = openSqliteStore(path, { readonly: true });
    expect((await again.samples.tensor(run.id)).get(1, 2, 0)).toBe(Outcome.ERROR);
    await again.close();
  });

  it('migrates a version-1 store, keeping runs and the rows of the earlier stand-alone attempt log', async () => {
    const path = freshPath();
    mkdirSync(dirname(path), { recursive: true });
    const old = new Database(path);
    old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '1');`);
    old.exec(MIGRATIONS[0].sql);
    old.exec(MIGRATIONS[1].sql.split('CREATE INDEX')[0]); // the attempt log's two tables, as it created them
    old.prepare(`INSERT INTO runs VALUES ('r1', 'old', 'complete', '2025-01-01T00:00:00.000Z', NULL, 'simulated', NULL, '{}', '["a"]', '[]', 1, 1, 0)`).run();
    old.prepare(`INSERT INTO guard_calls VALUES ('c0', 'sys', '"q"', 1, 'accepted', NULL, 'ok', 1, 5, 2, NULL, 3.5, '2025-01-01T00:00:00.000Z')`).run();
    old.close();
    // Read-only, an old store is read as it is.
    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.runs.list()).map((r) => r.id)).toEqual(['r1']);
    await ro.close();
    const s = openSqliteStore(path);
    expect(s.db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get()).toBe(String(SCHEMA_VERSION));
    expect((await s.runs.get('r1'))!.name).toBe('old');
    expect(await s.guard.getCall('c0')).toMatchObject({
      callId: 'c0',
      input: 'q',
      accepted: true,
      output: 'ok',
      usage: { promptTokens: 5, completionTokens: 2 },
    });
    await s.close();
  });

  it('refuses a store written by a newer assay', async () => {
    const path = freshPath();
    const s = openSqliteStore(path);
    s.db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`).run();
    await s.close();
    expect(() => openSqliteStore(path)).toThrow(/schema version 99, newer than this assay/);
  });
});

describe('SqliteStore: design bounds', () => {
  it('refuses to create a run whose tensor could not be allocated, and samples.tensor of such a stored record fails with a clear error', async () => {
    const path = freshPath();
    const s = openSqliteStore(path);
    await expect(s.runs.create(newRun({ samples: 1e12 }))).rejects.toThrow(/tensor cells, found 2 inputs × 1000000000000 samples × 2 validators/);
    expect(await s.runs.list()).toEqual([]);
    const run = await s.runs.create(newRun());
    s.db.prepare('UPDATE runs SET m = ? WHERE id = ?').run(1e12, run.id);
    await expect(s.samples.tensor(run.id)).rejects.toThrow(new RegExp(`run ${run.id}: expected inputs × samples`));
    await s.close();
  });
});
