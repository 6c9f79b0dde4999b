import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { newRun, sample, storeContract } from './contract.case.js';
import { NoStoreError, openStore } from './open.js';
import { openSqliteStore, SqliteStore } from './sqlite.js';
import { MIGRATIONS, SCHEMA_VERSION } from './sqlite-rows.js';
import { DuplicateSampleError } from './validate.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `s${n++}`, 'assay.db');

storeContract('sqlite (file)', async () => openSqliteStore(freshPath()), { fresh: async () => freshPath() });
storeContract('sqlite (:memory:)', async () => new SqliteStore(':memory:'));

describe('SqliteStore persistence', () => {
  it('persists runs and samples across close and reopen, and opens read-only', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.createRun(newRun());
    await s1.recordSample(run.id, sample(1, 1, [Outcome.PASS, Outcome.FAIL]));
    await s1.close();

    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.getRun(run.id))!.name).toBe('exp');
    expect((await ro.loadTensor(run.id)).get(1, 1, 1)).toBe(Outcome.FAIL);
    await expect(ro.createRun(newRun())).rejects.toThrow(/readonly/i);
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

  it('upgrades a schema-version-2 store in place: old samples read back, cost and the cache are stored', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.createRun(newRun());
    await s1.recordSample(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    await s1.close();
    // Make it a version-2 store: the columns and table added in version 3 did not exist.
    const raw = new Database(path);
    raw.exec(
      `ALTER TABLE samples DROP COLUMN cost_json; ALTER TABLE samples DROP COLUMN cached; DROP TABLE response_cache; UPDATE meta SET value = '2' WHERE key = 'schema_version'`,
    );
    raw.close();
    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.getSample(run.id, 0, 0))!.outcomes).toEqual([Outcome.PASS, Outcome.PASS]);
    await ro.close();
    const s2 = openSqliteStore(path);
    await s2.recordSample(run.id, sample(1, 0, [Outcome.PASS, Outcome.FAIL], { cost: { usd: 0.5 }, cached: true }));
    expect((await s2.getSample(run.id, 1, 0))!.cost).toEqual({ usd: 0.5 });
    expect((await s2.getSample(run.id, 0, 0))!.cost).toBeUndefined();
    await s2.cache.set('k', 'v');
    await s2.close();
  });

  it('a version-3 store (before grades) lists no grades read-only, and takes them once upgraded', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.createRun(newRun());
    await s1.recordSample(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    await s1.close();
    const raw = new Database(path);
    raw.exec(`DROP TABLE grades; UPDATE meta SET value = '3' WHERE key = 'schema_version'`);
    raw.close();
    const ro = openSqliteStore(path, { readonly: true });
    expect(await ro.listGrades(run.id)).toEqual([]);
    await ro.close();
    const s2 = openSqliteStore(path);
    await s2.recordGrade(run.id, { i: 0, j: 0, rule: 'v0', grade: 'pass', grader: 'ada' });
    expect((await s2.listGrades(run.id)).map((g) => g.grader)).toEqual(['ada']);
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
      expect(err).toBeInstanceOf(NoStoreError);
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
    const run = await store.createRun(newRun({ inputs: Array.from({ length: 10 }, (_, i) => `in ${i}`), samples: 10 }));
    const other = new Database(path, { readonly: true }); // a second connection sees only committed data
    const count = () => (other.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n;
    let acked = 0;
    const writes = Array.from({ length: 100 }, (_, x) =>
      store.recordSample(run.id, sample(Math.floor(x / 10), x % 10, [Outcome.PASS, Outcome.FAIL])).then(() => acked++),
    );
    const duplicate = store.recordSample(run.id, sample(3, 3, [Outcome.FAIL, Outcome.FAIL]));
    expect([count(), acked]).toEqual([0, 0]); // queued, not yet committed, not yet acknowledged
    await Promise.all(writes);
    await expect(duplicate).rejects.toBeInstanceOf(DuplicateSampleError); // fails alone, not its batch
    expect([count(), acked]).toEqual([100, 100]);
    expect((await store.getSample(run.id, 3, 3))!.outcomes).toEqual([Outcome.PASS, Outcome.FAIL]);
    other.close();
    await store.close();
  });

  it('reads see queued writes, and close commits them', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const run = await store.createRun(newRun());
    void store.recordSample(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    expect((await store.listSamples(run.id)).length).toBe(1);
    const last = store.recordSample(run.id, sample(1, 2, [Outcome.ERROR, Outcome.PASS]));
    await store.close();
    await last;
    const again = openSqliteStore(path, { readonly: true });
    expect((await again.loadTensor(run.id)).get(1, 2, 0)).toBe(Outcome.ERROR);
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
    expect((await ro.listRuns()).map((r) => r.id)).toEqual(['r1']);
    await ro.close();
    const s = openSqliteStore(path);
    expect(s.db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get()).toBe(String(SCHEMA_VERSION));
    expect((await s.getRun('r1'))!.name).toBe('old');
    expect(await s.getGuardCall('c0')).toMatchObject({
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
  it('refuses to create a run whose tensor could not be allocated, and loadTensor of such a stored record fails with a clear error', async () => {
    const path = freshPath();
    const s = openSqliteStore(path);
    await expect(s.createRun(newRun({ samples: 1e12 }))).rejects.toThrow(/tensor cells, found 2 inputs × 1000000000000 samples × 2 validators/);
    expect(await s.listRuns()).toEqual([]);
    const run = await s.createRun(newRun());
    s.db.prepare('UPDATE runs SET m = ? WHERE id = ?').run(1e12, run.id);
    await expect(s.loadTensor(run.id)).rejects.toThrow(new RegExp(`run ${run.id}: expected inputs × samples`));
    await s.close();
  });
});
