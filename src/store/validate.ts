import { designProblem, probabilityProblem } from '../core/limits.js';
import { GradeError } from './errors.js';
import type { GradeFilter, GradeRecord, NewGrade, RunFilter, RunRecord, SampleRecord } from './types.js';
import { ArgumentError } from '../errors.js';

/** Shared checks every adapter applies before writing a sample, so stored data stays consistent. */
export function checkSample(run: RunRecord, s: SampleRecord): void {
  if (!Number.isInteger(s.i) || s.i < 0 || s.i >= run.N)
    throw new ArgumentError(`run ${run.id}: sample input index i=${s.i} outside 0..${run.N - 1}`, { key: 'i' });
  if (!Number.isInteger(s.j) || s.j < 0 || s.j >= run.M) throw new ArgumentError(`run ${run.id}: sample index j=${s.j} outside 0..${run.M - 1}`, { key: 'j' });
  if (s.outcomes.length !== run.K)
    throw new ArgumentError(`run ${run.id}: sample (${s.i}, ${s.j}) has ${s.outcomes.length} outcomes, expected K=${run.K}`, { key: 'outcomes' });
  // 0 (pending) is a column a stop rule settled before this sample: not checked, never counted.
  for (const o of s.outcomes) {
    if (o !== 0 && o !== 1 && o !== 2 && o !== 3)
      throw new ArgumentError(`run ${run.id}: sample (${s.i}, ${s.j}) has outcome code ${o}; expected 0 (not checked), 1 (pass), 2 (fail) or 3 (error)`, {
        key: 'outcomes',
      });
  }
}

/** Run ids sort by creation time and are readable in a terminal: 20261122-023712-4f9a. */
export function newRunId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const rand = Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${stamp}-${rand}`;
}

export { DuplicateSampleError, GradeError, UnknownRunError } from './errors.js';

/** The run filter as the memory store applies it; the SQL adapters say the same in SQL. */
export function matchesRunFilter(r: { name: string }, f: RunFilter): boolean {
  if (f.name !== undefined && r.name !== f.name) return false;
  if (f.nameContains !== undefined && !r.name.toLowerCase().includes(f.nameContains.toLowerCase())) return false;
  if (f.idPrefix !== undefined && !(r as { id?: string }).id?.startsWith(f.idPrefix)) return false;
  return true;
}

/** limit/offset as whole numbers ≥ 0 (a negative or fractional value from a caller is clamped, never SQL). */
export function pageBounds(f: { limit?: number; offset?: number }): { limit?: number; offset: number } {
  const whole = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? undefined : Math.max(0, Math.floor(x)));
  const limit = whole(f.limit);
  return { ...(limit !== undefined ? { limit } : {}), offset: whole(f.offset) ?? 0 };
}

export function page<T>(list: T[], f: { limit?: number; offset?: number }): T[] {
  const { limit, offset } = pageBounds(f);
  return list.slice(offset, limit === undefined ? undefined : offset + limit);
}

/** A run's N×M×K must be a tensor this process can allocate; refused at runs.create, guarded at samples.tensor. */
export function checkShape(what: string, N: number, M: number, K: number): void {
  const problem = designProblem(N, M, K);
  if (problem) throw new ArgumentError(`${what}: ${problem}`, { key: 'shape' });
}

/** How far ahead of this clock a given time may be (another machine's clock skew), in ms. */
export const CLOCK_SKEW_MS = 60_000;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A grade's time as written (ISO 8601: a date, or a date and time with an optional zone): its epoch ms, or
 * what is wrong with it. Date.parse alone takes "2026-02-30" as 2 March; a date a calendar has not, or one
 * more than CLOCK_SKEW_MS in the future (a grade cannot have been given yet), is refused.
 */
export function gradedAtProblem(value: unknown, now: Date): number | string {
  const m = typeof value === 'string' ? ISO.exec(value.trim()) : null;
  if (!m) return 'must be an ISO 8601 date and time';
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || sec > 59)
    return `must be a date and time a calendar has (${y}-${String(mo).padStart(2, '0')} has days 1 to ${mo >= 1 && mo <= 12 ? days : '?'}, hours 0-23, minutes and seconds 0-59)`;
  const t = Date.parse(value as string);
  if (!Number.isFinite(t)) return 'must be an ISO 8601 date and time';
  if (t > now.getTime() + CLOCK_SKEW_MS) return `must not be in the future (it is ${now.toISOString()} here; a minute of clock skew is allowed)`;
  return t;
}

/* eslint-disable no-control-regex */
export const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Shared checks every adapter applies before storing a grade; returns it with gradedAt filled in (ISO 8601).
 * `sample` is the stored sample (i, j), looked up by the adapter: a grade needs an output to be about.
 */
export function checkGrade(
  run: RunRecord,
  g: NewGrade,
  sample: Pick<SampleRecord, 'output' | 'generationError'> | undefined,
  now = new Date(),
): NewGrade & { gradedAt: string } {
  const at = `run ${run.id}: grade of output (${String(g?.i)}, ${String(g?.j)})`;
  if (typeof g !== 'object' || g === null) throw new GradeError(`run ${run.id}: a grade must be an object`);
  if (!Number.isInteger(g.i) || g.i < 0 || g.i >= run.N) throw new GradeError(`${at}: input index i must be a whole number in 0..${run.N - 1}`, 'i');
  if (!Number.isInteger(g.j) || g.j < 0 || g.j >= run.M) throw new GradeError(`${at}: sample index j must be a whole number in 0..${run.M - 1}`, 'j');
  const rules = run.validators.map((v) => v.name);
  if (typeof g.rule !== 'string' || !rules.includes(g.rule))
    throw new GradeError(`${at}: rule ${JSON.stringify(g.rule)} is not one of the run's (${rules.map((r) => JSON.stringify(r)).join(', ')})`, 'rule');
  if (g.grade !== 'pass' && g.grade !== 'fail') throw new GradeError(`${at}: grade must be "pass" or "fail", found ${JSON.stringify(g.grade)}`, 'grade');
  if (typeof g.grader !== 'string' || g.grader.trim() === '' || g.grader.length > 200 || CONTROL.test(g.grader))
    throw new GradeError(`${at}: grader must be a name of 1 to 200 characters without control characters, found ${JSON.stringify(g.grader)}`, 'grader');
  let gradedAt = now.toISOString();
  if (g.gradedAt !== undefined) {
    const problem = gradedAtProblem(g.gradedAt, now);
    if (typeof problem === 'string') throw new GradeError(`${at}: gradedAt ${problem}, found ${JSON.stringify(g.gradedAt)}`, 'gradedAt');
    gradedAt = new Date(problem).toISOString();
  }
  const problem = g.probability === undefined ? undefined : probabilityProblem(g.probability);
  if (problem) throw new GradeError(`${at}: probability: ${problem}, found ${String(g.probability)}`, 'probability');
  if (g.design !== undefined && (typeof g.design !== 'string' || g.design.length > 200 || CONTROL.test(g.design)))
    throw new GradeError(`${at}: design must be text of at most 200 characters without control characters`, 'design');
  if (g.design !== undefined && g.probability === undefined)
    throw new GradeError(`${at}: a design needs the probability it drew the output with`, 'probability');
  if (!sample) throw new GradeError(`${at}: the run has no stored output there (not run yet, or interrupted before it)`, 'i');
  if (sample.output === undefined)
    throw new GradeError(`${at}: its generation failed (${sample.generationError ?? 'no output'}), so there is no output to grade`, 'i');
  return {
    i: g.i,
    j: g.j,
    rule: g.rule,
    grade: g.grade,
    grader: g.grader.trim(),
    gradedAt,
    ...(g.probability !== undefined ? { probability: g.probability } : {}),
    ...(g.design !== undefined ? { design: g.design } : {}),
  };
}

/** checkGrade over a batch; a refused grade's GradeError carries its position in the batch. */
export function checkGrades(
  run: RunRecord,
  grades: readonly NewGrade[],
  sampleAt: (i: number, j: number) => Pick<SampleRecord, 'output' | 'generationError'> | undefined,
): (NewGrade & { gradedAt: string })[] {
  const now = new Date();
  return grades.map((g, n) => {
    try {
      return checkGrade(run, g, sampleAt(g?.i, g?.j), now);
    } catch (err) {
      if (GradeError.isInstance(err)) throw new GradeError(err.message, err.field, n);
      throw err;
    }
  });
}

/** The grade filter as the memory store applies it; the SQL adapters say the same in SQL. */
export function matchesGradeFilter(g: GradeRecord, f: GradeFilter): boolean {
  return (
    (f.id === undefined || g.id === f.id) &&
    (f.after === undefined || g.id > f.after) &&
    (f.rule === undefined || g.rule === f.rule) &&
    (f.grader === undefined || g.grader === f.grader) &&
    (f.i === undefined || g.i === f.i) &&
    (f.j === undefined || g.j === f.j)
  );
}

/**
 * In the order assay recorded them (by id, which only grows): the order every adapter lists grades in. Not by
 * gradedAt, which a file may claim: an imported grade dated later than today's correction must not outrank it.
 */
export function byRecorded(a: GradeRecord, b: GradeRecord): number {
  return a.id - b.id;
}
