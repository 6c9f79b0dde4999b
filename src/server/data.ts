import { Outcome } from '../core/outcome.js';
import type { RunSummary, VerdictMode } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { ErrorSummary } from '../run/error-groups.js';
import { summarizeRun } from '../core/decision.js';
import { computeStats, errorSummaryOf } from '../run/stats.js';
import type { PAdjust } from '../core/compare.js';
import { compareRuns, type RunComparison } from '../report/compare.js';
import { sampleView, type SampleView } from '../report/html-run.js';
import { UsageError } from '../errors.js';
import { resolveRunId } from '../store/resolve.js';
import type { RunRecord, Store } from '../store/types.js';
import type { GradedOutput } from '../core/grades.js';
import { loadGradingKept, type KeptGrading } from '../grades/load.js';
import { buildTrend, type Trend } from './trend.js';

/** The data behind every dashboard page, read from the store (never written). Also the /api/… bodies. */

export interface LoadedRun {
  run: RunRecord;
  tensor: ReliabilityTensor;
  summary: RunSummary;
  /** Why cells are errors (read from the samples only when the tensor has an error cell). */
  errors?: ErrorSummary;
  /** The run's grades.version(runId) the summary was made with: a new grade makes it stale. */
  gradesKey?: string;
  /** The run's grades combined per rule (what the summary's grading figures rest on); absent without grades. */
  grading?: GradedOutput[][];
  /** The store's grades.version() when the summary was last known current. */
  gradesVersion?: string;
}

export interface RunListItem {
  id: string;
  name: string;
  createdAt: string;
  status: string;
  shape: { N: number; M: number; K: number };
  verdict: string;
  /** How the run's verdicts were decided; a point verdict is marked as such. Absent for an unreadable run. */
  verdictMode?: VerdictMode;
  /** errorShare: share of checked cells that are errors (a rate is never shown without it). */
  overall: { method: string; value: number | null; mean: number | null; weighted: number | null; min: number | null; errorShare: number | null };
  allPass: number | null;
  /** Share of outputs the all-pass rate leaves out because a cell of theirs is an error. */
  allPassErrorShare: number | null;
  /** `rate` is the rule's own; `corrected` the rate people's grades corrected it to, and `figure` which one the verdict rests on (docs/judges.md). */
  validators: { name: string; rate: number | null; verdict: string; errorShare: number | null; corrected?: number; figure?: string }[];
}

/** Runs whose combined grades are kept to add new grades to (each holds a map per graded output). */
const KEPT_GRADINGS = 20;

/** Runs per page of the list (`?offset=` pages through the rest). */
export const RUNS_PAGE = 50;
/** Runs in a trend unless `?limit=` asks for more (at most MAX_TREND_RUNS). */
export const TREND_RUNS = 100;
export const MAX_TREND_RUNS = 1000;

export interface RunPage {
  runs: RunListItem[];
  /** Runs matching the filter in the whole store. */
  total: number;
  offset: number;
  limit: number;
}

export class DashboardData {
  /** Finished runs never change, so their summaries are kept; running ones are recomputed each time. */
  private cache = new Map<string, LoadedRun>();
  /** The runs' grades combined so far (grades/load.ts loadGradingKept), for the most recently read runs. */
  private kept = new Map<string, KeptGrading>();

  constructor(readonly store: Store) {}

  /** The run id a page or API path names: the id itself, `latest`, or a unique prefix (undefined when none). */
  async resolve(ref: string): Promise<string | undefined> {
    return resolveRunId(this.store, ref).catch((err: unknown) => {
      if (UsageError.isInstance(err)) return undefined;
      throw err;
    });
  }

  /** Why `ref` names no run, as the CLI says it: unknown, or a prefix of several ids (listing some). */
  async whyUnresolved(ref: string): Promise<string> {
    try {
      await resolveRunId(this.store, ref, 'run');
      return `no run with id "${ref}"`;
    } catch (err) {
      if (UsageError.isInstance(err)) return err.message.replace(/^run: /, '');
      throw err;
    }
  }

  /**
   * A run with its summary. Grades may be given at any time (here, or by the CLI): a kept summary is used while
   * the store's grades are unchanged (`version`, one query for a whole page of runs), or this run's are.
   */
  async load(ref: string, known?: RunRecord, version?: string): Promise<LoadedRun | undefined> {
    const id = known?.id ?? (await this.resolve(ref));
    if (id === undefined) return undefined;
    const gradesVersion = version ?? (await this.store.grades.version());
    const cached = this.cache.get(id);
    if (cached && cached.gradesVersion === gradesVersion) return cached;
    // Read before the grades: a grade given meanwhile makes the next read recompute, never the reverse.
    const gradesKey = await this.gradesKey(id);
    if (cached && cached.gradesKey === gradesKey) {
      cached.gradesVersion = gradesVersion;
      return cached;
    }
    // A record just listed is used as it is (one query fewer per run of a page).
    const run = known ?? (await this.store.runs.get(id));
    if (!run) return undefined;
    const tensor = await this.store.samples.tensor(id);
    // The grades are combined as the store's pages come (never all held), or only those recorded since the last
    // time added to what was kept; then decided by the parameters stored with the run, as `assay show` decides it.
    const kept = await loadGradingKept(this.store, run, gradesKey, this.kept.get(id));
    this.kept.delete(id); // the newest last: the oldest goes first
    if (this.kept.size >= KEPT_GRADINGS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(id, kept.kept);
    const grading = kept.grading;
    const summary = summarizeRun(run, tensor, {}, grading);
    const errors = tensor.cells.includes(Outcome.ERROR) ? errorSummaryOf(computeStats(await this.store.samples.list(id))) : undefined;
    const loaded = { run, tensor, summary, gradesKey, gradesVersion, ...(grading ? { grading } : {}), ...(errors ? { errors } : {}) };
    if (run.status !== 'running' && (this.cache.size < 500 || this.cache.has(id))) this.cache.set(id, loaded);
    return loaded;
  }

  /** The store's grades.version(): unchanged, no run's grades changed. */
  gradesVersion(): Promise<string> {
    return this.store.grades.version();
  }

  /** What changes when a grade of the run is given or undone (for pages kept between requests): one count, not the grades. */
  gradesKey(id: string): Promise<string> {
    return this.store.grades.version(id);
  }

  /** One page of runs, newest first, whose name contains `name` (case-insensitive); the store pages, so a page costs the same however many runs there are. */
  async runs(name?: string, page: { offset?: number; limit?: number } = {}): Promise<RunPage> {
    const needle = name?.trim() || undefined;
    const filter = needle ? { nameContains: needle } : {};
    const [offset, limit] = [page.offset ?? 0, page.limit ?? RUNS_PAGE];
    const [picked, total, version] = await Promise.all([
      this.store.runs.list({ ...filter, offset, limit }),
      this.store.runs.count(filter),
      this.store.grades.version(),
    ]);
    const items: RunListItem[] = [];
    for (const r of picked) {
      let loaded: LoadedRun | undefined;
      try {
        loaded = await this.load(r.id, r, version);
      } catch {
        // One unreadable record (e.g. written by a crashed or older assay) must not take the list down.
        items.push({
          id: r.id,
          name: r.name,
          createdAt: r.createdAt,
          status: r.status,
          shape: { N: r.N, M: r.M, K: r.K },
          verdict: 'unreadable',
          overall: { method: 'mean', value: null, mean: null, weighted: null, min: null, errorShare: null },
          allPass: null,
          allPassErrorShare: null,
          validators: [],
        });
        continue;
      }
      if (!loaded) continue;
      const { summary } = loaded;
      const o = summary.overall;
      items.push({
        id: r.id,
        name: r.name,
        createdAt: r.createdAt,
        status: r.status,
        shape: { N: r.N, M: r.M, K: r.K },
        verdict: summary.verdict,
        verdictMode: summary.options.verdict,
        overall: { method: o.method, value: o.value, mean: o.mean, weighted: o.weighted, min: o.min, errorShare: o.errorShare },
        allPass: summary.allPass.rate,
        allPassErrorShare: summary.allPass.errorShare,
        validators: summary.validators.map((v) => ({
          name: v.name,
          rate: v.rate,
          verdict: v.verdict,
          errorShare: v.errorShare,
          ...(v.grading?.corrected ? { corrected: v.grading.corrected.rate } : {}),
          ...(v.figure !== undefined ? { figure: v.figure } : {}),
        })),
      });
    }
    return { runs: items, total, offset, limit };
  }

  /** The run, its summary and the tensor's cells as a digit string in (i, j, k) order (0 not run, 1 pass, 2 fail, 3 error). */
  async runJson(id: string): Promise<unknown | undefined> {
    const loaded = await this.load(id);
    if (!loaded) return undefined;
    const { run, tensor, summary, errors } = loaded;
    return {
      run: { ...run, config: undefined },
      summary,
      errors: errors ?? { total: 0, distinct: 0, groups: [] },
      tensor: {
        N: tensor.N,
        M: tensor.M,
        K: tensor.K,
        order: 'i,j,k',
        codes: { 0: 'pending', 1: 'pass', 2: 'fail', 3: 'error' },
        cells: Array.from(tensor.cells).join(''),
      },
    };
  }

  async sample(ref: string, i: number, j: number): Promise<SampleView | undefined> {
    const id = await this.resolve(ref);
    const run = id === undefined ? undefined : await this.store.runs.get(id);
    if (!run || i >= run.N || j >= run.M) return undefined;
    const s = await this.store.samples.get(run.id, i, j);
    return s ? sampleView(run, s) : undefined;
  }

  /** The trend of the newest `limit` runs of one name; `totalRuns` says how many it has in all. */
  async trend(name: string, limit = TREND_RUNS): Promise<(Trend & { totalRuns: number }) | undefined> {
    const [runs, totalRuns, version] = await Promise.all([this.store.runs.list({ name, limit }), this.store.runs.count({ name }), this.store.grades.version()]);
    if (!runs.length) return undefined;
    const loaded: LoadedRun[] = [];
    for (const r of runs) {
      const l = await this.load(r.id, r, version).catch(() => undefined); // an unreadable run is left out of the trend
      if (l) loaded.push(l);
    }
    return { ...buildTrend(name, loaded), totalRuns };
  }

  async compare(a: string, b: string, options: { level?: number; adjust?: PAdjust } = {}): Promise<RunComparison | { missing: string }> {
    const [la, lb] = [await this.load(a), await this.load(b)];
    if (!la) return { missing: a };
    if (!lb) return { missing: b };
    return compareRuns(la, lb, options);
  }
}
