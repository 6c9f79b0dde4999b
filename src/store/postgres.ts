import type pg from 'pg';
import { lazyPackage } from '../lazy.js';
import { UsageError, thrownMessage } from '../errors.js';
import type { Outage } from './outage.js';
import { StoreError } from './errors.js';
import { noStore } from './no-store.js';
import { GroupCommit, type QueuedSample } from './group-commit.js';
import { PostgresGrades } from './postgres-grades.js';
import { PostgresAudits } from './postgres-audits.js';
import { PostgresGuardLog } from './postgres-guard.js';
import { PostgresProduction } from './postgres-production.js';
import type { Query } from './postgres-rows.js';
import { PostgresRuns } from './postgres-runs.js';
import { BATCH_ROWS, PostgresSamples, pgSampleWriter } from './postgres-samples.js';
import { parsePostgresUrl, PG_MIGRATIONS, PG_SCHEMA_VERSION, type PostgresLocation } from './postgres-schema.js';
import type { AuditStore, CacheEntry, GradeStore, GuardLog, ProductionStore, ResponseCache, RunStore, SampleStore, Store } from './types.js';

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

/** The pool's clients, each kept in `clients` until its connection ends. */
function trackedClient(clients: Set<pg.Client>): typeof pg.Client {
  return class Tracked extends closingClient() {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      clients.add(this);
      this.once('end', () => clients.delete(this));
    }
  };
}

function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Whether the server at `url` answers at all, on a connection of its own (the outage's probe, outage.ts): a
 * query that waits may be a slow one, or the server may have gone silent. True when it answered within
 * `timeoutMs`, if only to refuse; false when it did not, or could not be reached.
 */
export function postgresProbe(url: string): (timeoutMs: number) => Promise<boolean> {
  const location = parsePostgresUrl(url);
  return async (timeoutMs) => {
    const client = new (closingClient())({
      connectionString: location.connectionString,
      ...(location.options ? { options: location.options } : {}),
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      application_name: 'assay',
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (err) {
      // An error the server sent (severity: too many clients, starting up) is an answer.
      return (err as { severity?: unknown }).severity !== undefined || pgFailure(err) !== 'lost';
    } finally {
      destroySocket(client);
    }
  };
}

// json columns come back as their text, parsed by the row mappers like SQLite's JSON text.
const JSON_OID = 114;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === JSON_OID ? (v: string) => v : pgPackage().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * The team store: PostgreSQL through a `pg` connection pool, tables in their own schema (`?schema=`, default
 * `assay`). The schema is created and migrated on first use, under an advisory lock so that processes
 * starting together migrate once. Samples are written by group commit (postgres-samples.ts).
 */
export class PostgresStore implements Store {
  readonly location: PostgresLocation;
  readonly runs: RunStore;
  readonly samples: SampleStore;
  readonly grades: GradeStore;
  readonly audits: AuditStore;
  readonly cache: ResponseCache;
  readonly guard: GuardLog;
  readonly production: ProductionStore;
  private pool: pg.Pool;
  private ready?: Promise<void>;
  private closed = false;
  private readonly commit: GroupCommit<QueuedSample>;
  /** Every connection of the pool, connecting or connected: closed at once when the server was given up. */
  private readonly clients = new Set<pg.Client>();

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
      Client: trackedClient(this.clients),
    });
    // A pooled connection the server dropped while idle: the pool discards it and the next query reconnects.
    this.pool.on('error', () => {});
    const q: Query = (text, values) => this.q(text, values);
    this.commit = new GroupCommit(pgSampleWriter(q), BATCH_ROWS);
    const runs = new PostgresRuns(q, this.commit, this.location.shown);
    this.runs = runs;
    this.samples = new PostgresSamples(q, this.commit, runs);
    this.grades = new PostgresGrades(q, this.commit, runs);
    this.audits = new PostgresAudits(q);
    this.cache = new PostgresCache(q);
    this.guard = new PostgresGuardLog(q);
    this.production = new PostgresProduction(q);
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
    if (StoreError.isInstance(err) || UsageError.isInstance(err)) return err;
    const kind = pgFailure(err);
    if (!kind) return err;
    const code = String((err as { code?: unknown }).code ?? '');
    return new StoreError(`cannot use the assay store at ${this.location.shown}: ${firstLine(err)}${code ? ` (${code})` : ''}`, {
      cause: err,
      retryable: kind === 'lost',
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

  async close(): Promise<void> {
    if (this.closed) return;
    await this.commit.settle();
    this.closed = true;
    // A server given up (silent past the bound) would hold the pool's end until each query's own timeout (a minute).
    if (this.options.outage?.failure) for (const c of this.clients) destroySocket(c);
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
  const msg = thrownMessage(err);
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
  return thrownMessage(err).split('\n')[0];
}

export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): PostgresStore {
  return new PostgresStore(url, options);
}

/** The response cache in a PostgreSQL store (table response_cache). */
class PostgresCache implements ResponseCache {
  constructor(private readonly q: Query) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const { rows } = await this.q<{ value: string; stored_at: Date }>('SELECT value, stored_at FROM response_cache WHERE key = $1', [key]);
    return rows[0] && { value: rows[0].value, storedAt: rows[0].stored_at.toISOString() };
  }

  async set(key: string, value: string): Promise<void> {
    await this.q(
      'INSERT INTO response_cache (key, value, stored_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, stored_at = EXCLUDED.stored_at',
      [key, value, new Date().toISOString()],
    );
  }

  async add(key: string, value: string): Promise<boolean> {
    const r = await this.q('INSERT INTO response_cache (key, value, stored_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING', [
      key,
      value,
      new Date().toISOString(),
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length) await this.q('DELETE FROM response_cache WHERE key = ANY($1::text[])', [keys]);
  }

  async clear(): Promise<number> {
    return (await this.q('DELETE FROM response_cache')).rowCount ?? 0;
  }
}
