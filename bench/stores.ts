/**
 * `npm run bench:stores [-- --runs 10000 --backend sqlite,postgres --pg postgres://postgres@127.0.0.1:5432/postgres --json F]`
 *
 * The reading side with many stored runs: fills a fresh store (SQLite in a temp dir, and a fresh PostgreSQL
 * database that is dropped after) with `--runs` runs of 10 experiment names (10 inputs × 5 samples × 3
 * validators each, seeded outcomes) through the Store API, then times what people do with the history:
 * `assay runs`, `assay show`, `assay compare` (in-process, output discarded) and the dashboard's pages and
 * /api endpoints over HTTP (`assay serve` in-process). Each is timed cold (first request: nothing cached)
 * and warm (median of 5 more). Prints JSON: fill rate and, per backend, milliseconds per operation.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { onFreshStore } from './fresh-store.js';
import { writeFileSync } from 'node:fs';
import { main } from '../src/cli/main.js';
import { mulberry32 } from '../src/core/prng.js';
import type { OutcomeCode } from '../src/core/outcome.js';
import { startServer } from '../src/server/start.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    backend: { type: 'string', default: 'sqlite,postgres' },
    pg: { type: 'string', default: process.env.ASSAY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    json: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const [N, M, K] = [10, 5, 3];
const NAMES = Array.from({ length: 10 }, (_, k) => `experiment-${k}`);

async function fill(store: Store): Promise<{ runs: string[]; seconds: number; samples_per_s: number }> {
  const rnd = mulberry32(7);
  const ids: string[] = [];
  const t0 = performance.now();
  let next = 0;
  const validators = Array.from({ length: K }, (_, k) => ({ name: `v${k}`, message: `rule ${k}`, minSuccess: 0.8, weight: 1, kind: 'validator' as const }));
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < RUNS) {
        const r = next++;
        const name = NAMES[r % NAMES.length];
        const run = await store.runs.create({
          name,
          config: { name, samples: M },
          inputs: Array.from({ length: N }, (_, i) => `input ${i}`),
          samples: M,
          validators,
          systemId: 'bench',
        });
        ids[r] = run.id;
        const p = 0.75 + 0.2 * rnd();
        const writes: Promise<void>[] = [];
        for (let i = 0; i < N; i++) {
          for (let j = 0; j < M; j++) {
            const outcomes = Array.from({ length: K }, () => (rnd() < p ? 1 : 2) as OutcomeCode);
            writes.push(store.samples.record(run.id, { i, j, outcomes, output: `output ${i},${j} of ${run.id}`, latencyMs: 10, attempts: 1 }));
          }
        }
        await Promise.all(writes);
        await store.runs.setStatus(run.id, 'complete');
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { runs: ids, seconds: round(seconds, 1), samples_per_s: Math.round((RUNS * N * M) / seconds) };
}

/** Run the CLI in-process with its output thrown away; milliseconds. */
async function cliMs(args: string[]): Promise<number> {
  const [w1, w2] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const t0 = performance.now();
  try {
    const code = await main(args);
    if (code > 1) throw new Error(`assay ${args.join(' ')} exited ${code}`);
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
  }
  return performance.now() - t0;
}

async function timed(f: () => Promise<number>): Promise<{ cold_ms: number; warm_ms: number }> {
  const cold = await f();
  const warm: number[] = [];
  for (let k = 0; k < 5; k++) warm.push(await f());
  warm.sort((a, b) => a - b);
  return { cold_ms: round(cold, 1), warm_ms: round(warm[2], 1) };
}

async function measure(location: string): Promise<Record<string, unknown>> {
  const writer = await openStore(location);
  const filled = await fill(writer);
  await writer.close();
  const [newest, oldest] = [filled.runs[RUNS - 1], filled.runs[RUNS - 1 - NAMES.length]];
  const out: Record<string, unknown> = { fill_s: filled.seconds, fill_samples_per_s: filled.samples_per_s };
  out.cli_runs = await timed(() => cliMs(['runs', '--store', location, '--json']));
  out.cli_runs_page_250 = await timed(() => cliMs(['runs', '--store', location, '--json', '--offset', '5000']));
  out.cli_runs_by_name = await timed(() => cliMs(['runs', '--store', location, '--json', '--name', NAMES[3]]));
  out.cli_show = await timed(() => cliMs(['show', newest, '--store', location]));
  out.cli_compare = await timed(() => cliMs(['compare', oldest, newest, '--store', location]));

  const reader = await openStore(location, { readonly: true });
  const server = await startServer({ store: reader, port: 0, log: false });
  const http = (path: string) => async () => {
    const t0 = performance.now();
    const res = await fetch(server.url + path);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    return performance.now() - t0;
  };
  for (const [key, path] of [
    ['page_runs', '/'],
    ['page_runs_offset_5000', '/?offset=5000'],
    ['page_runs_search', `/?name=${encodeURIComponent('ment-7')}`],
    ['api_runs', '/api/runs'],
    ['page_trend', `/trend/${NAMES[0]}`],
    ['api_trend', `/api/trend/${NAMES[1]}`],
    ['page_compare', `/compare?a=${oldest}&b=${newest}`],
    ['page_compare_picker', '/compare'],
    ['page_run', `/runs/${filled.runs[RUNS - 2]}`],
  ] as const) {
    out[key] = await timed(http(path));
  }
  await server.close();
  await reader.close();
  return out;
}

const result: Record<string, unknown> = { runs: RUNS, design: `${N}×${M}×${K}`, names: NAMES.length };
for (const backend of values.backend.split(',')) result[backend] = await onFreshStore(backend, values.pg, measure);
result.load_avg_1m = round(loadavg()[0], 2);
const text = JSON.stringify(result, null, 2);
process.stdout.write(text + '\n');
if (values.json) writeFileSync(values.json, text + '\n');

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
