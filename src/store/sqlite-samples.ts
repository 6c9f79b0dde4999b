import type Database from 'better-sqlite3';
import { ReliabilityTensor } from '../core/tensor.js';
import type { BatchWriter, GroupCommit, QueuedSample } from './group-commit.js';
import type { SqliteRuns } from './sqlite-runs.js';
import { sampleParams, toSample, type SampleRow } from './sqlite-rows.js';
import type { SampleRecord, SampleStore } from './types.js';
import { checkSample, checkShape, DuplicateSampleError } from './validate.js';

/**
 * The samples of a SQLite store, written by group commit (store/group-commit.ts): the samples of one turn
 * of the event loop in one transaction, which costs one WAL append instead of one per sample. Each sample is
 * still all-or-nothing; every read first commits what is queued, so reads always see earlier writes.
 */
export class SqliteSamples implements SampleStore {
  private stmts: { cells: Database.Statement; get: Database.Statement; list: Database.Statement };

  constructor(
    private readonly db: Database.Database,
    private readonly commit: GroupCommit<QueuedSample>,
    private readonly runs: SqliteRuns,
  ) {
    this.stmts = {
      cells: db.prepare(`SELECT i, j, outcomes FROM samples WHERE run_id = ?`),
      get: db.prepare(`SELECT * FROM samples WHERE run_id = ? AND i = ? AND j = ?`),
      list: db.prepare(`SELECT * FROM samples WHERE run_id = ? ORDER BY i, j`),
    };
  }

  async record(runId: string, s: SampleRecord): Promise<void> {
    checkSample(this.runs.shape(runId), s); // a malformed sample or unknown run is refused at once
    return this.commit.add({ runId, sample: s });
  }

  async discardGenerationErrors(runId: string): Promise<number> {
    this.commit.flush();
    this.runs.shape(runId); // an unknown run is an error, not 0
    return this.db.prepare(`DELETE FROM samples WHERE run_id = ? AND generation_error IS NOT NULL`).run(runId).changes;
  }

  async tensor(runId: string): Promise<ReliabilityTensor> {
    this.commit.flush();
    const run = this.runs.existing(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    for (const row of this.stmts.cells.iterate(runId) as Iterable<{ i: number; j: number; outcomes: Buffer }>) {
      t.cells.set(row.outcomes, t.index(row.i, row.j, 0));
    }
    return t;
  }

  async get(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    this.commit.flush();
    this.runs.shape(runId); // an unknown run throws
    const row = this.stmts.get.get(runId, i, j) as SampleRow | undefined;
    return row && toSample(row);
  }

  async list(runId: string): Promise<SampleRecord[]> {
    this.commit.flush();
    this.runs.existing(runId);
    return (this.stmts.list.all(runId) as SampleRow[]).map(toSample);
  }
}

/** The group commit's writer: one transaction; a failing sample (a duplicate) is undone alone and reported. */
export function sqliteSampleWriter(db: Database.Database): BatchWriter<QueuedSample> {
  let insert: Database.Statement | undefined;
  return (batch) => {
    // Prepared on first write: a read-only store of schema version 1 lacks the newer columns it names.
    insert ??= db.prepare(
      `INSERT INTO samples (run_id, i, j, outcomes, output, generation_error, errors_json, reasons_json, latency_ms, attempts,
                              prompt_tokens, completion_tokens, finished_at, cost_json, cached, trajectory_json, claims_json)
         VALUES (@run_id, @i, @j, @outcomes, @output, @generation_error, @errors_json, @reasons_json, @latency_ms, @attempts,
                 @prompt_tokens, @completion_tokens, @finished_at, @cost_json, @cached, @trajectory_json, @claims_json)`,
    );
    const st = insert;
    const errors: unknown[] = new Array(batch.length);
    db.transaction(() => {
      batch.forEach((w, n) => {
        try {
          // A failing statement is undone alone; the transaction and the batch's other samples go on.
          st.run(sampleParams(w.runId, w.sample));
        } catch (err) {
          errors[n] = (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? new DuplicateSampleError(w.runId, w.sample.i, w.sample.j) : err;
        }
      });
    })();
    return errors;
  };
}
