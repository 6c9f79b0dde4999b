import type { GroupCommit, QueuedSample } from './group-commit.js';
import { pgRunValues, RUN_COLUMNS, toPgRun, type PgRunRow, type Query } from './postgres-rows.js';
import { StoreError } from './errors.js';
import type { NewRun, RunFilter, RunRecord, RunStatus, RunStore } from './types.js';
import { checkShape, newRunId, pageBounds, UnknownRunError } from './validate.js';

/** The runs of a PostgreSQL store; every call first waits for the samples queued or in flight. */
export class PostgresRuns implements RunStore {
  // samples.record runs once per sample: keep each run's shape instead of reading its row again.
  private shapes = new Map<string, RunRecord>();

  constructor(
    private readonly q: Query,
    private readonly commit: GroupCommit<QueuedSample>,
    /** The store as messages name it. */
    private readonly shown: string,
  ) {}

  /** The run's record as stored now, without waiting for queued samples. */
  async now(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.q<PgRunRow>('SELECT * FROM runs WHERE id = $1', [runId]);
    return rows[0] && toPgRun(rows[0]);
  }

  /** The run's record, for the other parts; UnknownRunError for no run. */
  async existing(runId: string): Promise<RunRecord> {
    const r = await this.now(runId);
    if (!r) throw new UnknownRunError(runId);
    return r;
  }

  /** The run's record, read once (its shape never changes); UnknownRunError for no run. */
  async shape(runId: string): Promise<RunRecord> {
    let r = this.shapes.get(runId);
    if (!r) {
      r = await this.existing(runId);
      this.shapes.set(runId, r);
    }
    return r;
  }

  async create(run: NewRun): Promise<RunRecord> {
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
    throw new StoreError(`could not find a free run id in the assay store at ${this.shown}`);
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    await this.commit.settle();
    const res = await this.q('UPDATE runs SET status = $1, finished_at = $2 WHERE id = $3', [
      status,
      status === 'running' ? null : new Date().toISOString(),
      runId,
    ]);
    if (res.rowCount === 0) throw new UnknownRunError(runId);
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    await this.commit.settle();
    return this.now(runId);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    await this.commit.settle();
    const { where, values } = runWhere(filter);
    const { limit, offset } = pageBounds(filter);
    const { rows } = await this.q<PgRunRow>(
      `SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC ${limit !== undefined ? `LIMIT ${limit}` : ''} OFFSET ${offset}`,
      values,
    );
    return rows.map(toPgRun);
  }

  async count(filter: RunFilter = {}): Promise<number> {
    await this.commit.settle();
    const { where, values } = runWhere(filter);
    const { rows } = await this.q<{ n: string }>(`SELECT count(*) AS n FROM runs ${where}`, values);
    return Number(rows[0].n);
  }
}

function runWhere(filter: RunFilter): { where: string; values: unknown[] } {
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
