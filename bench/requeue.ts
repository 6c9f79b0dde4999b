/**
 * `npm run bench:requeue [-- --json] [--inputs 20 --samples 10 --latency 300 --concurrency 4 --workers 2 --losses 0.1,0.4,0.7 --no-loss-runs 1 --baseline <checkout>]`
 *
 * Provider calls paid when Redis loses a queued run's jobs (issue 30). A run of inputs × samples (default 200),
 * each sample one generation and one judge call, against two local OpenAI-compatible mocks in processes of their
 * own (system and judge, answering after `--latency` ms, counting every request that arrives), run by `--workers`
 * `assay worker` processes on a fresh PostgreSQL database and a throwaway Redis (redis-server on a spare port).
 * For each loss timing (the share of the run's generations that have reached the mock) Redis is wiped with
 * FLUSHALL: the waiting run queues again every sample the store lacks, those in flight included. Runs without a
 * loss (`--no-loss-runs`, median) give the throughput (samples/s) the journal costs.
 *
 * `--baseline <checkout>`: the same runs with workers started from another checkout's sources (e.g. one before
 * the call journal), side by side in this one process, so that the figures compare under the same load.
 *
 * Prints JSON: per variant (baseline, current) and loss, generations and judge calls paid (N × M each when
 * nothing is paid twice), extra_calls (paid beyond that), samples stored, wall seconds; no_loss_samples_per_s;
 * the load average.
 */
import { Redis } from 'ioredis';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cliCommand, TSX } from '../src/cli/testing/process.js';
import { loadExperiment } from '../src/config/load.js';
import { parseRedisUrl } from '../src/queue/connection.js';
import { runOnQueue } from '../src/queue/coordinator.js';
import { assembleRun } from '../src/run/assemble.js';
import { spawnWorker, type WorkerProcess } from '../src/queue/testing/workers.js';
import { openStore } from '../src/store/open.js';
import { startMockProcess } from '../src/testing/mock-process.js';
import { createTestDatabase } from '../src/testing/services.js';
import { throwawayRedis } from '../src/testing/throwaway.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    inputs: { type: 'string', default: '20' },
    samples: { type: 'string', default: '10' },
    latency: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '4' },
    workers: { type: 'string', default: '2' },
    losses: { type: 'string', default: '0.1,0.4,0.7' },
    'no-loss-runs': { type: 'string', default: '1' },
    baseline: { type: 'string' },
  },
});
const say = (line: string) => values.json || process.stderr.write(`bench:requeue: ${line}\n`);
const [N, M, latency, C, W] = [values.inputs, values.samples, values.latency, values.concurrency, values.workers].map(Number);
const losses = values.losses ? values.losses.split(',').map(Number) : [];
const noLossRuns = Number(values['no-loss-runs']);

const redis = await throwawayRedis();
if (!redis) throw new Error('bench:requeue needs redis-server on the PATH (a Redis of its own, wiped with FLUSHALL)');
const dir = mkdtempSync(join(tmpdir(), 'assay-bench-requeue-'));
// A fresh database on ASSAY_TEST_POSTGRES (default the local server), dropped after.
const db = await createTestDatabase();
if (!db) throw new Error('bench:requeue needs PostgreSQL (ASSAY_TEST_POSTGRES, default postgres://postgres@127.0.0.1:5432/postgres)');
const store = db.url;
const system = await startMockProcess({ delayMs: latency, content: 'It is a fine day and I am glad to see it.' });
const judge = await startMockProcess({ delayMs: latency, judge: 'PASS' });

function config(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
system: { openai: { baseURL: "${system.baseURL}", model: bench } }
inputs: [${Array.from({ length: N }, (_, i) => JSON.stringify(`Question number ${i}`)).join(', ')}]
samples: ${M}
validators:
  - { name: short, check: { type: words, max: 40 }, minSuccess: 0.9 }
verifiers:
  - name: judged
    minSuccess: 0.5
    instructions: "Is it fine?"
    judge: { openai: { baseURL: "${judge.baseURL}", model: judge } }
`,
  );
  return file;
}

interface Outcome {
  loss: number | null;
  generations: number;
  judge_calls: number;
  extra_calls: number;
  samples_stored: number;
  wall_s: number;
}

/** One run under fresh workers of `entry`, Redis wiped once `loss` × N × M generations reached the mock (none: null). */
async function lossRun(variant: string, entry: string[], loss: number | null, n: number): Promise<Outcome> {
  const prefix = `bench-${variant}-${n}`;
  const queueUrl = `${redis!.url}?prefix=${prefix}`;
  const ws: WorkerProcess[] = Array.from({ length: W }, () =>
    spawnWorker(['--queue', queueUrl, '--store', store, '--concurrency', String(C)], process.env, entry),
  );
  const s = await openStore(store);
  // Assembled as assay run assembles it: the verifier becomes the run's second column.
  const x = await assembleRun(await loadExperiment(config(`${variant}-${n}`)));
  try {
    await Promise.all(ws.map((w) => w.ready));
    const [g0, j0] = [(await system.arrivals()).length, (await judge.arrivals()).length];
    const t0 = performance.now();
    const running = runOnQueue({ experiment: x.experiment, systemId: 'openai:bench', store: s, queue: parseRedisUrl(queueUrl), pollMs: 50 });
    let done = false;
    void running.finally(() => (done = true)).catch(() => {});
    if (loss !== null) {
      while (!done && (await system.arrivals()).length - g0 < loss * N * M) await new Promise((r) => setTimeout(r, 10));
      const c = new Redis(redis!.url);
      await c.flushall();
      c.disconnect();
    }
    const r = await running;
    if (r.status !== 'complete' || r.failed) throw new Error(`run ${r.run.id} ended ${r.status} with ${r.failed} failed job(s): ${r.firstError ?? ''}`);
    const wall = (performance.now() - t0) / 1000;
    const generations = (await system.arrivals()).length - g0;
    const judged = (await judge.arrivals()).length - j0;
    const stored = (await s.samples.list(r.run.id)).length;
    return {
      loss,
      generations,
      judge_calls: judged,
      extra_calls: generations + judged - 2 * N * M,
      samples_stored: stored,
      wall_s: Math.round(wall * 100) / 100,
    };
  } finally {
    await x.dispose();
    await s.close();
    for (const w of ws) w.child.kill('SIGTERM');
    await Promise.all(ws.map((w) => w.exited));
  }
}

const variants: [string, string[]][] = [
  ...(values.baseline ? [['baseline', ['--import', TSX, join(values.baseline, 'src/cli/main.ts')]] as [string, string[]]] : []),
  ['current', cliCommand()],
];
const results: Record<string, Outcome[]> = {};
try {
  await (await openStore(store)).close(); // one process migrates the new database before the workers open it
  let n = 0;
  // Interleaved (each timing under both variants in turn) so that a change in the machine's load hits both alike.
  for (const loss of [...Array.from({ length: noLossRuns }, () => null), ...losses]) {
    for (const [variant, entry] of variants) {
      const o = await lossRun(variant, entry, loss, n++);
      (results[variant] ??= []).push(o);
      say(
        `${variant}, ${loss === null ? 'no loss' : `FLUSHALL after ${Math.round(loss * 100)}% of the generations`}: ${o.generations} generations + ${o.judge_calls} judge calls for ${N * M} samples (${o.extra_calls} extra), ${o.samples_stored} stored, ${o.wall_s} s`,
      );
    }
  }
} finally {
  await system.close();
  await judge.close();
  await redis.destroy();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
}

const rate = (o: Outcome) => Math.round(((N * M) / o.wall_s) * 10) / 10;
const median = (xs: number[]) => {
  const t = xs.slice().sort((a, b) => a - b);
  return t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
};
const out = {
  samples: N * M,
  calls_per_sample: 2,
  workers: W,
  per_worker_concurrency: C,
  latency_ms: latency,
  ...Object.fromEntries(
    Object.entries(results).map(([v, os]) => [
      v,
      {
        // The median of the runs without a loss, and each (the journal's cost: claims and answers written, then deleted).
        no_loss_samples_per_s: median(os.slice(0, noLossRuns).map(rate)),
        no_loss_samples_per_s_each: os.slice(0, noLossRuns).map(rate),
        losses: os.slice(noLossRuns),
        extra_calls_total: os.slice(noLossRuns).reduce((sum, o) => sum + o.extra_calls, 0),
      },
    ]),
  ),
  load_avg_1m: Math.round(loadavg()[0] * 100) / 100,
};
process.stdout.write(JSON.stringify(out, null, values.json ? 0 : 2) + '\n');
