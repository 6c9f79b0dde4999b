/**
 * `npm run bench:spade -- --data <dir> [--json F] [--alpha A] [--tau T] [--labels optimizer|csv]`
 * Prints, per pipeline and method, n_candidates, n_selected, ffr, coverage, n_excluded_not_subsumed
 * and solve_ms as JSON (and writes it to F with --json).
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadPipelines } from '../src/spade/benchmark-data.js';
import { runBenchmark } from '../src/spade/benchmark.js';
import { pruneSubsumptions } from '../src/spade/subsumption.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/benchmarks/spade' },
    json: { type: 'string' },
    alpha: { type: 'string', default: '0.6' },
    tau: { type: 'string', default: '0.25' },
    labels: { type: 'string', default: 'optimizer' },
  },
});
if (values.labels !== 'optimizer' && values.labels !== 'csv') {
  process.stderr.write(`--labels must be "optimizer" or "csv", got "${values.labels}"\n`);
  process.exit(2);
}
const alpha = Number(values.alpha);
const tau = Number(values.tau);
const t0 = performance.now();
const rows = await runBenchmark(values.data!, { alpha, tau, labels: values.labels });
// How the paper's heuristics would prune each pipeline's stored (LLM-proposed) subsumption pairs.
const subsumption = (await loadPipelines(values.data!, values.labels)).map((p) => {
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
const out = {
  benchmark: 'spade',
  data: values.data,
  alpha,
  tau,
  labels: values.labels,
  solver: 'highs (WebAssembly)',
  total_ms: Math.round(performance.now() - t0),
  max_solve_ms: Math.max(0, ...rows.map((r) => r.solve_ms)),
  max_solve_cpu_ms: Math.max(0, ...rows.map((r) => r.solve_cpu_ms)),
  load_average_1m: Math.round(loadavg()[0] * 100) / 100,
  rows: rows.map(({ selected: _selected, ...r }) => r),
  subsumption,
};
const text = JSON.stringify(out, null, 2);
process.stdout.write(text + '\n');
if (values.json) await writeFile(values.json, text + '\n');
