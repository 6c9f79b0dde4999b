import { ReliabilityTensor } from '../core/tensor.js';
import { MemoryProduction } from './memory-production.js';
import { decisiveGrades } from './decisive.js';
import type {
  AuditStore,
  CacheEntry,
  GradeFilter,
  GradeRecord,
  GradeStore,
  GuardAttemptRecord,
  GuardCallRecord,
  GuardLog,
  NewGrade,
  NewRun,
  ProductionStore,
  ResponseCache,
  RunFilter,
  RunRecord,
  RunStatus,
  RunStore,
  SampleRecord,
  SampleStore,
  Store,
} from './types.js';
import {
  byRecorded,
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
import { pushAll } from '../core/arrays.js';
import { MemoryAudits } from './audits.js';

/** In-process store (tests, library use without persistence). Same contract as the SQLite store. */
export class MemoryStore implements Store {
  readonly runs: RunStore;
  readonly samples: SampleStore;
  readonly grades: GradeStore;
  readonly cache: ResponseCache = new MemoryCache();
  readonly guard: GuardLog = new MemoryGuardLog();
  readonly production: ProductionStore = new MemoryProduction();
  readonly audits: AuditStore = new MemoryAudits();

  constructor() {
    const runs = new MemoryRuns();
    const samples = new MemorySamples(runs);
    [this.runs, this.samples, this.grades] = [runs, samples, new MemoryGrades(runs, samples)];
  }

  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

class MemoryRuns implements RunStore {
  private byId = new Map<string, RunRecord>();

  async create(run: NewRun): Promise<RunRecord> {
    checkShape(`run ${run.name}`, run.inputs.length, run.samples, run.validators.length);
    let id = newRunId();
    while (this.byId.has(id)) id = newRunId();
    const rec: RunRecord = structuredClone({
      ...run,
      id,
      status: 'running' as RunStatus,
      createdAt: new Date().toISOString(),
      N: run.inputs.length,
      M: run.samples,
      K: run.validators.length,
    });
    this.byId.set(id, rec);
    return structuredClone(rec);
  }

  /** The stored record itself (not a copy), for the other parts; UnknownRunError for no run. */
  existing(runId: string): RunRecord {
    const r = this.byId.get(runId);
    if (!r) throw new UnknownRunError(runId);
    return r;
  }

  async setStatus(runId: string, status: RunStatus): Promise<void> {
    const run = this.existing(runId);
    run.status = status;
    if (status !== 'running') run.finishedAt = new Date().toISOString();
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const r = this.byId.get(runId);
    return r && structuredClone(r);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    const list = [...this.byId.values()].filter((r) => matchesRunFilter(r, filter));
    list.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
    return structuredClone(page(list, filter));
  }

  async count(filter: RunFilter = {}): Promise<number> {
    return [...this.byId.values()].filter((r) => matchesRunFilter(r, filter)).length;
  }
}

class MemorySamples implements SampleStore {
  /** Per run, its samples by "i,j". */
  private byRun = new Map<string, Map<string, SampleRecord>>();

  constructor(private readonly runs: MemoryRuns) {}

  /** The run's samples (the stored map itself); UnknownRunError for no run. */
  of(runId: string): Map<string, SampleRecord> {
    this.runs.existing(runId);
    let m = this.byRun.get(runId);
    if (!m) this.byRun.set(runId, (m = new Map()));
    return m;
  }

  async record(runId: string, sample: SampleRecord): Promise<void> {
    checkSample(this.runs.existing(runId), sample);
    const m = this.of(runId);
    const key = `${sample.i},${sample.j}`;
    if (m.has(key)) throw new DuplicateSampleError(runId, sample.i, sample.j);
    m.set(key, structuredClone({ ...sample, finishedAt: sample.finishedAt ?? new Date().toISOString() }));
  }

  async discardGenerationErrors(runId: string): Promise<number> {
    const m = this.of(runId);
    let n = 0;
    for (const [key, s] of m) if (s.generationError !== undefined && m.delete(key)) n++;
    return n;
  }

  async tensor(runId: string): Promise<ReliabilityTensor> {
    const run = this.runs.existing(runId);
    checkShape(`run ${run.id}`, run.N, run.M, run.K);
    const t = new ReliabilityTensor(run.N, run.M, run.K);
    for (const s of this.of(runId).values()) {
      for (let k = 0; k < run.K; k++) t.set(s.i, s.j, k, s.outcomes[k]);
    }
    return t;
  }

  async get(runId: string, i: number, j: number): Promise<SampleRecord | undefined> {
    const s = this.of(runId).get(`${i},${j}`);
    return s && structuredClone(s);
  }

  async list(runId: string): Promise<SampleRecord[]> {
    return structuredClone([...this.of(runId).values()].sort((a, b) => a.i - b.i || a.j - b.j));
  }
}

class MemoryGrades implements GradeStore {
  private byRun = new Map<string, GradeRecord[]>();
  private lastId = 0;

  constructor(
    private readonly runs: MemoryRuns,
    private readonly samples: MemorySamples,
  ) {}

  async record(runId: string, grade: NewGrade): Promise<GradeRecord> {
    return (await this.recordMany(runId, [grade]))[0];
  }

  async recordMany(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]> {
    const run = this.runs.existing(runId);
    const samples = this.samples.of(runId);
    // Every grade is checked before any is stored: all or none.
    const checked = checkGrades(run, grades, (i, j) => samples.get(`${i},${j}`));
    const list = this.byRun.get(runId) ?? [];
    this.byRun.set(runId, list);
    const stored = checked.map((g) => ({ ...g, id: ++this.lastId, runId }));
    pushAll(list, stored);
    return structuredClone(stored);
  }

  async delete(runId: string, id: number): Promise<boolean> {
    this.runs.existing(runId);
    const list = this.byRun.get(runId) ?? [];
    const at = list.findIndex((g) => g.id === id);
    if (at < 0) return false;
    list.splice(at, 1);
    return true;
  }

  async list(runId: string, filter: GradeFilter = {}): Promise<GradeRecord[]> {
    this.runs.existing(runId);
    return structuredClone((this.byRun.get(runId) ?? []).filter((g) => matchesGradeFilter(g, filter)).sort(byRecorded));
  }

  async *pages(runId: string, filter: GradeFilter = {}): AsyncGenerator<GradeRecord[]> {
    const all = await this.list(runId, filter);
    if (all.length) yield all;
  }

  async *decisive(runId: string): AsyncGenerator<GradeRecord[]> {
    const some = decisiveGrades(await this.list(runId));
    if (some.length) yield some;
  }

  async version(runId?: string): Promise<string> {
    let n = 0;
    let max = 0;
    for (const list of runId === undefined ? this.byRun.values() : [this.byRun.get(runId) ?? []])
      for (const g of list) {
        n++;
        max = Math.max(max, g.id);
      }
    // Ids are never reused, so the same pair means the same grades.
    return `${n}:${max}`;
  }
}

class MemoryCache implements ResponseCache {
  private entries = new Map<string, CacheEntry>();

  async get(key: string): Promise<CacheEntry | undefined> {
    const e = this.entries.get(key);
    return e && { ...e };
  }

  async set(key: string, value: string): Promise<void> {
    this.entries.set(key, { value, storedAt: new Date().toISOString() });
  }

  async add(key: string, value: string): Promise<boolean> {
    if (this.entries.has(key)) return false;
    await this.set(key, value);
    return true;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.entries.delete(k);
  }

  async clear(): Promise<number> {
    const n = this.entries.size;
    this.entries.clear();
    return n;
  }
}

class MemoryGuardLog implements GuardLog {
  private calls = new Map<string, GuardCallRecord>();
  private attempts = new Map<string, Map<number, GuardAttemptRecord>>();

  async recordAttempt(a: GuardAttemptRecord): Promise<void> {
    let m = this.attempts.get(a.callId);
    if (!m) this.attempts.set(a.callId, (m = new Map()));
    m.set(a.n, structuredClone(a));
  }

  async recordCall(c: GuardCallRecord): Promise<void> {
    this.calls.set(c.callId, structuredClone(c));
  }

  async getCall(callId: string): Promise<GuardCallRecord | undefined> {
    const c = this.calls.get(callId);
    return c && structuredClone(c);
  }

  async listAttempts(callId: string): Promise<GuardAttemptRecord[]> {
    return structuredClone([...(this.attempts.get(callId)?.values() ?? [])].sort((a, b) => a.n - b.n));
  }

  async listCalls(filter: { limit?: number; offset?: number } = {}): Promise<GuardCallRecord[]> {
    const list = [...this.calls.values()].sort((a, b) => (a.finishedAt < b.finishedAt ? 1 : a.finishedAt > b.finishedAt ? -1 : a.callId < b.callId ? 1 : -1));
    return structuredClone(page(list, filter));
  }
}
