import type Database from 'better-sqlite3';
import type { GroupCommit, QueuedSample } from './group-commit.js';
import { toRun, type RunRow } from './sqlite-rows.js';
import type { NewRun, RunFilter, RunRecord, RunStatus, RunStore } from './types.js';
import { checkShape, newRunId, pageBounds, UnknownRunError } from './validate.js';

/** The runs of a SQLite store; every call first commits the queued samples, so reads see earlier writes. */
export class SqliteRuns implements RunStore {
  private stmts: { insert: Database.Statement; get: Database.Statement; setStatus: Database.Statement };
  // samples.record runs once per sample: keep each run's shape instead of re-reading and re-parsing its row.
  private shapes = new Map<string, RunRecord>();

  constructor(
    private readonly db: Database.Database,
    private readonly commit: GroupCommit<QueuedSample>,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO runs (id, name, status, created_at, system_id, config_path, config_json, inputs_json, validators_json, n, m, k)
         VALUES (@id, @name, @status, @created_at, @system_id, @config_path, @config_json, @inputs_json, @validators_json, @n, @m, @k)`,
      ),
      get: db.prepare(`SELECT * FROM runs WHERE id = ?`),
      setStatus: db.prepare(`UPDATE runs SET status = ?, finished_at = ? WHERE id = ?`),
    };
  }

  /** The run's record as stored now, for the other parts; UnknownRunError for no run. */
  existing(runId: string): RunRecord {
    const row = this.stmts.get.get(runId) as RunRow | undefined;
    if (!row) throw new UnknownRunError(runId);
    return toRun(row);
  }

  /** The run's record, read once (its shape never changes); UnknownRunError for no run. */
  shape(runId: string): RunRecord {
    let r = this.shapes.get(runId);
    if (!r) {
      r = this.existing(runId);
      this.shapes.set(runId, r);
    }
    return r;
  }

  async create(run: NewRun): Promise<RunRecord> {
    checkShape(`run ${run.name}`, run.inputs.length, run.samples, run.validators.length);
    this.commit.flush();
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
        this.stmts.insert.run({ id, ...row });
        return this.existing(id);
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY' || attempt >= 20) throw err;
      }
    }
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    this.commit.flush();
    const res = this.stmts.setStatus.run(status, status === 'running' ? null : new Date().toISOString(), runId);
    if (res.changes === 0) throw new UnknownRunError(runId);
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    this.commit.flush();
    const row = this.stmts.get.get(runId) as RunRow | undefined;
    return row && toRun(row);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    this.commit.flush();
    const { where, params } = runWhere(filter);
    const { limit, offset } = pageBounds(filter);
    const rows = this.db
      .prepare(`SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit ?? -1} OFFSET ${offset}`)
      .all(...params) as RunRow[];
    return rows.map(toRun);
  }

  async count(filter: RunFilter = {}): Promise<number> {
    this.commit.flush();
    const { where, params } = runWhere(filter);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM runs ${where}`).get(...params) as { n: number }).n;
  }
}

function runWhere(filter: RunFilter): { where: string; params: string[] } {
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
