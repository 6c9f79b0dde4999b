import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ReliabilityTensor } from '../core/tensor.js';
import type { OutcomeCode } from '../core/outcome.js';
import type { NewRun, RunFilter, RunRecord, RunStatus, SampleRecord, Store } from './types.js';
import { checkSample, DuplicateSampleError, newRunId, UnknownRunError } from './validate.js';

/** Where runs live unless configured: `.assay/assay.db` under the working directory. */
export function defaultStorePath(cwd: string = process.cwd()): string {
  return join(cwd, '.assay', 'assay.db');
}

const SCHEMA_VERSION = 1;

// One row per run, one row per sample (i, j). A sample's K tensor cells are one K-byte BLOB, so the
// tensor is stored as compactly as it lives in memory and a sample is written in one atomic statement.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  system_id TEXT NOT NULL,
  config_path TEXT,
  config_json TEXT NOT NULL,
  inputs_json TEXT NOT NULL,
  validators_json TEXT NOT NULL,
  n INTEGER NOT NULL,
  m INTEGER NOT NULL,
  k INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs (name, created_at);
CREATE TABLE IF NOT EXISTS samples (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  i INTEGER NOT NULL,
  j INTEGER NOT NULL,
  outcomes BLOB NOT NULL,
  output TEXT,
  generation_error TEXT,
  errors_json TEXT,
  reasons_json TEXT,
  latency_ms REAL NOT NULL,
  attempts INTEGER NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  finished_at TEXT NOT NULL,
  PRIMARY KEY (run_id, i, j)
) WITHOUT ROWID;
`;

interface RunRow {
  id: string;
  name: string;
  status: RunStatus;
  created_at: string;
  finished_at: string | null;
  system_id: string;
  config_path: string | null;
  config_json: string;
  inputs_json: string;
  validators_json: string;
  n: number;
  m: number;
  k: number;
}

interface SampleRow {
  i: number;
  j: number;
  outcomes: Buffer;
  output: string | null;
  generation_error: string | null;
  errors_json: string | null;
  reasons_json: string | null;
  latency_ms: number;
  attempts: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  finished_at: string;
}

function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    createdAt: r.created_at,
    finishedAt: r.finished_at ?? undefined,
    systemId: r.system_id,
    configPath: r.config_path ?? undefined,
    config: JSON.parse(r.config_json),
    inputs: JSON.parse(r.inputs_json),
    validators: JSON.parse(r.validators_json),
    samples: r.m,
    N: r.n,
    M: r.m,
    K: r.k,
  };
}

function toSample(r: SampleRow): SampleRecord {
  const s: SampleRecord = {
    i: r.i,
    j: r.j,
    outcomes: Array.from(r.outcomes) as OutcomeCode[],
    latencyMs: r.latency_ms,
    attempts: r.attempts,
    finishedAt: r.finished_at,
  };
  if (r.output !== null) s.output = r.output;
  if (r.generation_error !== null) s.generationError = r.generation_error;
  // JSON has no undefined: holes written as null come back as undefined, as they went in.
  if (r.errors_json !== null) s.errors = (JSON.parse(r.errors_json) as (string | null)[]).map((e) => e ?? undefined);
  if (r.reasons_json !== null) s.reasons = (JSON.parse(r.reasons_json) as (string[] | null)[]).map((e) => e ?? undefined);
  if (r.prompt_tokens !== null || r.completion_tokens !== null) {
    s.usage = { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 };
  }
  return s;
}

export interface SqliteStoreOptions {
  /** Open for reading only (dashboard, reports); never creates or migrates. */
  readonly?: boolean;
}

/**
 * The embedded default store. WAL journal with synchronous=NORMAL: a committed sample survives the process
 * being killed at any moment (kill -9); only an OS crash or power loss could drop the last transactions.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private stmts: ReturnType<SqliteStore['prepare']>;

  constructor(
    readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    if (!options.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    } catch (err) {
      throw new Error(`cannot open the assay store at ${path}: ${(err as Error).message}`, { cause: err });
    }
    this.db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.migrate();
    } else {
      const v = this.schemaVersion();
      if (v === undefined) throw new Error(`${path} is not an assay store (no schema found)`);
    }
    this.stmts = this.prepare();
  }

  private schemaVersion(): number | undefined {
    try {
      const row = this.db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
      return row ? Number(row.value) : undefined;
    } catch {
      return undefined;
    }
  }

  private migrate(): void {
    const v = this.schemaVersion();
    if (v !== undefined && v > SCHEMA_VERSION) {
      throw new Error(`the store at ${this.path} has schema version ${v}, newer than this assay (${SCHEMA_VERSION}); upgrade assay`);
    }
    this.db.exec(SCHEMA);
    this.db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`).run(String(SCHEMA_VERSION));
  }

  private prepare() {
    return {
      insertRun: this.db.prepare(
        `INSERT INTO runs (id, name, status, created_at, system_id, config_path, config_json, inputs_json, validators_json, n, m, k)
         VALUES (@id, @name, @status, @created_at, @system_id, @config_path, @config_json, @inputs_json, @validators_json, @n, @m, @k)`,
      ),
      getRun: this.db.prepare(`SELECT * FROM runs WHERE id = ?`),
      setStatus: this.db.prepare(`UPDATE runs SET status = ?, finished_at = ? WHERE id = ?`),
      insertSample: this.db.prepare(
        `INSERT INTO samples (run_id, i, j, outcomes, output, generation_error, errors_json, reasons_json, latency_ms, attempts,
                              prompt_tokens, completion_tokens, finished_at)
         VALUES (@run_id, @i, @j, @outcomes, @output, @generation_error, @errors_json, @reasons_json, @latency_ms, @attempts,
                 @prompt_tokens, @completion_tokens, @finished_at)`,
      ),
      cells: this.db.prepare(`SELECT i, j, outcomes FROM samples WHERE run_id = ?`),
      getSample: this.db.prepare(`SELECT * FROM samples WHERE run_id = ? AND i = ? AND j = ?`),
      listSamples: this.db.prepare(`SELECT * FROM samples WHERE run_id = ? ORDER BY i, j`),
    };
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
    const id = newRunId();
    this.stmts.insertRun.run({
      id,
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
    });
    return this.run(id);
  }

  async recordSample(runId: string, s: SampleRecord): Promise<void> {
    checkSample(this.shape(runId), s);
    try {
      this.stmts.insertSample.run({
        run_id: runId,
        i: s.i,
        j: s.j,
        outcomes: Buffer.from(Uint8Array.from(s.outcomes)),
        output: s.output ?? null,
        generation_error: s.generationError ?? null,
        errors_json: s.errors ? JSON.stringify(s.errors) : null,
        reasons_json: s.reasons ? JSON.stringify(s.reasons) : null,
        latency_ms: s.latencyMs,
        attempts: s.attempts,
        prompt_tokens: s.usage?.promptTokens ?? null,
        completion_tokens: s.usage?.completionTokens ?? null,
        finished_at: s.finishedAt ?? new Date().toISOString(),
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new DuplicateSampleError(runId, s.i, s.j);
      throw err;
    }
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    const res = this.stmts.setStatus.run(status, status === 'running' ? null : new Date().toISOString(), runId);
    if (res.changes === 0) throw new UnknownRunError(runId);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const row = this.stmts.getRun.get(runId) as RunRow | undefined;
    return row && toRun(row);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const where = filter.name !== undefined ? 'WHERE name = ?' : '';
    const limit = filter.limit !== undefined ? `LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
    const params = filter.name !== undefined ? [filter.name] : [];
    const rows = this.db.prepare(`SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC ${limit}`).all(...params) as RunRow[];
    return rows.map(toRun);
  }

  async loadTensor(runId: string): Promise<ReliabilityTensor> {
    const run = this.run(runId);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    for (const row of this.stmts.cells.iterate(runId) as Iterable<{ i: number; j: number; outcomes: Buffer }>) {
      t.cells.set(row.outcomes, t.index(row.i, row.j, 0));
    }
    return t;
  }

  async getSample(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    this.run(runId);
    const row = this.stmts.getSample.get(runId, i, j) as SampleRow | undefined;
    return row && toSample(row);
  }

  async listSamples(runId: string): Promise<SampleRecord[]> {
    this.run(runId);
    return (this.stmts.listSamples.all(runId) as SampleRow[]).map(toSample);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export function openSqliteStore(path: string = defaultStorePath(), options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}
