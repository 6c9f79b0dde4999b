import { pushAll } from '../core/arrays.js';
import { MIN_PROBABILITY } from '../core/limits.js';
import type { GroupCommit, QueuedSample } from './group-commit.js';
import { jsonText, type Query } from './postgres-rows.js';
import type { PostgresRuns } from './postgres-runs.js';
import { GRADE_COLUMNS, gradeValues, toGrade, type GradeRow } from './sqlite-rows.js';
import type { GradeFilter, GradeRecord, GradeStore, NewGrade } from './types.js';
import { checkGrades, UnknownRunError } from './validate.js';

/** Grades read per query when a run's grades are listed. */
const LIST_PAGE = 5000;
/** GradeStore.decisive's ids, in the order recorded (as store/sqlite-grades.ts's; rule grouped by its text). */
const DECISIVE_IDS = `
SELECT max(id) AS id FROM grades WHERE run_id = $1 GROUP BY rule::text, i, j, grader
UNION SELECT min(id) FROM grades WHERE run_id = $1 GROUP BY rule::text, i, j
UNION SELECT min(id) FROM grades WHERE run_id = $1 AND probability BETWEEN $2 AND 1 GROUP BY rule::text, i, j
UNION SELECT id FROM grades WHERE run_id = $1 AND probability IS NOT NULL AND NOT (probability BETWEEN $2 AND 1)
ORDER BY 1`;

/** A grade row as PostgreSQL gives it: the id a bigint string, the date a Date, the rule JSON text. */
type StoredGrade = Omit<GradeRow, 'id' | 'graded_at'> & { id: string; graded_at: Date };

const toGrades = (rows: readonly StoredGrade[]): GradeRecord[] => rows.map((r) => toGrade({ ...r, rule: JSON.parse(r.rule) as string }));

/** People's grades in a PostgreSQL store; every call first waits for the samples queued or in flight. */
export class PostgresGrades implements GradeStore {
  private table = false;

  constructor(
    private readonly q: Query,
    private readonly commit: GroupCommit<QueuedSample>,
    private readonly runs: PostgresRuns,
  ) {}

  /** Whether the grades table exists (a store from before grades, opened read-only, so not migrated, has none); once there, it stays. */
  private async hasTable(): Promise<boolean> {
    return (this.table ||= (await this.q<{ t: string | null }>(`SELECT to_regclass('grades') AS t`)).rows[0].t !== null);
  }

  async record(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordMany(runId, [grade]))[0];
  }

  async recordMany(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    await this.commit.settle();
    const run = await this.runs.existing(runId);
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
    // One array per column (unnest), never a parameter per value: a batch of any size stays within Postgres's
    // 65,535 bind parameters (12,001 grades of 9 columns were refused). One statement is one transaction: all or none.
    const columns: unknown[][] = GRADE_COLUMNS.map(() => []);
    for (const g of checked) {
      const row = gradeValues(runId, g);
      row[3] = JSON.stringify(g.rule); // a json column: any name a config allows, U+0000 included
      row.forEach((v, c) => columns[c].push(v));
    }
    const types = ['text', 'int', 'int', 'json', 'text', 'text', 'timestamptz', 'float8', 'text'];
    const { rows: ids } = await this.q<{ id: string }>(
      `INSERT INTO grades (${GRADE_COLUMNS.join(', ')}) SELECT * FROM unnest(${types.map((t, c) => `$${c + 1}::${t}[]`).join(', ')}) RETURNING id`,
      columns,
    );
    // Identities are given in the order the rows are inserted, which is unnest's.
    ids.sort((a, b) => Number(a.id) - Number(b.id));
    return checked.map((g, n) => ({ ...g, id: Number(ids[n].id), runId }));
  }

  async delete(runId: string, id: number): Promise<boolean> {
    await this.commit.settle();
    await this.runs.existing(runId);
    if (!Number.isSafeInteger(id)) return false;
    return ((await this.q('DELETE FROM grades WHERE run_id = $1 AND id = $2', [runId, id])).rowCount ?? 0) > 0;
  }

  async list(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    const out: GradeRecord[] = [];
    for await (const page of this.pages(runId, filter)) pushAll(out, page);
    return out;
  }

  async *pages(runId: string, filter: GradeFilter = {}): AsyncGenerator<GradeRecord[]> {
    if (!(await this.readable(runId))) return;
    const clauses = ['run_id = $1'];
    const values: unknown[] = [runId];
    for (const key of ['id', 'rule', 'grader', 'i', 'j'] as const) {
      if (filter[key] === undefined) continue;
      values.push(key === 'rule' ? JSON.stringify(filter.rule) : filter[key]);
      clauses.push(key === 'rule' ? `rule::text = $${values.length}` : `${key} = $${values.length}`);
    }
    // A page at a time (keyset on id): millions of grades are never parsed in one turn of the event loop.
    for (let after = String(filter.after ?? 0); ;) {
      const { rows } = await this.q<StoredGrade>(
        `SELECT * FROM grades WHERE ${clauses.join(' AND ')} AND id > $${values.length + 1} ORDER BY id LIMIT ${LIST_PAGE}`,
        [...values, after],
      );
      if (rows.length) yield toGrades(rows);
      if (rows.length < LIST_PAGE) return;
      after = rows[rows.length - 1].id;
    }
  }

  async *decisive(runId: string): AsyncGenerator<GradeRecord[]> {
    if (!(await this.readable(runId))) return;
    // Their ids from the index grades_by_output (migration 11), then their rows a page at a time.
    const { rows: found } = await this.q<{ id: string }>(DECISIVE_IDS, [runId, MIN_PROBABILITY]);
    const ids = found.map((r) => r.id);
    for (let at = 0; at < ids.length; at += LIST_PAGE) {
      const { rows } = await this.q<StoredGrade>('SELECT * FROM grades WHERE id = ANY($1::bigint[]) ORDER BY id', [ids.slice(at, at + LIST_PAGE)]);
      yield toGrades(rows);
    }
  }

  /** Whether the run's grades can be read (false: a store from before grades); UnknownRunError for no run. */
  private async readable(runId: string): Promise<boolean> {
    await this.commit.settle();
    // Every report reads a run's grades: the run's existence is checked without reading its record.
    if (!(await this.q('SELECT 1 FROM runs WHERE id = $1', [runId])).rowCount) throw new UnknownRunError(runId);
    return this.hasTable();
  }

  async version(runId?: string): Promise<string> {
    await this.commit.settle();
    if (!(await this.hasTable())) return '0:0';
    const { rows } = await this.q<{ n: string; m: string }>(
      `SELECT count(*) AS n, coalesce(max(id), 0) AS m FROM grades${runId === undefined ? '' : ' WHERE run_id = $1'}`,
      runId === undefined ? [] : [runId],
    );
    return `${rows[0].n}:${rows[0].m}`;
  }
}
