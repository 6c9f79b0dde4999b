import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ReliabilityTensor } from '../core/tensor.js';
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
import {
  GRADE_COLUMNS,
  gradeValues,
  MIGRATIONS,
  SCHEMA_VERSION,
  sampleParams,
  toGrade,
  toRun,
  toSample,
  type GradeRow,
  type RunRow,
  type SampleRow,
} from './sqlite-rows.js';
import { nativeModuleProblem } from './sqlite-native.js';
import { retainStatementsOnClose } from './sqlite-retain.js';
import { noStore } from './no-store.js';
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

/** A sample waiting for the next group commit, and the caller waiting for it. */
interface PendingWrite {
  runId: string;
  sample: SampleRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The embedded default store. WAL journal with synchronous=NORMAL: a committed sample survives the process
 * being killed at any moment (kill -9); only an OS crash or power loss could drop the last transactions.
 *
 * Group commit: samples recorded within one turn of the event loop are written in one transaction at the
 * end of that turn (setImmediate), which costs one WAL append instead of one per sample. `recordSample`
 * resolves only once the transaction holding its sample has committed, so "acknowledged" still means
 * "on disk, survives kill -9"; a sample whose promise had not resolved when the process died is simply
 * not stored, and a resume runs it again. Each sample is still all-or-nothing, and one bad sample (e.g. a
 * duplicate) fails alone, not its batch. Every other method first commits what is queued, so reads always
 * see earlier writes.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private stmts: ReturnType<SqliteStore['prepare']>;
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
    this.stmts = this.prepare();
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

  private prepare() {
    return {
      insertRun: this.db.prepare(
        `INSERT INTO runs (id, name, status, created_at, system_id, config_path, config_json, inputs_json, validators_json, n, m, k)
         VALUES (@id, @name, @status, @created_at, @system_id, @config_path, @config_json, @inputs_json, @validators_json, @n, @m, @k)`,
      ),
      getRun: this.db.prepare(`SELECT * FROM runs WHERE id = ?`),
      setStatus: this.db.prepare(`UPDATE runs SET status = ?, finished_at = ? WHERE id = ?`),
      cells: this.db.prepare(`SELECT i, j, outcomes FROM samples WHERE run_id = ?`),
      getSample: this.db.prepare(`SELECT * FROM samples WHERE run_id = ? AND i = ? AND j = ?`),
      listSamples: this.db.prepare(`SELECT * FROM samples WHERE run_id = ? ORDER BY i, j`),
    };
  }

  private insertStmt?: Database.Statement;

  // Prepared on first write: a read-only store of schema version 1 lacks the newer columns it names.
  private get insertSample(): Database.Statement {
    return (this.insertStmt ??= this.db.prepare(
      `INSERT INTO samples (run_id, i, j, outcomes, output, generation_error, errors_json, reasons_json, latency_ms, attempts,
                              prompt_tokens, completion_tokens, finished_at, cost_json, cached)
         VALUES (@run_id, @i, @j, @outcomes, @output, @generation_error, @errors_json, @reasons_json, @latency_ms, @attempts,
                 @prompt_tokens, @completion_tokens, @finished_at, @cost_json, @cached)`,
    ));
  }

  // recordSample runs once per sample: keep each run's shape instead of re-reading and re-parsing its row.
  private shapes = new Map<string, RunRecord>();

  private shape(runId: string): RunRecord {
    let r = this.shapes.get(runId);
    if (!r) {
      r = this.run(runId);
      this.shapes.set(runId, r);
    }
    return r;
  }

  private run(runId: string): RunRecord {
    const row = this.stmts.getRun.get(runId) as RunRow | undefined;
    if (!row) throw new UnknownRunError(runId);
    return toRun(row);
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    checkShape(`run ${run.name}`, run.inputs.length, run.samples, run.validators.length);
    this.flush();
    const row = {
      name: run.name,
      status: 'running',
      created_at: new Date().toISOString(),
      system_id: run.systemId,
      config_path: run.configPath ?? null,
      config_json: JSON.stringify(run.config ?? null),
      inputs_json: JSON.stringify(run.inputs),
      validators_json: JSON.stringify(run.validators),
      n: run.inputs.length,
      m: run.samples,
      k: run.validators.length,
    };
    // Ids are second + 16 random bits: two runs started in the same second may draw the same one.
    for (let attempt = 0; ; attempt++) {
      const id = newRunId();
      try {
        this.stmts.insertRun.run({ id, ...row });
        return this.run(id);
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY' || attempt >= 20) throw err;
      }
    }
  }

  private queue: PendingWrite[] = [];
  private flushScheduled = false;

  recordSample(runId: string, s: SampleRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      checkSample(this.shape(runId), s); // a malformed sample or unknown run is refused at once
      this.queue.push({ runId, sample: s, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commit every queued sample in one transaction, then settle each caller's promise. */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    if (!batch.length) return;
    this.queue = [];
    const outcomes: unknown[] = new Array(batch.length);
    try {
      this.writeBatch(batch, outcomes);
    } catch (err) {
      // The transaction itself failed (disk full, store closed): nothing of the batch is stored.
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, n) => (outcomes[n] === undefined ? w.resolve() : w.reject(outcomes[n])));
  }

  private writeBatch = (batch: PendingWrite[], errors: unknown[]): void => {
    this.db.transaction(() => {
      batch.forEach((w, n) => {
        try {
          // A failing statement is undone alone; the transaction and the batch's other samples go on.
          this.insertSample.run(sampleParams(w.runId, w.sample));
        } catch (err) {
          errors[n] = (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? new DuplicateSampleError(w.runId, w.sample.i, w.sample.j) : err;
        }
      });
    })();
  };

  async discardGenerationErrors(runId: string): Promise<number> {
    this.flush();
    this.shape(runId); // an unknown run is an error, not 0
    return this.db.prepare(`DELETE FROM samples WHERE run_id = ? AND generation_error IS NOT NULL`).run(runId).changes;
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    this.flush();
    const res = this.stmts.setStatus.run(status, status === 'running' ? null : new Date().toISOString(), runId);
    if (res.changes === 0) throw new UnknownRunError(runId);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    this.flush();
    const row = this.stmts.getRun.get(runId) as RunRow | undefined;
    return row && toRun(row);
  }

  private runWhere(filter: RunFilter): { where: string; params: string[] } {
    const clauses: string[] = [];
    const params: string[] = [];
    if (filter.name !== undefined) {
      clauses.push('name = ?');
      params.push(filter.name);
    }
    if (filter.idPrefix !== undefined) {
      // A range on the primary key (SQLite compares text bytewise): the index finds them, with no wildcards to escape.
      clauses.push('id >= ? AND id < ?');
      params.push(filter.idPrefix, `${filter.idPrefix}\uffff`);
    }
    if (filter.nameContains !== undefined) {
      // instr, not LIKE: the user's text has no wildcards. SQLite's lower() folds ASCII only, as JS would not: fold here.
      clauses.push('instr(lower(name), ?) > 0');
      params.push(filter.nameContains.toLowerCase());
    }
    return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    this.flush();
    const { where, params } = this.runWhere(filter);
    const { limit, offset } = pageBounds(filter);
    const rows = this.db
      .prepare(`SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit ?? -1} OFFSET ${offset}`)
      .all(...params) as RunRow[];
    return rows.map(toRun);
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    this.flush();
    const { where, params } = this.runWhere(filter);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM runs ${where}`).get(...params) as { n: number }).n;
  }

  async loadTensor(runId: string): Promise<ReliabilityTensor> {
    this.flush();
    const run = this.run(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    for (const row of this.stmts.cells.iterate(runId) as Iterable<{ i: number; j: number; outcomes: Buffer }>) {
      t.cells.set(row.outcomes, t.index(row.i, row.j, 0));
    }
    return t;
  }

  async getSample(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    this.flush();
    this.shape(runId); // an unknown run throws
    const row = this.stmts.getSample.get(runId, i, j) as SampleRow | undefined;
    return row && toSample(row);
  }

  async listSamples(runId: string): Promise<SampleRecord[]> {
    this.flush();
    this.run(runId);
    return (this.stmts.listSamples.all(runId) as SampleRow[]).map(toSample);
  }

  async recordGrade(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordGrades(runId, [grade]))[0];
  }

  private insertGradeStmt?: Database.Statement;

  async recordGrades(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    this.flush();
    const run = this.run(runId);
    const output = this.db.prepare(`SELECT output, generation_error FROM samples WHERE run_id = ? AND i = ? AND j = ?`);
    // Every grade is checked before any is stored, and all are stored in one transaction: all or none.
    const checked = checkGrades(run, grades, (i, j) => {
      const row =
        Number.isInteger(i) && Number.isInteger(j)
          ? (output.get(runId, i, j) as { output: string | null; generation_error: string | null } | undefined)
          : undefined;
      return (
        row && { ...(row.output !== null ? { output: row.output } : {}), ...(row.generation_error !== null ? { generationError: row.generation_error } : {}) }
      );
    });
    this.insertGradeStmt ??= this.db.prepare(`INSERT INTO grades (${GRADE_COLUMNS.join(', ')}) VALUES (${GRADE_COLUMNS.map(() => '?').join(', ')})`);
    const insert = this.insertGradeStmt;
    return this.db.transaction(() => checked.map((g) => ({ ...g, id: Number(insert.run(...gradeValues(runId, g)).lastInsertRowid), runId })))();
  }

  async deleteGrade(runId: string, id: number): Promise<boolean> {
    this.flush();
    this.run(runId);
    return this.db.prepare(`DELETE FROM grades WHERE run_id = ? AND id = ?`).run(runId, id).changes > 0;
  }

  // Every report reads a run's grades: the statements are prepared once, and the run's existence checked without parsing it.
  private gradeStmts = new Map<string, Database.Statement>();
  private gradesTable = false;

  private gradeStmt(sql: string): Database.Statement {
    let st = this.gradeStmts.get(sql);
    if (!st) this.gradeStmts.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Whether the grades table exists (a store from before grades, opened read-only, has none); once there, it stays. */
  private hasGrades(): boolean {
    return (this.gradesTable ||= Boolean(this.gradeStmt(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grades'`).get()));
  }

  async listGrades(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    this.flush();
    if (!this.gradeStmt(`SELECT 1 FROM runs WHERE id = ?`).get(runId)) throw new UnknownRunError(runId);
    if (!this.hasGrades()) return [];
    const clauses = ['run_id = ?'];
    const params: (string | number)[] = [runId];
    for (const key of ['rule', 'grader', 'i', 'j'] as const) {
      if (filter[key] === undefined) continue;
      clauses.push(`${key} = ?`);
      params.push(filter[key]);
    }
    const rows = this.gradeStmt(`SELECT * FROM grades WHERE ${clauses.join(' AND ')} ORDER BY graded_at, id`).all(...params) as GradeRow[];
    return rows.map(toGrade);
  }

  async gradesVersion(): Promise<string> {
    this.flush();
    if (!this.hasGrades()) return '0:0';
    const r = this.gradeStmt(`SELECT count(*) AS n, coalesce(max(id), 0) AS m FROM grades`).get() as { n: number; m: number };
    return `${r.n}:${r.m}`;
  }

  private cacheStmts?: { get: Database.Statement; set: Database.Statement; count: Database.Statement; clear: Database.Statement };

  // Prepared on first use: a read-only store of schema version 1 has no cache table and never needs one.
  private cacheStatements() {
    return (this.cacheStmts ??= {
      get: this.db.prepare(`SELECT value, stored_at FROM response_cache WHERE key = ?`),
      set: this.db.prepare(`INSERT OR REPLACE INTO response_cache (key, value, stored_at) VALUES (?, ?, ?)`),
      count: this.db.prepare(`SELECT count(*) AS n FROM response_cache`),
      clear: this.db.prepare(`DELETE FROM response_cache`),
    });
  }

  readonly cache: ResponseCache = {
    get: async (key) => {
      const row = this.cacheStatements().get.get(key) as { value: string; stored_at: string } | undefined;
      return row && ({ value: row.value, storedAt: row.stored_at } satisfies CacheEntry);
    },
    set: async (key, value) => {
      this.cacheStatements().set.run(key, value, new Date().toISOString());
    },
    clear: async () => {
      const st = this.cacheStatements();
      return this.db.transaction(() => {
        const { n } = st.count.get() as { n: number };
        st.clear.run();
        return n;
      })();
    },
  };

  // Prepared on first use: a read-only store from before the attempt log joined it has no guard tables.
  private upsertAttempt?: Database.Statement;
  private upsertCall?: Database.Statement;

  async recordGuardAttempt(a: GuardAttemptRecord): Promise<void> {
    this.upsertAttempt ??= this.db.prepare(
      `INSERT OR REPLACE INTO guard_attempts (${GUARD_ATTEMPT_COLUMNS.join(', ')}) VALUES (${GUARD_ATTEMPT_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.upsertAttempt.run(...guardAttemptValues(a));
  }

  async recordGuardCall(c: GuardCallRecord): Promise<void> {
    this.upsertCall ??= this.db.prepare(
      `INSERT OR REPLACE INTO guard_calls (${GUARD_CALL_COLUMNS.join(', ')}) VALUES (${GUARD_CALL_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.upsertCall.run(...guardCallValues(c, (b) => (b ? 1 : 0)));
  }

  async getGuardCall(callId: string): Promise<GuardCallRecord | undefined> {
    const row = this.db.prepare(`SELECT * FROM guard_calls WHERE call_id = ?`).get(callId) as GuardCallRow | undefined;
    return row && toGuardCall(row);
  }

  async listGuardAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    return (this.db.prepare(`SELECT * FROM guard_attempts WHERE call_id = ? ORDER BY n`).all(callId) as GuardAttemptRow[]).map((r) => toGuardAttempt(r));
  }

  async listGuardCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const { limit, offset } = pageBounds(filter);
    const rows = this.db
      .prepare(`SELECT * FROM guard_calls ORDER BY finished_at DESC, call_id DESC LIMIT ${limit ?? -1} OFFSET ${offset}`)
      .all() as GuardCallRow[];
    return rows.map((r) => toGuardCall(r));
  }

  async close(): Promise<void> {
    this.flush();
    if (this.db.open) {
      this.db.close();
      this.afterClose();
    }
  }
}

export function openSqliteStore(path: string = defaultStorePath(), options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}
