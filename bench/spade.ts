/**
 * `npm run -s bench:spade -- --data <dir> [--json F] [--alpha A] [--tau T] [--labels optimizer|csv]`
 *
 * Prints JSON. `rows` holds, per pipeline and method (base, cov, sub_paper, sub_code), exactly
 * n_candidates, n_selected, ffr, coverage, n_excluded_not_subsumed and solve_ms. Beside them:
 * the paper's Table 4 (parsed at run time from the data's README), the reproduction checks, and
 * the details (status, CPU time, the selected assertions, subsumption pruning).
 *
 * Timing: one unmeasured pass over every program first lets V8 compile HiGHS's WebAssembly paths
 * (the first MIP solves in a process cost several times later ones); its figures are reported as
 * `cold`. `solve_ms` is the wall time of the measured pass.
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadPipelines } from '../src/spade/benchmark-data.js';
import { checkAgainstTable4, readTable4, runBenchmark, type BenchmarkRow } from '../src/spade/benchmark.js';
import { pruneSubsumptions } from '../src/spade/subsumption.js';

function fail(message: string): never {
  process.stderr.write(`bench:spade: ${message}\n`);
  process.exit(2);
}

let values: { data?: string; json?: string; alpha?: string; tau?: string; labels?: string };
try {
  ({ values } = parseArgs({
    options: {
      data: { type: 'string', default: '../shared/benchmarks/spade' },
      json: { type: 'string' },
      alpha: { type: 'string', default: '0.6' },
      tau: { type: 'string', default: '0.25' },
      labels: { type: 'string', default: 'optimizer' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const labels = values.labels;
if (labels !== 'optimizer' && labels !== 'csv') fail(`--labels must be "optimizer" or "csv", got "${labels}"`);
const unit = (flag: string, v: string | undefined) => {
  const x = Number(v);
  if (!(v !== undefined && v.trim() !== '' && x >= 0 && x <= 1)) fail(`${flag} must be a number between 0 and 1, got "${v}"`);
  return x;
};
const alpha = unit('--alpha', values.alpha);
const tau = unit('--tau', values.tau);
const dir = values.data!;

const t0 = performance.now();
let pipelines;
try {
  pipelines = await loadPipelines(dir, labels);
} catch (err) {
  fail((err as Error).message);
}
if (!pipelines.length) fail(`${dir}: no pipeline file of the SPADE benchmark format found`);

const maxOf = (rows: BenchmarkRow[], k: 'solve_ms' | 'solve_cpu_ms') => Math.max(0, ...rows.map((r) => r[k]));
const tw = performance.now();
const cold = await runBenchmark(dir, { alpha, tau, pipelines });
const warmupMs = Math.round(performance.now() - tw);
const rows = await runBenchmark(dir, { alpha, tau, pipelines });
const checks = checkAgainstTable4(rows, { alpha, tau });

// How the paper's heuristics would prune each pipeline's stored (LLM-proposed) subsumption pairs.
const subsumption = pipelines.map((p) => {
  const r = pruneSubsumptions(p.subsumes, p.matrix, { tau });
  return {
    pipeline: p.name,
    pairs: p.subsumes.length,
    refuted_by_counterexample: r.refuted.length,
    skipped_ffr: r.skipped.filter((s) => s.reason === 'ffr').length,
    implied_by_transitivity: r.implied.length,
    kept: r.kept.length,
  };
});

const round3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
const out = {
  benchmark: 'spade',
  data: dir,
  alpha,
  tau,
  labels,
  solver: 'highs (WebAssembly)',
  rows: rows.map((r) => ({
    pipeline: r.pipeline,
    method: r.method,
    n_candidates: r.n_candidates,
    n_selected: r.n_selected,
    ffr: round3(r.ffr),
    coverage: round3(r.coverage),
    n_excluded_not_subsumed: r.n_excluded_not_subsumed,
    solve_ms: r.solve_ms,
  })),
  paper_table4: (await readTable4(dir)).filter((t) => pipelines.some((p) => p.name === t.pipeline)),
  checks: {
    all_met: checks.every((c) => c.met),
    failed: checks.filter((c) => !c.met),
    count: checks.length,
  },
  timing: {
    max_solve_ms: maxOf(rows, 'solve_ms'),
    max_solve_cpu_ms: maxOf(rows, 'solve_cpu_ms'),
    cold: { max_solve_ms: maxOf(cold, 'solve_ms'), max_solve_cpu_ms: maxOf(cold, 'solve_cpu_ms'), pass_ms: warmupMs },
    total_ms: Math.round(performance.now() - t0),
    load_average_1m: Math.round(loadavg()[0] * 100) / 100,
  },
  details: rows.map((r) => ({
    pipeline: r.pipeline,
    method: r.method,
    status: r.status,
    solve_cpu_ms: r.solve_cpu_ms,
    ffr: r.ffr,
    coverage: r.coverage,
    selected: r.selected,
  })),
  subsumption,
};
const text = JSON.stringify(out, null, 2);
process.stdout.write(text + '\n');
if (values.json) await writeFile(values.json, text + '\n');
