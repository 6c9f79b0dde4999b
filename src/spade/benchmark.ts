/**
 * The SPADE benchmark: every selection method on every pipeline file of the benchmark format, with
 * the paper's Table 4 alongside when the directory's README restates it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPipelines, parseTable4, type BenchmarkPipeline, type LabelVariant, type Table4Cell, type Table4Row } from './benchmark-data.js';
import { select, type Method, type SubObjective } from './select.js';

export type BenchmarkMethod = 'base' | 'cov' | 'sub_paper' | 'sub_code';

export interface BenchmarkRow {
  pipeline: string;
  method: BenchmarkMethod;
  status: 'ok' | 'infeasible';
  n_candidates: number;
  n_selected: number;
  ffr: number | null;
  coverage: number | null;
  n_excluded_not_subsumed: number;
  solve_ms: number;
  /** CPU time of the solve: what the solver costs, whatever else the machine is doing. */
  solve_cpu_ms: number;
  selected: string[];
  /** The paper's Table 4 cell for this method, when known (`sub` for both objectives). */
  paper?: Table4Cell;
}

export interface BenchmarkOptions {
  alpha?: number;
  tau?: number;
  labels?: LabelVariant;
  /** Pipelines already loaded (else read from the directory). */
  pipelines?: BenchmarkPipeline[];
}

const METHODS: { name: BenchmarkMethod; method: Method; objective?: SubObjective; table: keyof Omit<Table4Row, 'pipeline' | 'candidates'> }[] = [
  { name: 'base', method: 'base', table: 'base' },
  { name: 'cov', method: 'cov', table: 'cov' },
  { name: 'sub_paper', method: 'sub', objective: 'paper', table: 'sub' },
  { name: 'sub_code', method: 'sub', objective: 'code', table: 'sub' },
];

/** The paper's Table 4 from `dir/README.md`, or an empty list when there is none. */
export async function readTable4(dir: string): Promise<Table4Row[]> {
  try {
    return parseTable4(await readFile(join(dir, 'README.md'), 'utf8'));
  } catch {
    return [];
  }
}

export async function runBenchmark(dir: string, options: BenchmarkOptions = {}): Promise<BenchmarkRow[]> {
  const alpha = options.alpha ?? 0.6;
  const tau = options.tau ?? 0.25;
  const pipelines = options.pipelines ?? (await loadPipelines(dir, options.labels ?? 'optimizer'));
  const table = await readTable4(dir);
  const rows: BenchmarkRow[] = [];
  for (const p of pipelines) {
    const paperRow = table.find((r) => r.pipeline === p.name);
    for (const m of METHODS) {
      const r = await select(p.matrix, { method: m.method, objective: m.objective, alpha, tau, subsumes: p.subsumes });
      rows.push({
        pipeline: p.name,
        method: m.name,
        status: r.status,
        n_candidates: p.matrix.assertions.length,
        n_selected: r.selected.length,
        ffr: r.ffr,
        coverage: r.coverage,
        n_excluded_not_subsumed: r.nExcludedNotSubsumed,
        solve_ms: Math.round(r.solveMs * 10) / 10,
        solve_cpu_ms: Math.round(r.solveCpuMs * 10) / 10,
        selected: r.selected,
        ...(paperRow ? { paper: paperRow[m.table] } : {}),
      });
    }
  }
  return rows;
}

export interface Table4Check {
  pipeline: string;
  method: BenchmarkMethod;
  /** What the issue asks of this method against the paper's cell. */
  requirement: string;
  met: boolean;
}

const r3 = (x: number | null) => (x === null ? null : Number(x.toFixed(3)));

/**
 * The reproduction checks: `base` equal to Table 4 in |S|, FFR, coverage and excluded count; `cov`
 * equal in |S| with FFR ≤ τ and coverage ≥ α; `sub` (both objectives) within the constraints.
 * Every solve within `limitMs`.
 */
export function checkAgainstTable4(rows: BenchmarkRow[], o: { alpha: number; tau: number; limitMs?: number }): Table4Check[] {
  const limit = o.limitMs ?? 1000;
  const meets = (r: BenchmarkRow) => r.status === 'ok' && (r.ffr ?? 0) <= o.tau + 1e-9 && (r.coverage ?? 1) >= o.alpha - 1e-9;
  return rows.flatMap((r): Table4Check[] => {
    const out: Table4Check[] = [{ pipeline: r.pipeline, method: r.method, requirement: `solve_ms ≤ ${limit}`, met: r.solve_ms <= limit }];
    const p = r.paper;
    if (r.method === 'base' && p) {
      const same = r.n_selected === p.nSelected && r3(r.ffr) === p.ffr && r3(r.coverage) === p.coverage && r.n_excluded_not_subsumed === p.nExcludedNotSubsumed;
      out.push({ pipeline: r.pipeline, method: r.method, requirement: 'equals Table 4 (|S|, FFR, coverage, excluded not subsumed)', met: same });
    } else if (r.method === 'cov' && p) {
      out.push({
        pipeline: r.pipeline,
        method: r.method,
        requirement: `|S| equals Table 4 (${p.nSelected}), FFR ≤ τ, coverage ≥ α`,
        met: r.n_selected === p.nSelected && meets(r),
      });
    } else if (r.method !== 'base' && r.method !== 'cov') {
      out.push({ pipeline: r.pipeline, method: r.method, requirement: 'FFR ≤ τ, coverage ≥ α', met: meets(r) });
    }
    return out;
  });
}
