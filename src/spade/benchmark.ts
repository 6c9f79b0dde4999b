/**
 * The SPADE benchmark: every selection method on every pipeline file of the benchmark format, with
 * the paper's Table 4 alongside when the directory's README restates it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadPipelines, parseTable4, type LabelVariant, type Table4Cell, type Table4Row } from './benchmark-data.js';
import { select, type Method, type SubObjective } from './select.js';

export interface BenchmarkRow {
  pipeline: string;
  method: 'base' | 'cov' | 'sub_paper' | 'sub_code';
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
}

const METHODS: { name: BenchmarkRow['method']; method: Method; objective?: SubObjective; table: keyof Omit<Table4Row, 'pipeline' | 'candidates'> }[] = [
  { name: 'base', method: 'base', table: 'base' },
  { name: 'cov', method: 'cov', table: 'cov' },
  { name: 'sub_paper', method: 'sub', objective: 'paper', table: 'sub' },
  { name: 'sub_code', method: 'sub', objective: 'code', table: 'sub' },
];

export async function runBenchmark(dir: string, options: BenchmarkOptions = {}): Promise<BenchmarkRow[]> {
  const alpha = options.alpha ?? 0.6;
  const tau = options.tau ?? 0.25;
  const pipelines = await loadPipelines(dir, options.labels ?? 'optimizer');
  let table: Table4Row[] = [];
  try {
    table = parseTable4(await readFile(join(dir, 'README.md'), 'utf8'));
  } catch {
    // no README with Table 4 next to the data: report without the paper's figures
  }
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
