import { ReliabilityTensor } from '../core/tensor.js';
import type { BatchWriter, GroupCommit, QueuedSample } from './group-commit.js';
import { pgSampleValues, SAMPLE_COLUMNS, toPgSample, type PgSampleRow, type Query } from './postgres-rows.js';
import type { PostgresRuns } from './postgres-runs.js';
import type { SampleRecord, SampleStore } from './types.js';
import { checkSample, checkShape, DuplicateSampleError, UnknownRunError } from './validate.js';
import { pushAll } from '../core/arrays.js';

/** Rows per INSERT of a group commit (16 parameters each; Postgres allows 65,535 per statement). */
export const BATCH_ROWS = 500;

/**
 * The samples of a PostgreSQL store. A sample is acknowledged once its INSERT has committed (synchronous
 * commit: it survives kill -9 of the writer, and of the server). Samples recorded in one turn of the event
 * loop share one multi-row INSERT … ON CONFLICT DO NOTHING (store/group-commit.ts): a row that did not go in
 * was already there, so of two writers of one (i, j) exactly one succeeds and the other gets a
 * DuplicateSampleError. Every read first waits for the writes queued or in flight.
 */
export class PostgresSamples implements SampleStore {
  constructor(
    private readonly q: Query,
    private readonly commit: GroupCommit<QueuedSample>,
    private readonly runs: PostgresRuns,
  ) {}

  async record(runId: string, s: SampleRecord): Promise<void> {
    checkSample(await this.runs.shape(runId), s); // a malformed sample or unknown run is refused at once
    return this.commit.add({ runId, sample: s });
  }

  async discardGenerationErrors(runId: string): Promise<number> {
    await this.commit.settle();
    if (!(await this.runs.now(runId))) throw new UnknownRunError(runId);
    return (await this.q('DELETE FROM samples WHERE run_id = $1 AND generation_error IS NOT NULL', [runId])).rowCount ?? 0;
  }

  async tensor(runId: string): Promise<ReliabilityTensor> {
    await this.commit.settle();
    const run = await this.runs.existing(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    const { rows } = await this.q<{ i: number; j: number; outcomes: Buffer }>('SELECT i, j, outcomes FROM samples WHERE run_id = $1', [runId]);
    for (const row of rows) t.cells.set(row.outcomes, t.index(row.i, row.j, 0));
    return t;
  }

  async get(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    await this.commit.settle();
    const { rows } = await this.q<PgSampleRow>('SELECT * FROM samples WHERE run_id = $1 AND i = $2 AND j = $3', [runId, i, j]);
    if (rows[0]) return toPgSample(rows[0]);
    await this.runs.shape(runId); // absent: from a run that exists, or an unknown run (which throws)
    return undefined;
  }

  async list(runId: string): Promise<SampleRecord[]> {
    await this.commit.settle();
    await this.runs.existing(runId);
    const { rows } = await this.q<PgSampleRow>('SELECT * FROM samples WHERE run_id = $1 ORDER BY i, j', [runId]);
    return rows.map(toPgSample);
  }
}

/** The group commit's writer: one multi-row INSERT; a row that did not go in is that sample's DuplicateSampleError. */
export function pgSampleWriter(q: Query): BatchWriter<QueuedSample> {
  const write = async (batch: QueuedSample[]): Promise<unknown[]> => {
    try {
      const values: unknown[] = [];
      const rows = batch.map((w) => {
        const row = pgSampleValues(w.runId, w.sample);
        const marks = row.map((_, c) => `$${values.length + c + 1}`);
        pushAll(values, row);
        return `(${marks.join(', ')})`;
      });
      const { rows: inserted } = await q<{ run_id: string; i: number; j: number }>(
        `INSERT INTO samples (${SAMPLE_COLUMNS.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT (run_id, i, j) DO NOTHING RETURNING run_id, i, j`,
        values,
      );
      // A row that did not go in was there already (or earlier in this very batch): the first writer keeps it.
      const fresh = new Set(inserted.map((r) => `${r.run_id}\0${r.i}\0${r.j}`));
      return batch.map((w) =>
        fresh.delete(`${w.runId}\0${w.sample.i}\0${w.sample.j}`) ? undefined : new DuplicateSampleError(w.runId, w.sample.i, w.sample.j),
      );
    } catch (err) {
      // A value the server refused (class 22/23) fails its own sample, not its batch: write them one by one.
      if (batch.length > 1 && /^2[23]/.test(String((err as { code?: unknown }).code ?? ''))) {
        return Promise.all(
          batch.map((w) =>
            write([w]).then(
              ([outcome]) => outcome,
              (e: unknown) => e,
            ),
          ),
        );
      }
      throw err;
    }
  };
  return write;
}
