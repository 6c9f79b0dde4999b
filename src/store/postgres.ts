import type pg from 'pg';
import { ReliabilityTensor } from '../core/tensor.js';
import { lazyPackage } from '../lazy.js';
import { UsageError } from '../errors.js';
import type { Outage } from './outage.js';
import { StoreError } from './errors.js';
import { noStore } from './no-store.js';
import {
  GUARD_ATTEMPT_COLUMNS,
  GUARD_CALL_COLUMNS,
  guardAttemptValues,
  guardCallValues,
  toGuardAttempt,
  toGuardCall,
  type GuardAttemptRow,
  type GuardCallRow,
} from './guard-rows.js';
import { parsePostgresUrl, PG_MIGRATIONS, PG_SCHEMA_VERSION, type PostgresLocation } from './postgres-schema.js';
import { pgRunValues, pgSampleValues, RUN_COLUMNS, SAMPLE_COLUMNS, textOf, toPgRun, toPgSample, type PgRunRow, type PgSampleRow } from './postgres-rows.js';
import { GRADE_COLUMNS, gradeValues, toGrade, type GradeRow } from './sqlite-rows.js';
import type {
  CacheEntry,
  GradeFilter,
  GradeRecord,
  GuardAttemptRecord,
  GuardCallRecord,
  NewGrade,
  NewRun,
  ResponseCache,
  RunFilter,
  RunRecord,
  RunStatus,
  SampleRecord,
  Store,
} from './types.js';
import { checkGrades, checkSample, checkShape, DuplicateSampleError, newRunId, pageBounds, UnknownRunError } from './validate.js';

export interface PostgresStoreOptions {
  /** Read only (dashboard, reports): every transaction is read-only, nothing is created or migrated. */
  readonly?: boolean;
  /** The schema must exist already (store/no-store.ts), though the store is written (grades): it is then migrated, never created. Implied by readonly. */
  existing?: boolean;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * Ride out a lost server: every query that fails for a lost connection is tried again until the server
   * answers or the outage's bound passes (assay run, assay worker). Without it such a query fails at once.
   */
  outage?: Outage;
}

/** A server that does not finish the start of a connection within this long is reported (ms). */
export const PG_CONNECT_TIMEOUT_MS = 10_000;
/** A query whose answer has not come within this long is given up, and its connection closed (ms). */
export const PG_QUERY_TIMEOUT_MS = 60_000;

// `pg` loads with the first Postgres store, not with every SQLite run (start-up, docs/runner.md).
const pgPackage = lazyPackage<typeof pg>('pg');
let clientClass: typeof pg.Client | undefined;

/**
 * pg-pool drops a client whose connection failed without closing its socket: a login the client itself
 * gives up on (SCRAM with no password) leaves the socket open until the server's authentication_timeout
 * (60 s), which keeps the process alive that long. Close it at once.
 */
function closingClient(): typeof pg.Client {
  clientClass ??= class Client extends pgPackage().Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const close = () => (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      if (!callback)
        return super.connect().catch((err: unknown) => {
          close();
          throw err;
        });
      super.connect((err: Error | null) => {
        if (err) close();
        callback(err as Error);
      });
    }
  };
  return clientClass;
}

// json columns come back as their text, parsed by the row mappers like SQLite's JSON text.
const JSON_OID = 114;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === JSON_OID ? (v: string) => v : pgPackage().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Rows per INSERT of a group commit (15 parameters each; Postgres allows 65,535 per statement). */
const BATCH_ROWS = 500;

interface PendingWrite {
  runId: string;
  sample: SampleRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The team store: PostgreSQL through a `pg` connection pool, tables in their own schema (`?schema=`, default
 * `assay`). The schema is created and migrated on first use, under an advisory lock so that processes
 * starting together migrate once. A sample is acknowledged once its INSERT has committed (synchronous
 * commit: it survives kill -9 of the writer, and of the server). Samples recorded in one turn of the event
 * loop share one multi-row INSERT … ON CONFLICT DO NOTHING: a row that did not go in was already there, so
 * of two writers of one (i, j) exactly one succeeds and the other gets a DuplicateSampleError.
 */
export class PostgresStore implements Store {
  readonly location: PostgresLocation;
  private pool: pg.Pool;
  private ready?: Promise<void>;
  private closed = false;

  constructor(
    url: string,
    private options: PostgresStoreOptions = {},
  ) {
    this.location = parsePostgresUrl(url);
    const settings = [this.location.options, `-c search_path=${this.location.schema}`, options.readonly ? '-c default_transaction_read_only=on' : ''];
    this.pool = new (pgPackage().Pool)({
      connectionString: this.location.connectionString,
      options: settings.filter(Boolean).join(' '),
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      query_timeout: PG_QUERY_TIMEOUT_MS,
      keepAlive: true,
      application_name: 'assay',
      types,
      Client: closingClient(),
    });
    // A pooled connection the server dropped while idle: the pool discards it and the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** Connect, and migrate (or, read-only, check) the schema; every method awaits it. */
  open(): Promise<void> {
    this.ready ??= this.prepareSchema().catch((err: unknown) => {
      this.ready = undefined; // a server that was down may be up at the next call
      throw this.wrap(err);
    });
    return this.ready;
  }

  /** Read-only: check the schema; a store that must exist: check, then migrate; else create or migrate it. */
  private async prepareSchema(): Promise<void> {
    if (this.options.readonly || this.options.existing) await this.checkSchema();
    if (!this.options.readonly) await this.migrate();
  }

  private async migrate(): Promise<void> {
    const { schema } = this.location;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`assay-migrate:${schema}`]);
      const exists = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (!exists.rowCount) await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(`SET LOCAL search_path TO "${schema}"`);
      await c.query(
        'CREATE TABLE IF NOT EXISTS assay_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const v = Number((await c.query('SELECT coalesce(max(version), 0) AS v FROM assay_migrations')).rows[0].v);
      if (v > PG_SCHEMA_VERSION)
        throw new StoreError(`the assay store at ${this.location.shown} has schema version ${v}, newer than this assay (${PG_SCHEMA_VERSION}); upgrade assay`);
      for (const m of PG_MIGRATIONS) {
        if (m.version <= v) continue;
        await c.query(m.sql);
        await c.query('INSERT INTO assay_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  private async checkSchema(): Promise<void> {
    const { rows } = await this.pool.query(`SELECT to_regclass('assay_migrations') AS t`);
    if (rows[0].t === null) {
      throw noStore(this.location.shown, 'no assay tables there', ` (schema "${this.location.schema}")`);
    }
    const v = Number((await this.pool.query('SELECT max(version) AS v FROM assay_migrations')).rows[0].v);
    if (v > PG_SCHEMA_VERSION)
      throw new StoreError(`the assay store at ${this.location.shown} has schema version ${v}, newer than this assay (${PG_SCHEMA_VERSION}); upgrade assay`);
  }

  /** Connection-level failures become a one-line StoreError naming the store; anything else passes through. */
  private wrap(err: unknown): unknown {
    if (err instanceof StoreError || err instanceof UsageError) return err;
    const kind = pgFailure(err);
    if (!kind) return err;
    const code = String((err as { code?: unknown }).code ?? '');
    return new StoreError(`cannot use the assay store at ${this.location.shown}: ${firstLine(err)}${code ? ` (${code})` : ''}`, {
      cause: err,
      transient: kind === 'lost',
    });
  }

  private async q<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const once = async () => {
      if (this.closed) throw new StoreError(`the assay store at ${this.location.shown} is closed`);
      await this.open();
      try {
        return await this.pool.query<R>(text, values);
      } catch (err) {
        throw this.wrap(err);
      }
    };
    return this.options.outage ? this.options.outage.ride(once) : once();
  }

  // recordSample runs once per sample: keep each run's shape instead of reading its row again.
  private shapes = new Map<string, RunRecord>();

  private async shape(runId: string): Promise<RunRecord> {
    let r = this.shapes.get(runId);
    if (!r) {
      r = await this.run(runId);
      this.shapes.set(runId, r);
    }
    return r;
  }

  private async run(runId: string): Promise<RunRecord> {
    const r = await this.getRunNow(runId);
    if (!r) throw new UnknownRunError(runId);
    return r;
  }

  private async getRunNow(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.q<PgRunRow>('SELECT * FROM runs WHERE id = $1', [runId]);
    return rows[0] && toPgRun(rows[0]);
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    checkShape(`run ${run.name}`, run.inputs.length, run.samples, run.validators.length);
    const marks = RUN_COLUMNS.map((_, n) => `$${n + 1}`).join(', ');
    // Ids are second + 16 random bits: two runs started in the same second may draw the same one.
    for (let attempt = 0; attempt < 20; attempt++) {
      const { rows } = await this.q<PgRunRow>(
        `INSERT INTO runs (${RUN_COLUMNS.join(', ')}) VALUES (${marks}) ON CONFLICT (id) DO NOTHING RETURNING *`,
        pgRunValues(newRunId(), run),
      );
      if (rows[0]) return toPgRun(rows[0]);
    }
    throw new StoreError(`could not find a free run id in the assay store at ${this.location.shown}`);
  }

  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private inflight = new Set<Promise<void>>();

  async recordSample(runId: string, s: SampleRecord): Promise<void> {
    checkSample(await this.shape(runId), s); // a malformed sample or unknown run is refused at once
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ runId, sample: s, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue.splice(0);
    for (let at = 0; at < batch.length; at += BATCH_ROWS) {
      const p: Promise<void> = this.writeBatch(batch.slice(at, at + BATCH_ROWS)).finally(() => this.inflight.delete(p));
      this.inflight.add(p);
    }
  }

  /** Commit what is queued and wait for every write in flight: reads see earlier writes. */
  private async settle(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inflight]);
  }

  private async writeBatch(batch: PendingWrite[]): Promise<void> {
    try {
      const values: unknown[] = [];
      const rows = batch.map((w) => {
        const row = pgSampleValues(w.runId, w.sample);
        const marks = row.map((_, c) => `$${values.length + c + 1}`);
        values.push(...row);
        return `(${marks.join(', ')})`;
      });
      const { rows: inserted } = await this.q<{ run_id: string; i: number; j: number }>(
        `INSERT INTO samples (${SAMPLE_COLUMNS.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT (run_id, i, j) DO NOTHING RETURNING run_id, i, j`,
        values,
      );
      // A row that did not go in was there already (or earlier in this very batch): the first writer keeps it.
      const fresh = new Set(inserted.map((r) => `${r.run_id}\0${r.i}\0${r.j}`));
      for (const w of batch) {
        const key = `${w.runId}\0${w.sample.i}\0${w.sample.j}`;
        if (fresh.delete(key)) w.resolve();
        else w.reject(new DuplicateSampleError(w.runId, w.sample.i, w.sample.j));
      }
    } catch (err) {
      // A value the server refused (class 22/23) fails its own sample, not its batch: write them one by one.
      if (batch.length > 1 && /^2[23]/.test(String((err as { code?: unknown }).code ?? ''))) {
        await Promise.all(batch.map((w) => this.writeBatch([w])));
        return;
      }
      for (const w of batch) w.reject(err);
    }
  }

  async discardGenerationErrors(runId: string): Promise<number> {
    await this.settle();
    if (!(await this.getRunNow(runId))) throw new UnknownRunError(runId);
    return (await this.q('DELETE FROM samples WHERE run_id = $1 AND generation_error IS NOT NULL', [runId])).rowCount ?? 0;
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    await this.settle();
    const res = await this.q('UPDATE runs SET status = $1, finished_at = $2 WHERE id = $3', [
      status,
      status === 'running' ? null : new Date().toISOString(),
      runId,
    ]);
    if (res.rowCount === 0) throw new UnknownRunError(runId);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    await this.settle();
    return this.getRunNow(runId);
  }

  private runWhere(filter: RunFilter): { where: string; values: unknown[] } {
    const clauses: string[] = [];
    const values: unknown[] = [];
    if (filter.name !== undefined) {
      values.push(filter.name);
      clauses.push(`name = $${values.length}`);
    }
    if (filter.idPrefix !== undefined) {
      // starts_with, not LIKE (no wildcards to escape) nor a range (a linguistic collation does not sort ids bytewise).
      values.push(filter.idPrefix);
      clauses.push(`starts_with(id, $${values.length})`);
    }
    if (filter.nameContains !== undefined) {
      values.push(filter.nameContains.toLowerCase());
      clauses.push(`strpos(lower(name), $${values.length}) > 0`);
    }
    return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', values };
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    await this.settle();
    const { where, values } = this.runWhere(filter);
    const { limit, offset } = pageBounds(filter);
    const { rows } = await this.q<PgRunRow>(
      `SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC ${limit !== undefined ? `LIMIT ${limit}` : ''} OFFSET ${offset}`,
      values,
    );
    return rows.map(toPgRun);
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    await this.settle();
    const { where, values } = this.runWhere(filter);
    const { rows } = await this.q<{ n: string }>(`SELECT count(*) AS n FROM runs ${where}`, values);
    return Number(rows[0].n);
  }

  async loadTensor(runId: string): Promise<ReliabilityTensor> {
    await this.settle();
    const run = await this.run(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    const { rows } = await this.q<{ i: number; j: number; outcomes: Buffer }>('SELECT i, j, outcomes FROM samples WHERE run_id = $1', [runId]);
    for (const row of rows) t.cells.set(row.outcomes, t.index(row.i, row.j, 0));
    return t;
  }

  async getSample(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    await this.settle();
    const { rows } = await this.q<PgSampleRow>('SELECT * FROM samples WHERE run_id = $1 AND i = $2 AND j = $3', [runId, i, j]);
    if (rows[0]) return toPgSample(rows[0]);
    await this.shape(runId); // absent: from a run that exists, or an unknown run (which throws)
    return undefined;
  }

  async listSamples(runId: string): Promise<SampleRecord[]> {
    await this.settle();
    await this.run(runId);
    const { rows } = await this.q<PgSampleRow>('SELECT * FROM samples WHERE run_id = $1 ORDER BY i, j', [runId]);
    return rows.map(toPgSample);
  }

  async recordGrade(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordGrades(runId, [grade]))[0];
  }

  async recordGrades(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    await this.settle();
    const run = await this.run(runId);
    // The outputs graded, read at once; every grade is checked before any is stored.
    const cells = grades.filter((g) => Number.isInteger(g?.i) && Number.isInteger(g?.j) && g.i >= 0 && g.j >= 0 && g.i < run.N && g.j < run.M);
    const stored = new Map<string, { output?: string; generationError?: string }>();
    if (cells.length) {
      const { rows } = await this.q<{ i: number; j: number; output: string | null; generation_error: string | null }>(
        'SELECT s.i, s.j, s.output::text AS output, s.generation_error::text AS generation_error FROM samples s JOIN unnest($2::int[], $3::int[]) AS c (i, j) ON s.i = c.i AND s.j = c.j WHERE s.run_id = $1',
        [runId, cells.map((g) => g.i), cells.map((g) => g.j)],
      );
      for (const r of rows)
        stored.set(`${r.i},${r.j}`, {
          ...(r.output !== null ? { output: jsonText(r.output)! } : {}),
          ...(r.generation_error !== null ? { generationError: jsonText(r.generation_error)! } : {}),
        });
    }
    const checked = checkGrades(run, grades, (i, j) => stored.get(`${i},${j}`));
    if (!checked.length) return [];
    const values: unknown[] = [];
    const rows = checked.map((g) => {
      const row = gradeValues(runId, g);
      row[3] = JSON.stringify(g.rule); // a json column: any name a config allows, U+0000 included
      const marks = row.map((_, c) => `$${values.length + c + 1}`);
      values.push(...row);
      return `(${marks.join(', ')})`;
    });
    // One statement is one transaction: all are stored or none.
    const { rows: ids } = await this.q<{ id: string }>(`INSERT INTO grades (${GRADE_COLUMNS.join(', ')}) VALUES ${rows.join(', ')} RETURNING id`, values);
    return checked.map((g, n) => ({ ...g, id: Number(ids[n].id), runId }));
  }

  async deleteGrade(runId: string, id: number): Promise<boolean> {
    await this.settle();
    await this.run(runId);
    if (!Number.isSafeInteger(id)) return false;
    return ((await this.q('DELETE FROM grades WHERE run_id = $1 AND id = $2', [runId, id])).rowCount ?? 0) > 0;
  }

  private gradesTable = false;

  async listGrades(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    await this.settle();
    // Every report reads a run's grades: the run's existence is checked without reading its record.
    if (!(await this.q('SELECT 1 FROM runs WHERE id = $1', [runId])).rowCount) throw new UnknownRunError(runId);
    // A store from before grades (opened read-only, so not migrated) has none; once there, the table stays.
    this.gradesTable ||= (await this.q<{ t: string | null }>(`SELECT to_regclass('grades') AS t`)).rows[0].t !== null;
    if (!this.gradesTable) return [];
    const clauses = ['run_id = $1'];
    const values: unknown[] = [runId];
    for (const key of ['rule', 'grader', 'i', 'j'] as const) {
      if (filter[key] === undefined) continue;
      values.push(key === 'rule' ? JSON.stringify(filter.rule) : filter[key]);
      clauses.push(key === 'rule' ? `rule::text = $${values.length}` : `${key} = $${values.length}`);
    }
    const { rows } = await this.q<Omit<GradeRow, 'id' | 'graded_at'> & { id: string; graded_at: Date }>(
      `SELECT * FROM grades WHERE ${clauses.join(' AND ')} ORDER BY graded_at, id`,
      values,
    );
    return rows.map((r) => toGrade({ ...r, rule: JSON.parse(r.rule) as string }));
  }

  async gradesVersion(): Promise<string> {
    await this.settle();
    this.gradesTable ||= (await this.q<{ t: string | null }>(`SELECT to_regclass('grades') AS t`)).rows[0].t !== null;
    if (!this.gradesTable) return '0:0';
    const { rows } = await this.q<{ n: string; m: string }>('SELECT count(*) AS n, coalesce(max(id), 0) AS m FROM grades');
    return `${rows[0].n}:${rows[0].m}`;
  }

  async recordGuardAttempt(a: GuardAttemptRecord): Promise<void> {
    await this.q(upsert('guard_attempts', GUARD_ATTEMPT_COLUMNS, ['call_id', 'n']), guardAttemptValues(a, textOf));
  }

  async recordGuardCall(c: GuardCallRecord): Promise<void> {
    await this.q(
      upsert('guard_calls', GUARD_CALL_COLUMNS, ['call_id']),
      guardCallValues(c, (b) => b, textOf),
    );
  }

  async getGuardCall(callId: string): Promise<GuardCallRecord | undefined> {
    const { rows } = await this.q<GuardCallRow>('SELECT * FROM guard_calls WHERE call_id = $1', [callId]);
    return rows[0] && toGuardCall(rows[0], jsonText);
  }

  async listGuardAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    const { rows } = await this.q<GuardAttemptRow>('SELECT * FROM guard_attempts WHERE call_id = $1 ORDER BY n', [callId]);
    return rows.map((r) => toGuardAttempt(r, jsonText));
  }

  async listGuardCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const { limit, offset } = pageBounds(filter);
    const { rows } = await this.q<GuardCallRow>(
      `SELECT * FROM guard_calls ORDER BY finished_at DESC, call_id DESC ${limit !== undefined ? `LIMIT ${limit}` : ''} OFFSET ${offset}`,
    );
    return rows.map((r) => toGuardCall(r, jsonText));
  }

  readonly cache: ResponseCache = {
    get: async (key) => {
      const { rows } = await this.q<{ value: string; stored_at: Date }>('SELECT value, stored_at FROM response_cache WHERE key = $1', [key]);
      return rows[0] && ({ value: rows[0].value, storedAt: rows[0].stored_at.toISOString() } satisfies CacheEntry);
    },
    set: async (key, value) => {
      await this.q(
        'INSERT INTO response_cache (key, value, stored_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, stored_at = EXCLUDED.stored_at',
        [key, value, new Date().toISOString()],
      );
    },
    clear: async () => (await this.q('DELETE FROM response_cache')).rowCount ?? 0,
  };

  async close(): Promise<void> {
    if (this.closed) return;
    await this.settle();
    this.closed = true;
    await this.pool.end();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * What a `pg` failure says about the server: `lost` for a connection that failed, dropped or went silent
 * (worth waiting for: the server may be restarting), `fatal` for a login or database the server will not
 * give us, or a server that cannot serve (no wait mends it), undefined for a query's own error.
 */
export function pgFailure(err: unknown): 'lost' | 'fatal' | undefined {
  const code = String((err as { code?: unknown }).code ?? '');
  const msg = err instanceof Error ? err.message : String(err);
  // 28: a login refused (password, pg_hba, TLS required); 3D: no such database; a SCRAM or TLS exchange the client gave up.
  if (/^(28|3D)/.test(code) || /^SASL|SCRAM|password must be a string|does not support SSL|self[- ]signed|certificate/i.test(msg)) return 'fatal';
  // 08: connection exceptions; 57P0x: the server shutting down or starting; 53: out of connections, disk or memory.
  if (
    /^(ECONN|ENOTFOUND|EAI_|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)/.test(code) ||
    /^(08|53|57P0)/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error|not queryable/i.test(
      msg,
    )
  )
    return 'lost';
  return /^(57|58)/.test(code) ? 'fatal' : undefined;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}

/** A text column kept as a JSON string (Postgres text cannot hold U+0000), read back. */
const jsonText = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : (JSON.parse(v as string) as string));

function upsert(table: string, columns: readonly string[], key: string[]): string {
  const marks = columns.map((_, n) => `$${n + 1}`).join(', ');
  const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${marks}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${set.join(', ')}`;
}

export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): PostgresStore {
  return new PostgresStore(url, options);
}
