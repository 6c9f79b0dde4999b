/**
 * `npm run bench:outage [-- --json] [--bounds 5,15,30] [--services queue,worker,store]`
 *
 * Outage bounds (issue 30): a service that goes silent mid-run — it keeps the connection and answers
 * nothing — made by a TCP proxy that stops forwarding (src/testing/throwaway.ts) in front of the shared Redis
 * or PostgreSQL. For each bound (`--outage-timeout`) and each process that waits: `queue`, an `assay run
 * --queue` waiting on a worker (the worker reaches Redis directly); `worker`, an `assay worker` with no job in
 * hand; `store`, a local `assay run` on a PostgreSQL store. Measured: the time from the silence to the
 * process's exit (exit_s) and the figure its last line gives for how long the service was away (said_s).
 *
 * Prints JSON: one row per service and bound (bound_s, exit_s, said_s, over_s = exit_s − bound_s, exit
 * code), with the load average. `--json`: JSON only, no progress lines on stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCliProcess } from '../src/cli/testing/process.js';
import { startMockOpenAI } from '../src/mock/openai.js';
import { spawnWorker, type WorkerProcess } from '../src/queue/testing/workers.js';
import { createTestDatabase, redisForTests } from '../src/testing/services.js';
import { mockRunYaml, requestsReach, silencedUntil, unreachableFor } from '../src/testing/silence.js';
import { pausableProxy, type PausableProxy } from '../src/testing/throwaway.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    bounds: { type: 'string', default: '5,15,30' },
    services: { type: 'string', default: 'queue,worker,store' },
  },
});
const say = (line: string) => values.json || process.stderr.write(`bench:outage: ${line}\n`);
const bounds = values.bounds.split(',').map(Number);
const services = values.services.split(',');

const dir = mkdtempSync(join(tmpdir(), 'assay-bench-outage-'));
const redis = await redisForTests();
const db = await createTestDatabase();
if (!redis || !db) throw new Error('bench:outage needs the shared Redis and PostgreSQL');
// 200 ms an answer: a run of 400 samples at concurrency 2 lasts 40 s, longer than any bound measured.
const mock = await startMockOpenAI({ chat: () => ({ content: 'a fine answer', delayMs: 200 }) });
const config = (name: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, mockRunYaml(name, mock.baseURL, 40, 10));
  return file;
};

const round = (x: number) => Math.round(x * 10) / 10;

interface Row {
  service: string;
  bound_s: number;
  exit_s: number;
  said_s: number;
  over_s: number;
  code: number | null;
}

async function measure(service: string, bound: number, proxy: PausableProxy): Promise<Row> {
  const name = `${service}-${bound}`;
  const workers: WorkerProcess[] = [];
  try {
    let ended: Promise<{ code: number | null; text: string }>;
    if (service === 'worker') {
      const w = spawnWorker([
        '--queue',
        `redis://127.0.0.1:${proxy.port}?prefix=${redis!.prefix}-${name}`,
        '--store',
        join(dir, `${name}.db`),
        '--outage-timeout',
        `${bound}s`,
      ]);
      workers.push(w);
      await w.ready;
      ended = w.exited.then((x) => ({ code: x.code, text: w.log() }));
    } else {
      const before = mock.requests.length;
      let args: string[];
      if (service === 'queue') {
        const prefix = `${redis!.prefix}-${name}`;
        const store = join(dir, `${name}.db`);
        const w = spawnWorker(['--queue', `${redis!.url}?prefix=${prefix}`, '--store', store, '--concurrency', '2']);
        workers.push(w);
        await w.ready;
        args = ['run', config(name), '--queue', `redis://127.0.0.1:${proxy.port}?prefix=${prefix}`, '--store', store];
      } else {
        const u = new URL(db!.url);
        u.port = String(proxy.port);
        u.searchParams.set('schema', name.replace(/-/g, '_'));
        args = ['run', config(name), '--store', u.toString(), '--concurrency', '2'];
      }
      ended = runCliProcess([...args, '--no-progress', '--outage-timeout', `${bound}s`]).then((r) => ({ code: r.code, text: r.err }));
      await requestsReach(mock, before, 10);
    }
    const { result: r, tookS } = await silencedUntil(proxy, ended);
    return { service, bound_s: bound, exit_s: round(tookS), said_s: unreachableFor(r.text), over_s: round(tookS - bound), code: r.code };
  } finally {
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await w.exited;
    }
  }
}

const rows: Row[] = [];
try {
  for (const service of services) {
    for (const bound of bounds) {
      const target = service === 'store' ? Number(new URL(db.url).port || 5432) : Number(new URL(redis.url).port || 6379);
      const proxy = await pausableProxy(target);
      try {
        const row = await measure(service, bound, proxy);
        say(JSON.stringify(row));
        rows.push(row);
      } finally {
        await proxy.close();
      }
    }
  }
} finally {
  await mock.close();
  await redis.drop();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
}
const out = { rows, load_avg_1m: round(loadavg()[0]), cores: cpus().length };
process.stdout.write(JSON.stringify(out, null, values.json ? 0 : 2) + '\n');
