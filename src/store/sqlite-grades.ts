import type Database from 'better-sqlite3';
import { pushAll } from '../core/arrays.js';
import { MIN_PROBABILITY } from '../core/limits.js';
import type { GroupCommit, QueuedSample } from './group-commit.js';
import type { SqliteRuns } from './sqlite-runs.js';
import { GRADE_COLUMNS, gradeValues } from './sqlite-rows.js';
import type { GradeFilter, GradeRecord, GradeStore, NewGrade } from './types.js';
import { checkGrades, UnknownRunError } from './validate.js';

/** Grades read per query when a run's grades are listed (about 20 ms of the thread each). */
const LIST_PAGE = 5000;

const LISTED = 'id, i, j, rule, grade, grader, graded_at, probability, design';
type ListedRow = [number, number, number, string, GradeRecord['grade'], string, string, number | null, string | null];

/** GradeStore.decisive's ids, in the order recorded: one UNION of a pass of the index per kind of grade that decides. */
const DECISIVE_IDS = `
SELECT MAX(id) FROM grades WHERE run_id = @run GROUP BY rule, i, j, grader
UNION SELECT MIN(id) FROM grades WHERE run_id = @run GROUP BY rule, i, j
UNION SELECT MIN(id) FROM grades WHERE run_id = @run AND probability BETWEEN @min AND 1 GROUP BY rule, i, j
UNION SELECT id FROM grades WHERE run_id = @run AND probability IS NOT NULL AND NOT (probability BETWEEN @min AND 1)
ORDER BY 1`;

function toGrades(runId: string, rows: readonly ListedRow[]): GradeRecord[] {
  const out: GradeRecord[] = [];
  for (const [id, i, j, rule, grade, grader, gradedAt, probability, design] of rows) {
    const g: GradeRecord = { id, runId, i, j, rule, grade, grader, gradedAt };
    if (probability !== null) g.probability = probability;
    if (design !== null) g.design = design;
    out.push(g);
  }
  return out;
}

/** People's grades in a SQLite store; every call first commits the queued samples (a grade needs its output). */
export class SqliteGrades implements GradeStore {
  // Every report reads a run's grades: the statements are prepared once, and the run's existence checked without parsing it.
  private stmts = new Map<string, Database.Statement>();
  private table = false;
  // version()'s counts, and the state of the database they were counted in.
  private counted = '';
  private versions = new Map<string, string>();

  constructor(
    private readonly db: Database.Database,
    private readonly commit: GroupCommit<QueuedSample>,
    private readonly runs: SqliteRuns,
  ) {}

  private stmt(sql: string): Database.Statement {
    let st = this.stmts.get(sql);
    if (!st) this.stmts.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Whether the grades table exists (a store from before grades, opened read-only, has none); once there, it stays. */
  private hasTable(): boolean {
    return (this.table ||= Boolean(this.stmt(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grades'`).get()));
  }

  async record(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordMany(runId, [grade]))[0];
  }

  async recordMany(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    this.commit.flush();
    const run = this.runs.existing(runId);
    const output = this.stmt(`SELECT output, generation_error FROM samples WHERE run_id = ? AND i = ? AND j = ?`);
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
    const insert = this.stmt(`INSERT INTO grades (${GRADE_COLUMNS.join(', ')}) VALUES (${GRADE_COLUMNS.map(() => '?').join(', ')})`);
    return this.db.transaction(() => checked.map((g) => ({ ...g, id: Number(insert.run(...gradeValues(runId, g)).lastInsertRowid), runId })))();
  }

  async delete(runId: string, id: number): Promise<boolean> {
    this.commit.flush();
    this.runs.existing(runId);
    return this.db.prepare(`DELETE FROM grades WHERE run_id = ? AND id = ?`).run(runId, id).changes > 0;
  }

  async list(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    const out: GradeRecord[] = [];
    for await (const page of this.pages(runId, filter)) pushAll(out, page);
    return out;
  }

  async *pages(runId: string, filter: GradeFilter = {}): AsyncGenerator<GradeRecord[]> {
    if (!this.readable(runId)) return;
    const clauses = ['run_id = ?'];
    const params: (string | number)[] = [runId];
    for (const key of ['id', 'rule', 'grader', 'i', 'j'] as const) {
      if (filter[key] === undefined) continue;
      clauses.push(`${key} = ?`);
      params.push(filter[key]);
    }
    // A page at a time, letting the event loop run between pages: a run with millions of grades (a dashboard
    // page reads them all) never holds the thread for more than one page (issue 30).
    const page = this.stmt(`SELECT ${LISTED} FROM grades WHERE ${clauses.join(' AND ')} AND id > ? ORDER BY id LIMIT ${LIST_PAGE}`).raw(true);
    for (let after = filter.after ?? 0; ;) {
      const rows = page.all(...params, after) as ListedRow[];
      if (rows.length) yield toGrades(runId, rows);
      if (rows.length < LIST_PAGE) return;
      after = rows[rows.length - 1][0];
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async *decisive(runId: string): AsyncGenerator<GradeRecord[]> {
    if (!this.readable(runId)) return;
    // Their ids from the index grades_by_output (migration 12), then their rows a page at a time.
    const ids = this.stmt(DECISIVE_IDS).pluck(true).all({ run: runId, min: MIN_PROBABILITY }) as number[];
    const page = this.stmt(`SELECT ${LISTED} FROM grades WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`).raw(true);
    for (let at = 0; at < ids.length; at += LIST_PAGE) {
      if (at) await new Promise((resolve) => setImmediate(resolve));
      yield toGrades(runId, page.all(JSON.stringify(ids.slice(at, at + LIST_PAGE))) as ListedRow[]);
    }
  }

  /** Whether the run's grades can be read (false: a store from before grades); UnknownRunError for no run. */
  private readable(runId: string): boolean {
    this.commit.flush();
    if (!this.stmt(`SELECT 1 FROM runs WHERE id = ?`).get(runId)) throw new UnknownRunError(runId);
    return this.hasTable();
  }

  async version(runId?: string): Promise<string> {
    this.commit.flush();
    if (!this.hasTable()) return '0:0';
    // Counting a million grades takes ~0.1 s: a count stays good while no connection has committed anything
    // (data_version changes when another one does) and this one has written nothing (total_changes).
    const mark = `${String(this.db.pragma('data_version', { simple: true }))}:${(this.stmt(`SELECT total_changes() AS t`).get() as { t: number }).t}`;
    if (mark !== this.counted) [this.counted, this.versions] = [mark, new Map()];
    const key = runId ?? '';
    let v = this.versions.get(key);
    if (v === undefined) {
      const r = (
        runId === undefined
          ? this.stmt(`SELECT count(*) AS n, coalesce(max(id), 0) AS m FROM grades`).get()
          : this.stmt(`SELECT count(*) AS n, coalesce(max(id), 0) AS m FROM grades WHERE run_id = ?`).get(runId)
      ) as { n: number; m: number };
      v = `${r.n}:${r.m}`;
      if (this.versions.size < 10_000) this.versions.set(key, v);
    }
    return v;
  }
}
