/**
 * npm run bench:server [-- --json] — the service under load it should survive (issues 12 and 17); a summary, or
 * with --json one JSON object.
 *  - claims: claim extraction on 100,000-character answers (the reproducer "e.g. " × 19,999 + "x" among them);
 *  - corpus: every answer of the pathological corpus (src/server/testing/pathological.ts: runs of spaces, table
 *    rules, giant tokens, deep nesting, …) sent to `assay serve --kb` in its own process, two at a time, while
 *    /healthz is polled every 10 ms: its p50/p99/max, and each answer's status and time. BENCH_SERVE_ROOT=<dir>
 *    runs the `assay serve` of another checkout (e.g. the previous release) for before/after figures;
 *  - loop: the event-loop delay of this process while the worker pool analyses the heaviest request;
 *  - healthz: GET /healthz latency while the heaviest request /analyze accepts (100,000 characters, 200 claims)
 *    runs, one stream and three concurrent streams, against `assay serve --kb` in its own process;
 *  - timeout: `--timeout 50` on the heaviest request: the status, and the server's CPU after the 504 (the work
 *    stopped when this stays near zero);
 *  - flood: 20,000 connections that send half a request and stay (two client processes, as one process may
 *    hold at most its descriptor limit), then /healthz latency and the server's open descriptors;
 *  - slowloris: with the default limits, when the server closes a connection whose headers never finish (20 s)
 *    and one whose body trickles (60 s). Takes a minute; BENCH_ONLY=claims,healthz,timeout,flood skips it.
 *  - grading: /healthz under a flood of grade posts and after a 1M-grade import (bench/server-grading.ts);
 *    BENCH_GRADING_BEFORE_ROOT=<dir> serves the imported store with another checkout's `assay serve` too, first,
 *    for before/after figures side by side in one run.
 * Not a test: figures for docs/server.md. Medians of repeated runs where it says so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { segmentClaimSpans } from '../src/ground/claims/claims.js';
import { createGroundingPool } from '../src/ground/pool/grounding.js';
import { saveKnowledgeBase } from '../src/ground/kb/kb-store.js';
import { heaviestAnswer, syntheticKb } from '../src/ground/testing/heavy.js';
import { pathologicalAnswers } from '../src/server/testing/pathological.js';
import { gradingBench } from './server-grading.js';

const r1 = (x: number) => Math.round(x * 10) / 10;
const pct = (xs: number[], q: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] : NaN);
const median = (xs: number[]) => pct(xs, 0.5);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function claims() {
  const inputs: Record<string, string> = {
    'reproducer: "e.g. " × 19,999 + "x"': 'e.g. '.repeat(19_999) + 'x',
    'heaviest accepted answer (200 claims)': heaviestAnswer(),
    '"U.S. " × 20,000': 'U.S. '.repeat(20_000),
    '"J. " × 33,333': 'J. '.repeat(33_333),
    '"The cat sat on the mat. " × 4,167': 'The cat sat on the mat. '.repeat(4_167),
  };
  const out: Record<string, { chars: number; claims: number; median_ms: number; max_ms: number }> = {};
  for (const [name, text] of Object.entries(inputs)) {
    segmentClaimSpans(text); // warm-up
    const times: number[] = [];
    let n = 0;
    for (let r = 0; r < 7; r++) {
      const t0 = performance.now();
      n = segmentClaimSpans(text).length;
      times.push(performance.now() - t0);
    }
    out[name] = { chars: text.length, claims: n, median_ms: r1(median(times)), max_ms: r1(Math.max(...times)) };
  }
  return { runs: 7, ...out, target: '100,000 characters in ≤ 200 ms' };
}

/** `assay serve` in its own process; resolves with its URL once it listens. */
async function serve(
  args: string[],
  cwd: string,
  root = process.env.BENCH_SERVE_ROOT,
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const cli = root ? join(root, 'src/cli/main.ts') : fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), cli, 'serve', '--port', '0', '--rate', '1000000', '--burst', '1000000', ...args],
    {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`assay serve did not start: ${stderr}`)), 120_000);
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
      const m = /serving on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`assay serve exited with ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
  return { url, child, stop };
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const analyze = (url: string, answer: string) =>
  fetch(`${url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'q', answer }) });

/** Polls /healthz every `everyMs` until `until` settles; latencies in ms. */
async function pollHealthz(url: string, until: Promise<unknown>, everyMs = 10): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const lat: number[] = [];
  while (!done) {
    const t0 = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    lat.push(performance.now() - t0);
    await sleep(everyMs);
  }
  return lat;
}

async function healthzUnderLoad(url: string) {
  const answer = heaviestAnswer();
  const summary = (lat: number[]) => ({ polls: lat.length, p50_ms: r1(pct(lat, 0.5)), p99_ms: r1(pct(lat, 0.99)), max_ms: r1(Math.max(...lat)) });
  const out: Record<string, unknown> = {};
  for (const streams of [1, 3]) {
    const heavy: number[] = [];
    const work = Promise.all(
      Array.from({ length: streams }, async () => {
        for (let n = 0; n < 5; n++) {
          const t0 = performance.now();
          const res = await analyze(url, answer);
          if (res.status !== 200) throw new Error(`/analyze answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
          heavy.push(performance.now() - t0);
        }
      }),
    );
    const lat = await pollHealthz(url, work);
    await work;
    out[`${streams}_stream${streams > 1 ? 's' : ''}`] = { heavy_requests: heavy.length, heavy_median_ms: r1(median(heavy)), healthz: summary(lat) };
  }
  const t0 = performance.now();
  const res = await analyze(url, 'e.g. '.repeat(19_999) + 'x');
  await res.arrayBuffer();
  out.reproducer_request = { status: res.status, ms: r1(performance.now() - t0) };
  return { ...out, target: '/healthz within 100 ms while the heaviest allowed request runs' };
}

/**
 * The heaviest request analysed by the worker pool of this process, with Node's event-loop delay histogram:
 * how long the main thread (where a server's I/O runs) was held at most, without the HTTP round trip.
 */
async function loopDelay(kbDir: string) {
  const answer = heaviestAnswer();
  const pool = await createGroundingPool({ kbDir, workers: 2 });
  const out: Record<string, unknown> = {};
  try {
    for (const concurrent of [1, 3]) {
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      for (let r = 0; r < 3; r++) await Promise.all(Array.from({ length: concurrent }, () => pool.analyze({ query: 'q', answer })));
      h.disable();
      out[`${concurrent}_concurrent`] = {
        analyses: 3 * concurrent,
        p50_ms: r1(h.percentile(50) / 1e6),
        p99_ms: r1(h.percentile(99) / 1e6),
        max_ms: r1(h.max / 1e6),
      };
    }
  } finally {
    await pool.close();
  }
  return { ...out, workers: 2, note: 'event-loop delay of the main thread while the pool analyses (perf_hooks, 5 ms resolution)' };
}

/**
 * A separate process that polls `url`/healthz every `everyMs` until told to stop, so that the latencies are not
 * those of this process's own event loop (which builds and reads the large requests meanwhile).
 */
function healthzPoller(url: string, everyMs = 10): { stop: () => Promise<{ ms: number[]; failed: number }> } {
  const code = `const lat=[];let failed=0,stop=false;process.on('message',()=>{stop=true;});
(async()=>{while(!stop){const t0=performance.now();try{const r=await fetch(${JSON.stringify(url + '/healthz')});await r.arrayBuffer();if(r.status!==200)failed++;}catch{failed++;}
lat.push(performance.now()-t0);await new Promise((r)=>setTimeout(r,${everyMs}));}process.send({ms:lat,failed},()=>process.exit(0));})();`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as { ms: number[]; failed: number }));
        child.send('stop');
      }),
  };
}

/** CPU time (ms) of the server's main thread (its thread id is the process id) and of the whole process. */
function threadCpuMs(pid: number): { main: number; all: number } {
  const ticks = (stat: string) => {
    const f = stat.split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  };
  return { main: ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')), all: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')) };
}

/**
 * The pathological corpus through `assay serve`, two requests at a time, /healthz polled every 10 ms throughout
 * by another process; and how much CPU the server's main thread (its I/O) used meanwhile, against the whole process.
 */
async function corpus(url: string, pid: number) {
  const answers = pathologicalAnswers();
  const rows: { name: string; status: number; ms: number }[] = [];
  let next = 0;
  const poller = healthzPoller(url);
  await sleep(300); // the poller's first requests
  const cpu0 = threadCpuMs(pid);
  const t0 = performance.now();
  await Promise.all(
    [0, 1].map(async () => {
      while (next < answers.length) {
        const p = answers[next++];
        const t1 = performance.now();
        // status 0: the server closed the connection without an answer
        const status = await analyze(url, p.answer).then(
          async (res) => (await res.arrayBuffer(), res.status),
          () => 0,
        );
        rows.push({ name: p.name, status, ms: r1(performance.now() - t1) });
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpu1 = threadCpuMs(pid);
  const { ms: lat, failed } = await poller.stop();
  const statuses: Record<string, number> = {};
  for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const slowest = [...rows].sort((a, b) => b.ms - a.ms).slice(0, 5);
  return {
    answers: answers.length,
    statuses,
    healthz: { polls: lat.length, failed, p50_ms: r1(pct(lat, 0.5)), p99_ms: r1(pct(lat, 0.99)), max_ms: r1(Math.max(...lat)) },
    wall_s: r1(wall / 1000),
    server_cpu_ms: { main_thread: cpu1.main - cpu0.main, whole_process: cpu1.all - cpu0.all },
    slowest,
    per_answer: rows,
    target: '/healthz within 100 ms throughout',
  };
}

async function timeout(kbDir: string, cwd: string) {
  const { url, child, stop } = await serve(['--kb', kbDir, '--timeout', '50'], cwd);
  try {
    const answer = heaviestAnswer();
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    const runs: { status: number; ms: number; cpu_after_ms: number }[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      const res = await analyze(url, answer);
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      const cpu0 = cpuMs(child.pid!);
      await sleep(1000);
      runs.push({ status: res.status, ms: r1(ms), cpu_after_ms: cpuMs(child.pid!) - cpu0 });
    }
    return {
      server: 'assay serve --timeout 50',
      statuses: runs.map((r) => r.status),
      response_median_ms: r1(median(runs.map((r) => r.ms))),
      server_cpu_in_the_second_after_the_504_ms: runs.map((r) => r.cpu_after_ms),
      note: 'CPU is counted in 10 ms ticks, and includes the replacement worker loading the KB; an analysis that ran on would keep the server busy for its full length',
    };
  } finally {
    await stop();
  }
}

/** A client process holding `n` connections that each sent half a request; resolves once all are open. */
function floodProcess(port: number, n: number): Promise<{ child: ChildProcess; opened: number; failed: number }> {
  const code = `const net=require('net');let opened=0,failed=0,pending=${n};const socks=[];
function done(){if(--pending===0)process.send({opened,failed});}
for(let i=0;i<${n};i++){const s=net.connect(${port},'127.0.0.1');socks.push(s);let counted=false;
s.on('connect',()=>{opened++;counted=true;s.write('GET /healthz HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Slow: ');done();});
s.on('error',()=>{if(!counted){failed++;counted=true;done();}});}
process.on('message',()=>process.exit(0));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve) => child.once('message', (m) => resolve({ child, ...(m as { opened: number; failed: number }) })));
}

async function flood(url: string, pid: number) {
  const port = Number(new URL(url).port);
  const fds = () => readdirSync(`/proc/${pid}/fd`).length;
  const before = fds();
  const t0 = performance.now();
  const clients = await Promise.all([floodProcess(port, 10_000), floodProcess(port, 10_000)]);
  const openSeconds = (performance.now() - t0) / 1000;
  await sleep(500);
  const lat: number[] = [];
  const statuses: number[] = [];
  for (let n = 0; n < 20; n++) {
    const s = performance.now();
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      statuses.push(res.status);
    } catch {
      statuses.push(0);
    }
    lat.push(performance.now() - s);
  }
  const during = fds();
  for (const c of clients) c.child.send('stop');
  await sleep(500);
  return {
    connections: 20_000,
    client_processes: 2,
    connected: clients.reduce((s, c) => s + c.opened, 0),
    refused_at_connect: clients.reduce((s, c) => s + c.failed, 0),
    seconds_to_open: r1(openSeconds),
    server_fds_before: before,
    server_fds_during: during,
    healthz_statuses: [...new Set(statuses)],
    healthz_p50_ms: r1(pct(lat, 0.5)),
    healthz_max_ms: r1(Math.max(...lat)),
    server_limit: 'maxConnections 512 (default): the oldest half-sent connections are closed to make room',
  };
}

async function slowloris(url: string) {
  const port = Number(new URL(url).port);
  const probe = (send: (s: ReturnType<typeof connect>) => void) =>
    new Promise<{ closed_after_s: number; reply: string }>((resolve) => {
      const t0 = performance.now();
      const s = connect(port, '127.0.0.1');
      let reply = '';
      s.on('data', (d) => (reply += d));
      s.on('error', () => {});
      s.on('connect', () => send(s));
      s.on('close', () => resolve({ closed_after_s: r1((performance.now() - t0) / 1000), reply: reply.split('\r\n')[0] }));
    });
  let trickle: NodeJS.Timeout | undefined;
  const [headers, body] = await Promise.all([
    probe((s) => s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n')),
    probe((s) => {
      s.write('POST /analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
      trickle = setInterval(() => s.write(' '), 1000);
      s.on('close', () => clearInterval(trickle));
    }),
  ]);
  return { headers_never_finish: headers, body_trickles: body, documented: 'headers within 20 s, the whole request within 60 s' };
}

// BENCH_ONLY=claims,corpus,loop,healthz,timeout,flood,slowloris,grading runs a subset (default: all).
const only = process.env.BENCH_ONLY?.split(',');
const asJson = process.argv.includes('--json');
const want = (name: string) => !only || only.includes(name);
const result: Record<string, unknown> = { bench: 'server-resilience', node: process.version, load_avg_1m: r1(loadavg()[0]) };
if (want('claims')) result.claims = claims();
if (['corpus', 'healthz', 'loop', 'timeout', 'flood', 'slowloris'].some(want)) {
  const dir = await mkdtemp(join(tmpdir(), 'assay-bench-server-'));
  try {
    const t0 = performance.now();
    // ~10,000 chunks, as in bench:grounding-speed (BENCH_KB_DOCS scales it).
    // Built in a block so that this process does not hold it while it measures its own event loop (its GC would).
    {
      const kb = await syntheticKb(Number(process.env.BENCH_KB_DOCS ?? 500), 300);
      await saveKnowledgeBase(kb, join(dir, 'kb'));
      result.kb = { chunks: kb.chunks.length, windows: kb.windowCount, build_s: r1((performance.now() - t0) / 1000) };
    }
    if (want('loop')) result.event_loop_delay_in_process = await loopDelay(join(dir, 'kb'));
    if (want('corpus') || want('healthz') || want('flood') || want('slowloris')) {
      // A body limit that lets every corpus answer in (100,000 characters of a 3-byte script exceed the default).
      const { url, child, stop } = await serve(['--kb', join(dir, 'kb'), '--max-body', String(1 << 20)], dir);
      try {
        if (want('corpus'))
          result.corpus_healthz = { serve: process.env.BENCH_SERVE_ROOT ? 'BENCH_SERVE_ROOT' : 'this checkout', ...(await corpus(url, child.pid!)) };
        if (want('healthz')) result.healthz_under_heaviest_request = await healthzUnderLoad(url);
        if (want('flood')) result.flood = await flood(url, child.pid!);
        if (want('slowloris')) result.slowloris = await slowloris(url);
      } finally {
        await stop();
      }
    }
    if (want('timeout')) result.timeout = await timeout(join(dir, 'kb'), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
if (want('grading')) {
  const dir = await mkdtemp(join(tmpdir(), 'assay-bench-grading-'));
  try {
    result.grading = await gradingBench(dir, serve, healthzPoller);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
else process.stdout.write(summary(result));

/** The headline figures, one line each (the JSON has them all). */
function summary(r: Record<string, unknown>): string {
  const lines = [`bench:server  node ${String(r.node)}  load ${String(r.load_avg_1m)}`];
  const c = r.corpus_healthz as { answers: number; statuses: object; healthz: Record<string, number>; slowest: { name: string; ms: number }[] } | undefined;
  if (c) {
    lines.push(`corpus: ${c.answers} pathological answers, statuses ${JSON.stringify(c.statuses)}`);
    lines.push(
      `  /healthz meanwhile: p50 ${c.healthz.p50_ms} ms, p99 ${c.healthz.p99_ms} ms, max ${c.healthz.max_ms} ms (${c.healthz.polls} polls; target ≤ 100 ms)`,
    );
    lines.push(`  slowest: ${c.slowest.map((s) => `${s.name} ${s.ms} ms`).join('; ')}`);
  }
  const h = r.healthz_under_heaviest_request as Record<string, { healthz?: Record<string, number> }> | undefined;
  for (const [k, v] of Object.entries(h ?? {}))
    if (v?.healthz) lines.push(`/healthz under the heaviest request, ${k}: p50 ${v.healthz.p50_ms} ms, p99 ${v.healthz.p99_ms} ms, max ${v.healthz.max_ms} ms`);
  const t = r.timeout as { statuses: number[]; response_median_ms: number } | undefined;
  if (t) lines.push(`--timeout 50: statuses ${t.statuses.join(', ')}, median ${t.response_median_ms} ms`);
  const g = r.grading as
    | Record<
        string,
        { healthz?: Record<string, number>; statuses?: object; seconds?: number; pages?: Record<string, { cold_ms: number; warm_ms: number }>; grades?: number }
      >
    | undefined;
  for (const [k, v] of Object.entries(g ?? {})) {
    if (!v?.healthz) continue;
    const what = v.statuses
      ? `statuses ${JSON.stringify(v.statuses)} in ${v.seconds} s`
      : `${v.grades} grades; pages ${Object.entries(v.pages ?? {})
          .map(([p, t]) => `${p} ${t.cold_ms}/${t.warm_ms} ms`)
          .join(', ')}`;
    lines.push(`grading ${k}: /healthz p50 ${v.healthz.p50_ms} ms, p99 ${v.healthz.p99_ms} ms, max ${v.healthz.max_ms} ms (goal p99 ≤ 100 ms); ${what}`);
  }
  return lines.join('\n') + '\n(--json for every figure)\n';
}
