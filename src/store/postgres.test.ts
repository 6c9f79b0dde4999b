import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../testing/services.js';
import { StoreError } from './errors.js';
import { openStore } from './open.js';
import { PostgresStore } from './postgres.js';
import { parsePostgresUrl, PG_SCHEMA_VERSION, redactPassword } from './postgres-schema.js';
import { F, newRun, P, sample } from './testing/fixtures.js';

// A database of this test run (dropped after); each store gets a schema of its own in it.
const db = await createTestDatabase();
afterAll(async () => db?.drop());
let n = 0;
const fresh = async () => `${db!.url}?schema=s${n++}`;

describe.skipIf(!db)('PostgreSQL store', () => {
  it('records the migrations it applied, once, in the store schema', async () => {
    const at = await fresh();
    await Promise.all([openStore(at), openStore(at)]).then((s) => Promise.all(s.map((x) => x.close())));
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    try {
      const { rows } = await c.query(`SELECT version, name FROM s${n - 1}.assay_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: PG_SCHEMA_VERSION }, (_, k) => k + 1));
      const tables = await c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [`s${n - 1}`]);
      expect(tables.rows.map((r) => r.table_name)).toEqual([
        'assay_migrations',
        'audit_grades',
        'audits',
        'grades',
        'guard_attempts',
        'guard_calls',
        'production_alarms',
        'production_checks',
        'production_cursors',
        'production_rule_settings',
        'production_spans',
        'response_cache',
        'runs',
        'samples',
      ]);
    } finally {
      await c.end();
    }
  });

  it("upgrades a version-3 store (before trajectories) in place: old samples read back, the column added, an agent's steps stored", async () => {
    const at = await fresh();
    const schema = `s${n - 1}`;
    const first = await openStore(at);
    const run = await first.runs.create(newRun());
    await first.samples.record(run.id, sample(0, 0, [P, P]));
    await first.close();
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    try {
      await c.query(
        `ALTER TABLE ${schema}.samples DROP COLUMN trajectory_json; DROP TABLE ${schema}.production_spans, ${schema}.production_checks, ${schema}.production_cursors, ${schema}.production_alarms; DELETE FROM ${schema}.assay_migrations WHERE version >= 4`,
      );
      const ro = await openStore(at, { readonly: true });
      expect(await ro.samples.get(run.id, 0, 0)).not.toHaveProperty('trajectory');
      await ro.close();
      await using upgraded = await openStore(at);
      const trajectory = { steps: [{ toolCalls: [{ name: 'lookup', arguments: { id: 1 }, result: 'nul \u0000' }] }], ended: 'final' as const };
      await upgraded.samples.record(run.id, sample(1, 0, [P, F], { trajectory }));
      expect((await upgraded.samples.get(run.id, 1, 0))!.trajectory).toEqual(trajectory);
      expect((await upgraded.samples.get(run.id, 0, 0))!.outcomes).toEqual([P, P]);
      const { rows } = await c.query(`SELECT max(version) AS v FROM ${schema}.assay_migrations`);
      expect(rows[0].v).toBe(PG_SCHEMA_VERSION);
    } finally {
      await c.end();
    }
  });

  it('refuses a store written by a newer assay', async () => {
    const at = await fresh();
    await (await openStore(at)).close();
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    await c.query(`INSERT INTO s${n - 1}.assay_migrations (version, name) VALUES (99, 'future')`);
    await c.end();
    await expect(openStore(at)).rejects.toThrow(/schema version 99, newer than this assay/);
    await expect(openStore(at, { readonly: true })).rejects.toThrow(/schema version 99/);
  });

  it('read-only: an empty database is a usage error naming the URL and schema, and nothing is created', async () => {
    const at = await fresh();
    await expect(openStore(at, { readonly: true })).rejects.toThrow(/expected an assay store at .*\(schema "s\d+"\), found no assay tables there/);
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    const { rowCount } = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [`s${n - 1}`]);
    await c.end();
    expect(rowCount).toBe(0);
  });

  it('a store that must exist, written by grades: an empty database is refused as for reading; a store with runs opens and migrates', async () => {
    const at = await fresh();
    await expect(openStore(at, { existing: true })).rejects.toThrow(/^store: expected an assay store at .*\(schema "s\d+"\), found no assay tables there/);
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    const { rowCount } = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [`s${n - 1}`]);
    await c.end();
    expect(rowCount).toBe(0);
    await (await openStore(at)).close();
    await (await openStore(at, { existing: true })).close();
  });

  it('an unreachable server or a missing database is a one-line StoreError that hides the password', async () => {
    const refused = openStore('postgres://alice:s3cret@127.0.0.1:1/none');
    await expect(refused).rejects.toBeInstanceOf(StoreError);
    await expect(refused).rejects.toThrow(/cannot .*postgres:\/\/alice:\*\*\*@127\.0\.0\.1:1\/none.*ECONNREFUSED/);
    await expect(refused).rejects.not.toThrow(/s3cret/);
    const u = new URL(db!.url);
    u.pathname = '/assay_no_such_database';
    await expect(openStore(u.toString())).rejects.toThrow(/database "assay_no_such_database" does not exist \(3D000\)/);
  });

  it('a store whose connections the server cut (a restart) reconnects at the next call; a closed store says so', async () => {
    const store = new PostgresStore(await fresh(), { poolSize: 2 });
    const run = await store.runs.create(newRun());
    // Cut every connection of this store from the server side, as a restart would.
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    const cut = await c.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'assay' AND datname = current_database() AND pid <> pg_backend_pid()`,
    );
    await c.end();
    expect(cut.rowCount).toBeGreaterThan(0);
    // A connection killed while idle is dropped by the pool; the next query reconnects.
    await new Promise((r) => setTimeout(r, 100));
    expect((await store.runs.get(run.id))!.id).toBe(run.id);
    await store.close();
    await expect(store.runs.get(run.id)).rejects.toThrow(/closed/);
  });
});

describe('postgres URLs', () => {
  it('takes assay’s schema parameter out, keeps the rest, and never shows the password', () => {
    expect(parsePostgresUrl('postgres://u:p@h:5433/d?schema=team_a&sslmode=require')).toMatchObject({
      schema: 'team_a',
      connectionString: 'postgres://u:p@h:5433/d?sslmode=require',
      shown: 'postgres://u:***@h:5433/d?schema=team_a&sslmode=require',
    });
    expect(parsePostgresUrl('postgresql://h/d').schema).toBe('assay');
    expect(() => parsePostgresUrl('postgres://h/d?schema=a;drop')).toThrow(/plain identifier/);
    expect(redactPassword('postgres://alice@h/d')).toBe('postgres://alice@h/d');
    expect(redactPassword('postgres://alice:p%40ss@h/d')).toBe('postgres://alice:***@h/d');
  });
});
