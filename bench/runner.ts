/**
 * `npm run bench:runner [-- --inputs 200 --samples 10 --latency 20 --concurrency 32 --warmup 256 --json F]`
 *
 * Runner overhead: 200 inputs × 10 samples (2,000 generations), 3 validators, against the local
 * OpenAI-compatible mock server answering after 20 ms, at concurrency 32, through the real `openai`
 * system and a real SQLite store in a temp dir. Prints JSON { calls, wall_s, ideal_s, overhead_ratio,
 * peak_rss_mb } with ideal_s = ceil(calls / concurrency) × latency and overhead_ratio = wall_s / ideal_s,
 * plus context: this process's CPU per call (robust to other load on the machine, unlike wall time), the
 * mock server's CPU, and a run against an in-process 20 ms system (`no_http`: the runner and store alone).
 *
 * The npm script compiles this file and what it imports with tsc (bench/tsconfig.runner.json, into
 * node_modules/.cache/assay-bench) and runs the JavaScript with plain node, as `assay` runs from dist/,
 * so the TypeScript loader is not measured. The mock server runs in a child process (this same file with
 * --serve), so its request handling does not share the runner's event loop; peak_rss_mb is this process's.
 * Before the timed run, `--warmup` calls (default 256; 0 for a cold start) go through the same client and
 * connection pool so that JIT compilation and connection set-up are not counted as runner overhead.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Validator } from '../src/core/validator.js';
import { OpenAISystem } from '../src/providers/openai.js';
import { limitedWorkers } from '../src/run/limit.js';
import { runExperiment } from '../src/run/runner.js';
import { openSqliteStore } from '../src/store/sqlite.js';
import { startMockOpenAI } from '../src/mock/openai.js';
import { builtinValidator } from '../src/validators/builtin.js';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    inputs: { type: 'string', default: '200' },
    samples: { type: 'string', default: '10' },
    latency: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '256' },
    json: { type: 'string' },
  },
});

if (values.serve) {
  // Child: the mock LLM API. Reports its URL, then serves until the parent says stop.
  const latency = Number(values.latency);
  const mock = await startMockOpenAI({
    chat: (body) => ({ content: `Answer to ${String(body.messages.at(-1)?.content)}: it is fine, and I am glad.`, delayMs: latency }),
  });
  process.send!({ baseURL: mock.baseURL });
  process.on('message', async () => {
    const cpu = process.cpuUsage();
    process.send!({
      maxInFlight: mock.maxInFlight,
      requests: mock.requests.filter((r) => (r.body as { model?: string }).model === 'bench').length,
      cpuS: (cpu.user + cpu.system) / 1e6,
    });
    await mock.close();
    process.exit(0);
  });
} else {
  const N = Number(values.inputs);
  const M = Number(values.samples);
  const latencyMs = Number(values.latency);
  const concurrency = Number(values.concurrency);

  const server = fork(new URL(import.meta.url).pathname, ['--serve', '--latency', String(latencyMs)], { execArgv: process.execArgv });
  const ask = <T>(): Promise<T> => new Promise((resolve) => server.once('message', (m) => resolve(m as T)));
  const { baseURL } = await ask<{ baseURL: string }>();

  const dir = mkdtempSync(join(tmpdir(), 'assay-bench-runner-'));
  const store = openSqliteStore(join(dir, 'bench.db'));
  const validators: Validator[] = [
    builtinValidator({ name: 'short', minSuccess: 0.9 }, { type: 'words', max: 40 }),
    builtinValidator({ name: 'no_apology', minSuccess: 0.9 }, { type: 'not-contains', value: ['sorry', 'apolog'], ignoreCase: true }),
    { name: 'few_contractions', message: 'too many contractions', minSuccess: 0.9, predicate: (o) => (o.match(/'/g) ?? []).length <= 3 },
  ];
  const inputs = Array.from({ length: N }, (_, i) => `Question number ${i}`);
  const system = new OpenAISystem({ baseURL, model: 'bench' });
  const warmup = Number(values.warmup);
  if (warmup > 0) {
    const warm = new OpenAISystem({ baseURL, model: 'warmup' });
    await limitedWorkers(
      Array.from({ length: warmup }, (_, i) => i),
      concurrency,
      undefined,
      async (i) => {
        await warm.generate(`warm-up ${i}`, { signal: new AbortController().signal, sample: 0, inputIndex: 0 });
      },
    );
  }
  const rssBefore = process.memoryUsage().rss;

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await runExperiment({ experiment: { name: 'bench-runner', inputs, samples: M, validators }, system, store, concurrency, timeoutMs: 30_000 });
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const peakRss = process.resourceUsage().maxRSS;

  // The same run with a system that only waits `latency` ms in-process (no HTTP): the runner's and the
  // store's own share of the overhead, apart from the HTTP client's.
  const sleeper = {
    id: 'sleep',
    generate: () => new Promise<{ text: string; latencyMs: number }>((r) => setTimeout(() => r({ text: 'it is fine, and I am glad.', latencyMs }), latencyMs)),
  };
  const cpu1 = process.cpuUsage();
  const t1 = performance.now();
  await runExperiment({ experiment: { name: 'bench-runner-no-http', inputs, samples: M, validators }, system: sleeper, store, concurrency, timeoutMs: 30_000 });
  const wallNoHttp = (performance.now() - t1) / 1000;
  const cpuNoHttp = process.cpuUsage(cpu1);

  server.send('stop');
  const served = await ask<{ maxInFlight: number; requests: number; cpuS: number }>();
  await store.close();
  rmSync(dir, { recursive: true, force: true });

  const calls = N * M;
  const ideal = Math.ceil(calls / concurrency) * (latencyMs / 1000);
  const out = {
    calls,
    wall_s: round(wall, 3),
    ideal_s: round(ideal, 3),
    overhead_ratio: round(wall / ideal, 3),
    peak_rss_mb: round(peakRss / 1024, 1),
    // Context, not targets:
    // CPU time of this process during the timed run: unlike wall time, hardly moved by other load.
    cpu_s: round((cpu.user + cpu.system) / 1e6, 3),
    cpu_ms_per_call: round((cpu.user + cpu.system) / 1000 / (N * M), 3),
    cpu_system_share: round(cpu.system / (cpu.user + cpu.system), 2),
    rss_before_mb: round(rssBefore / 1048576, 1),
    warmup_calls: warmup,
    concurrency,
    latency_ms: latencyMs,
    validators: validators.length,
    status: result.status,
    requests_served: served.requests,
    max_in_flight: served.maxInFlight,
    mock_server: 'child process',
    mock_server_cpu_s: round(served.cpuS, 3),
    no_http: {
      wall_s: round(wallNoHttp, 3),
      overhead_ratio: round(wallNoHttp / ideal, 3),
      cpu_ms_per_call: round((cpuNoHttp.user + cpuNoHttp.system) / 1000 / (N * M), 3),
    },
    load_avg_1m: round(loadavg()[0], 2),
  };
  const text = JSON.stringify(out, null, 2);
  process.stdout.write(text + '\n');
  if (values.json) writeFileSync(values.json, text + '\n');
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
