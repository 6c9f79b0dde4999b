/**
 * `npm run bench:workers [-- --json] [--inputs 200 --samples 10 --latency 200 --concurrency 4 --limit-rps 20 --limited-samples 400 --limited-runs 5]`
 *
 * Distributed runs: one run of inputs × samples (default 2,000) against the local OpenAI-compatible mock
 * (in a process of its own, answering after 200 ms), queued with `runOnQueue` (what `assay run --queue` does)
 * and run by 1, 2 and 4 `assay worker` processes with the same per-worker concurrency, on a fresh PostgreSQL
 * database and a Redis key prefix of its own (both removed after). Then runs with 4 workers and a global
 * `rateLimit` on the system (`--limited-runs`, default 5, each with 4 fresh workers and no warm-up, so every
 * one includes cold first requests), the rate measured where it matters: request arrivals at the mock.
 *
 * Prints JSON: workers, samples_per_s (each count's run: samples / wall time from queuing to the last
 * sample stored), scaling_4 (4 workers / 1 worker), rate_limit_rps and max_rps_observed_1s (the most
 * requests that reached the mock in any one-second window, the maximum over all the limited runs; each
 * run's own in max_rps_observed_1s_per_run), with context. Each worker
 * count first runs a short warm-up run (connections, JIT) that is not timed. `--json`: JSON only, no progress
 * lines on stderr.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadExperiment } from '../src/config/load.js';
import { connectRedis, parseRedisUrl } from '../src/queue/connection.js';
import { runOnQueue } from '../src/queue/coordinator.js';
import { maxInWindow, spawnWorker, type WorkerProcess } from '../src/queue/testing/workers.js';
import { openStore } from '../src/store/open.js';
import { startMockProcess } from '../src/testing/mock-process.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    inputs: { type: 'string', default: '200' },
    samples: { type: 'string', default: '10' },
    latency: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '4' },
    'limit-rps': { type: 'string', default: '20' },
    'limited-samples': { type: 'string', default: '400' },
    'limited-runs': { type: 'string', default: '5' },
    pg: { type: 'string', default: process.env.ASSAY_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    redis: { type: 'string', default: process.env.ASSAY_TEST_REDIS ?? 'redis://127.0.0.1:6379' },
  },
});
const say = (line: string) => values.json || process.stderr.write(`bench:workers: ${line}\n`);
const [N, M, C, latency, limitRps, limitedSamples, limitedRuns] = [
  values.inputs,
  values.samples,
  values.concurrency,
  values.latency,
  values['limit-rps'],
  values['limited-samples'],
  values['limited-runs'],
].map(Number);

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-workers-'));
const dbName = `assay_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: values.pg });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(values.pg);
dbUrl.pathname = `/${dbName}`;
const store = dbUrl.toString();
const prefix = `assay-bench-${randomBytes(4).toString('hex')}`;
const queueUrl = `${values.redis}${values.redis.includes('?') ? '&' : '?'}prefix=${prefix}`;
const queue = parseRedisUrl(queueUrl);
const mock = await startMockProcess({ delayMs: latency, content: 'It is a fine day and I am glad to see it.' });

function config(name: string, inputs: number, samples: number, rateLimit = ''): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
system:
  openai: { baseURL: "${mock.baseURL}", model: bench }
${rateLimit ? `  rateLimit: { requestsPerMinute: ${rateLimit} }\n` : ''}inputs: [${Array.from({ length: inputs }, (_, i) => JSON.stringify(`Question number ${i}`)).join(', ')}]
samples: ${samples}
validators:
  - { name: short, check: { type: words, max: 40 }, minSuccess: 0.9 }
  - { name: few_contractions, predicate: "o => (o.match(/'/g) ?? []).length <= 3", minSuccess: 0.9 }
`,
  );
  return file;
}

/** Queue one run and wait for it; its samples per second from queuing to the last sample stored. */
async function timedRun(file: string): Promise<{ samples: number; seconds: number; status: string }> {
  const s = await openStore(store);
  const x = await loadExperiment(file);
  try {
    const t0 = performance.now();
    const r = await runOnQueue({ experiment: x, systemId: 'openai:bench', store: s, queue, pollMs: 50 });
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 'complete' || r.failed) throw new Error(`run ${r.run.id} ended ${r.status} with ${r.failed} failed job(s): ${r.firstError ?? ''}`);
    return { samples: r.run.N * r.run.M, seconds, status: r.status };
  } finally {
    x.dispose();
    await s.close();
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 where there is none. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

async function withWorkers<T>(k: number, f: (cpu: () => number) => Promise<T>): Promise<T> {
  const ws: WorkerProcess[] = Array.from({ length: k }, () => spawnWorker(['--queue', queueUrl, '--store', store, '--concurrency', String(C)]));
  try {
    await Promise.all(ws.map((w) => w.ready));
    return await f(() => ws.reduce((sum, w) => sum + cpuSeconds(w.child.pid), 0));
  } finally {
    for (const w of ws) w.child.kill('SIGTERM');
    await Promise.all(ws.map((w) => w.exited));
  }
}

const counts = [1, 2, 4];
const rates: number[] = [];
const walls: number[] = [];
const cpuMs: number[] = [];
const limited: { observed: number; achieved: number; samples: number }[] = [];
try {
  // One process migrates the new database before the workers open it together.
  await (await openStore(store)).close();
  for (const k of counts) {
    const r = await withWorkers(k, async (cpu) => {
      await timedRun(config(`warmup-${k}`, 8 * k, 4)); // connections, JIT, sandbox: not timed
      const before = cpu();
      const run = await timedRun(config(`bench-${k}`, N, M));
      return { ...run, cpu: cpu() - before };
    });
    rates.push(r.samples / r.seconds);
    cpuMs.push((r.cpu * 1000) / r.samples);
    walls.push(r.seconds);
    say(`${k} worker(s) × concurrency ${C}: ${r.samples} samples in ${r.seconds.toFixed(2)} s = ${(r.samples / r.seconds).toFixed(1)} samples/s`);
  }
  for (let run = 1; run <= limitedRuns; run++) {
    // Fresh workers, no warm-up: the limit must hold from each run's first, cold, requests.
    const r = await withWorkers(4, async () => {
      const before = (await mock.arrivals()).length;
      const timed = await timedRun(config(`limited-${run}`, limitedSamples / 10, 10, String(limitRps * 60)));
      const arrivals = (await mock.arrivals()).slice(before);
      return { observed: maxInWindow(arrivals, 1000), achieved: timed.samples / timed.seconds, samples: timed.samples };
    });
    limited.push(r);
    say(
      `limited run ${run}/${limitedRuns}, 4 fresh workers, rateLimit ${limitRps}/s: at most ${r.observed} requests in any one second at the mock, ${r.achieved.toFixed(1)} samples/s overall`,
    );
  }
} finally {
  await mock.close();
  const r = await connectRedis(queue);
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await r.del(...keys);
  } while (cursor !== '0');
  r.disconnect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const out = {
  workers: counts,
  samples_per_s: rates.map((r) => round(r, 1)),
  scaling_4: round(rates[2] / rates[0]),
  rate_limit_rps: limitRps,
  max_rps_observed_1s: Math.max(...limited.map((l) => l.observed)),
  max_rps_observed_1s_per_run: limited.map((l) => l.observed),
  // Context, not targets:
  samples: N * M,
  latency_ms: latency,
  per_worker_concurrency: C,
  ideal_samples_per_s: counts.map((k) => round((k * C * 1000) / latency, 1)),
  // samples_per_s / ideal: how much of the latency-bound ideal each count reached (a loaded machine lowers it).
  efficiency: counts.map((k, n) => round(rates[n] / ((k * C * 1000) / latency))),
  wall_s: walls.map((w) => round(w)),
  // CPU of all the worker processes per sample: what the work costs, whatever else the machine is doing.
  worker_cpu_ms_per_sample: cpuMs.map((c) => round(c, 1)),
  limited_runs: { runs: limited.length, samples_each: limited[0]?.samples, samples_per_s: limited.map((l) => round(l.achieved, 1)) },
  load_avg_1m: round(loadavg()[0]),
};
process.stdout.write(JSON.stringify(out, null, values.json ? 0 : 2) + '\n');
