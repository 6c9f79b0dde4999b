import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GroupCommit, type QueuedSample } from './group-commit.js';
import { SqliteGrades } from './sqlite-grades.js';
import { SqliteAudits } from './sqlite-audits.js';
import { SqliteGuardLog } from './sqlite-guard.js';
import { SqliteProduction } from './sqlite-production.js';
import { nativeModuleProblem } from './sqlite-native.js';
import { retainStatementsOnClose } from './sqlite-retain.js';
import { noStore } from './no-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from './sqlite-rows.js';
import { SqliteRuns } from './sqlite-runs.js';
import { SqliteSamples, sqliteSampleWriter } from './sqlite-samples.js';
import type { AuditStore, CacheEntry, GradeStore, GuardLog, ProductionStore, ResponseCache, RunStore, SampleStore, Store } from './types.js';

/** Where runs live unless configured: `.assay/assay.db` under the working directory. */
export function defaultStorePath(cwd: string = process.cwd()): string {
  return join(cwd, '.assay', 'assay.db');
}

/**
 * `.assay/` in the working directory is assay's own folder (as `.git/` is git's): it is created when a store
 * in it is first written. Any other folder of a store a user names must exist, so that a mistyped path
 * creates nothing (storeLocation).
 */
export function isDefaultStoreFolder(folder: string, cwd: string = process.cwd()): boolean {
  return resolve(folder) === dirname(defaultStorePath(resolve(cwd)));
}

export interface SqliteStoreOptions {
  /** Open for reading only (dashboard, reports); never creates or migrates. */
  readonly?: boolean;
  /** The file must be an assay store already (store/no-store.ts), though it is written (grades): migrated, never created. Implied by readonly. */
  existing?: boolean;
}

/**
 * The embedded default store. WAL journal with synchronous=NORMAL: a committed sample survives the process
 * being killed at any moment (kill -9); only an OS crash or power loss could drop the last transactions.
 *
 * Samples are written by group commit (store/group-commit.ts): those recorded within one turn of the event
 * loop share one transaction. `samples.record` resolves only once the transaction holding its sample has
 * committed; every other call (but the cache's and the guard log's) first commits what is queued, so reads
 * always see earlier writes.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  readonly runs: RunStore;
  readonly samples: SampleStore;
  readonly grades: GradeStore;
  readonly audits: AuditStore;
  readonly cache: ResponseCache;
  readonly guard: GuardLog;
  readonly production: ProductionStore;
  private readonly commit: GroupCommit<QueuedSample>;
  private readonly afterClose: () => void;

  constructor(
    readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    // A path given in code gets its folder; one a user gave (--store, ASSAY_STORE) was checked first (storeLocation).
    if (!options.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    } catch (err) {
      throw new Error(`cannot open the assay store at ${path}: ${nativeModuleProblem(err) ?? (err as Error).message}`, { cause: err });
    }
    this.afterClose = retainStatementsOnClose(this.db);
    // exec, not pragma(): pragma() prepares a statement that sqlite-retain.ts could not track.
    this.db.exec('PRAGMA busy_timeout = 5000');
    // A database without assay tables is refused before anything is written to it, as a missing file is (a
    // file that is not a SQLite database at all throws here: a StoreError, as any file SQLite cannot open).
    if ((options.readonly || options.existing) && !this.hasSchema()) {
      this.db.close();
      this.afterClose();
      throw noStore(path, 'no assay tables there');
    }
    if (!options.readonly) {
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec('PRAGMA synchronous = NORMAL');
      this.db.exec('PRAGMA foreign_keys = ON');
      // A store already at this version is only read: a write transaction costs every run a commit (start-up).
      if (this.schemaVersion() !== SCHEMA_VERSION) this.migrate();
    }
    this.commit = new GroupCommit(sqliteSampleWriter(this.db));
    const runs = new SqliteRuns(this.db, this.commit);
    this.runs = runs;
    this.samples = new SqliteSamples(this.db, this.commit, runs);
    this.grades = new SqliteGrades(this.db, this.commit, runs);
    this.audits = new SqliteAudits(this.db);
    this.cache = new SqliteCache(this.db);
    this.guard = new SqliteGuardLog(this.db);
    this.production = new SqliteProduction(this.db);
  }

  /** Whether the database holds assay's tables; throws for a file that is not a SQLite database. */
  private hasSchema(): boolean {
    const meta = this.db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get() as { n: number };
    return meta.n > 0 && this.schemaVersion() !== undefined;
  }

  private schemaVersion(): number | undefined {
    try {
      const row = this.db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
      return row ? Number(row.value) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Apply the migrations not yet applied, in one IMMEDIATE transaction: a second process opening the file waits, then finds them done. */
  private migrate(): void {
    this.db
      .transaction(() => {
        this.db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
        const v = this.schemaVersion() ?? 0;
        if (v > SCHEMA_VERSION) {
          throw new Error(`the store at ${this.path} has schema version ${v}, newer than this assay (${SCHEMA_VERSION}); upgrade assay`);
        }
        for (const m of MIGRATIONS) if (m.version > v) this.db.exec(m.sql);
        this.db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(SCHEMA_VERSION));
      })
      .immediate();
  }

  async close(): Promise<void> {
    this.commit.flush();
    if (this.db.open) {
      this.db.close();
      this.afterClose();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

export function openSqliteStore(path: string = defaultStorePath(), options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}

/** The response cache in a SQLite store (table response_cache). */
export class SqliteCache implements ResponseCache {
  private stmts?: {
    get: Database.Statement;
    set: Database.Statement;
    add: Database.Statement;
    del: Database.Statement;
    count: Database.Statement;
    clear: Database.Statement;
  };

  constructor(private readonly db: Database.Database) {}

  // Prepared on first use: a read-only store of schema version 1 has no cache table and never needs one.
  private statements() {
    return (this.stmts ??= {
      get: this.db.prepare(`SELECT value, stored_at FROM response_cache WHERE key = ?`),
      set: this.db.prepare(`INSERT OR REPLACE INTO response_cache (key, value, stored_at) VALUES (?, ?, ?)`),
      add: this.db.prepare(`INSERT OR IGNORE INTO response_cache (key, value, stored_at) VALUES (?, ?, ?)`),
      del: this.db.prepare(`DELETE FROM response_cache WHERE key = ?`),
      count: this.db.prepare(`SELECT count(*) AS n FROM response_cache`),
      clear: this.db.prepare(`DELETE FROM response_cache`),
    });
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const row = this.statements().get.get(key) as { value: string; stored_at: string } | undefined;
    return row && { value: row.value, storedAt: row.stored_at };
  }

  async set(key: string, value: string): Promise<void> {
    this.statements().set.run(key, value, new Date().toISOString());
  }

  async add(key: string, value: string): Promise<boolean> {
    return this.statements().add.run(key, value, new Date().toISOString()).changes > 0;
  }

  async delete(keys: readonly string[]): Promise<void> {
    const st = this.statements();
    this.db.transaction(() => {
      for (const k of keys) st.del.run(k);
    })();
  }

  async clear(): Promise<number> {
    const st = this.statements();
    return this.db.transaction(() => {
      const { n } = st.count.get() as { n: number };
      st.clear.run();
      return n;
    })();
  }
}
