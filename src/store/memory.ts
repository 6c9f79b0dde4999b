import { ReliabilityTensor } from '../core/tensor.js';
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
import {
  byGradedAt,
  checkGrades,
  checkSample,
  checkShape,
  DuplicateSampleError,
  matchesGradeFilter,
  matchesRunFilter,
  newRunId,
  page,
  UnknownRunError,
} from './validate.js';

/** In-process store (tests, library use without persistence). Same contract as the SQLite store. */
export class MemoryStore implements Store {
  private runs = new Map<string, RunRecord>();
  private samples = new Map<string, Map<string, SampleRecord>>();
  private entries = new Map<string, CacheEntry>();

  readonly cache: ResponseCache = {
    get: async (key) => {
      const e = this.entries.get(key);
      return e && { ...e };
    },
    set: async (key, value) => {
      this.entries.set(key, { value, storedAt: new Date().toISOString() });
    },
    clear: async () => {
      const n = this.entries.size;
      this.entries.clear();
      return n;
    },
  };
  private guardCalls = new Map<string, GuardCallRecord>();
  private guardAttempts = new Map<string, Map<number, GuardAttemptRecord>>();

  async createRun(run: NewRun): Promise<RunRecord> {
    checkShape(`run ${run.name}`, run.inputs.length, run.samples, run.validators.length);
    let id = newRunId();
    while (this.runs.has(id)) id = newRunId();
    const rec: RunRecord = structuredClone({
      ...run,
      id,
      status: 'running' as RunStatus,
      createdAt: new Date().toISOString(),
      N: run.inputs.length,
      M: run.samples,
      K: run.validators.length,
    });
    this.runs.set(id, rec);
    this.samples.set(id, new Map());
    return structuredClone(rec);
  }

  private run(runId: string): RunRecord {
    const r = this.runs.get(runId);
    if (!r) throw new UnknownRunError(runId);
    return r;
  }

  async recordSample(runId: string, sample: SampleRecord): Promise<void> {
    const run = this.run(runId);
    checkSample(run, sample);
    const m = this.samples.get(runId)!;
    const key = `${sample.i},${sample.j}`;
    if (m.has(key)) throw new DuplicateSampleError(runId, sample.i, sample.j);
    m.set(key, structuredClone({ ...sample, finishedAt: sample.finishedAt ?? new Date().toISOString() }));
  }

  async discardGenerationErrors(runId: string): Promise<number> {
    this.run(runId);
    const m = this.samples.get(runId)!;
    let n = 0;
    for (const [key, s] of m) if (s.generationError !== undefined && m.delete(key)) n++;
    return n;
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    const run = this.run(runId);
    run.status = status;
    if (status !== 'running') run.finishedAt = new Date().toISOString();
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const r = this.runs.get(runId);
    return r && structuredClone(r);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const list = [...this.runs.values()].filter((r) => matchesRunFilter(r, filter));
    list.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
    return structuredClone(page(list, filter));
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    return [...this.runs.values()].filter((r) => matchesRunFilter(r, filter)).length;
  }

  async loadTensor(runId: string): Promise<ReliabilityTensor> {
    const run = this.run(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    for (const s of this.samples.get(runId)!.values()) {
      for (let k = 0; k < run.K; k++) t.set(s.i, s.j, k, s.outcomes[k]);
    }
    return t;
  }

  async getSample(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    this.run(runId);
    const s = this.samples.get(runId)!.get(`${i},${j}`);
    return s && structuredClone(s);
  }

  async listSamples(runId: string): Promise<SampleRecord[]> {
    this.run(runId);
    return structuredClone([...this.samples.get(runId)!.values()].sort((a, b) => a.i - b.i || a.j - b.j));
  }

  private grades = new Map<string, GradeRecord[]>();
  private gradeIds = 0;

  async recordGrade(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordGrades(runId, [grade]))[0];
  }

  async recordGrades(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    const run = this.run(runId);
    const samples = this.samples.get(runId)!;
    // Every grade is checked before any is stored: all or none.
    const checked = checkGrades(run, grades, (i, j) => samples.get(`${i},${j}`));
    const list = this.grades.get(runId) ?? [];
    this.grades.set(runId, list);
    const stored = checked.map((g) => ({ ...g, id: ++this.gradeIds, runId }));
    list.push(...stored);
    return structuredClone(stored);
  }

  async deleteGrade(runId: string, id: number): Promise<boolean> {
    this.run(runId);
    const list = this.grades.get(runId) ?? [];
    const at = list.findIndex((g) => g.id === id);
    if (at < 0) return false;
    list.splice(at, 1);
    return true;
  }

  async listGrades(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    this.run(runId);
    return structuredClone((this.grades.get(runId) ?? []).filter((g) => matchesGradeFilter(g, filter)).sort(byGradedAt));
  }

  async gradesVersion(): Promise<string> {
    let n = 0;
    let max = 0;
    for (const list of this.grades.values())
      for (const g of list) {
        n++;
        max = Math.max(max, g.id);
      }
    // Ids are never reused, so the same pair means the same grades.
    return `${n}:${max}`;
  }

  async recordGuardAttempt(a: GuardAttemptRecord): Promise<void> {
    let m = this.guardAttempts.get(a.callId);
    if (!m) this.guardAttempts.set(a.callId, (m = new Map()));
    m.set(a.n, structuredClone(a));
  }

  async recordGuardCall(c: GuardCallRecord): Promise<void> {
    this.guardCalls.set(c.callId, structuredClone(c));
  }

  async getGuardCall(callId: string): Promise<GuardCallRecord | undefined> {
    const c = this.guardCalls.get(callId);
    return c && structuredClone(c);
  }

  async listGuardAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    return structuredClone([...(this.guardAttempts.get(callId)?.values() ?? [])].sort((a, b) => a.n - b.n));
  }

  async listGuardCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const list = [...this.guardCalls.values()].sort((a, b) =>
      a.finishedAt < b.finishedAt ? 1 : a.finishedAt > b.finishedAt ? -1 : a.callId < b.callId ? 1 : -1,
    );
    return structuredClone(page(list, filter));
  }

  async close(): Promise<void> {}
}
