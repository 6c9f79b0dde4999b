import { designProblem } from '../config/limits.js';
import type { RunFilter, RunRecord, SampleRecord } from './types.js';

/** Shared checks every adapter applies before writing a sample, so stored data stays consistent. */
export function checkSample(run: RunRecord, s: SampleRecord): void {
  if (!Number.isInteger(s.i) || s.i < 0 || s.i >= run.N) throw new RangeError(`run ${run.id}: sample input index i=${s.i} outside 0..${run.N - 1}`);
  if (!Number.isInteger(s.j) || s.j < 0 || s.j >= run.M) throw new RangeError(`run ${run.id}: sample index j=${s.j} outside 0..${run.M - 1}`);
  if (s.outcomes.length !== run.K) throw new RangeError(`run ${run.id}: sample (${s.i}, ${s.j}) has ${s.outcomes.length} outcomes, expected K=${run.K}`);
  // 0 (pending) is a column a stop rule settled before this sample: not checked, never counted.
  for (const o of s.outcomes) {
    if (o !== 0 && o !== 1 && o !== 2 && o !== 3)
      throw new RangeError(`run ${run.id}: sample (${s.i}, ${s.j}) has outcome code ${o}; expected 0 (not checked), 1 (pass), 2 (fail) or 3 (error)`);
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

export { DuplicateSampleError, UnknownRunError } from './errors.js';

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

/** A run's N×M×K must be a tensor this process can allocate; refused at createRun, guarded at loadTensor. */
export function checkShape(what: string, N: number, M: number, K: number): void {
  const problem = designProblem(N, M, K);
  if (problem) throw new RangeError(`${what}: ${problem}`);
}
