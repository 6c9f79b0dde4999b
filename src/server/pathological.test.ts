import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../ground/embedders/lexical.js';
import { ingest } from '../ground/kb/ingest.js';
import { createGroundingPool, type GroundingPool } from '../ground/pool/grounding.js';
import { WorkerPool } from '../ground/pool/pool.js';
import { spawnModuleWorker } from '../ground/pool/spawn.js';
import type { TestTask } from '../ground/pool/testing/test-worker.js';
import { heaviestAnswer } from '../ground/testing/heavy.js';
import type { GroundingEngine, GroundingReport } from '../ground/types.js';
import { startServer, type ServerHandle } from './start.js';
import { pathologicalAnswers } from './testing/pathological.js';
import { START_MS } from '../testing/time.js';
import { readFileSync } from 'node:fs';
import { cliCommand } from '../cli/testing/process.js';

/**
 * Issue 17: one request (99,999 spaces and "x") held `assay serve`'s only thread for 10.4 s, /healthz
 * included. Now every analysis runs in a worker thread. Here the pathological corpus goes through a real
 * server over a real KB; the main thread's event-loop delay is measured while it does (the server and this
 * test share the thread, so a blocked loop would show there whatever the machine's load), and /healthz is
 * polled throughout. The strict figure (/healthz ≤ 100 ms) is measured by `npm run bench:server`.
 */
let root = '';
let kbDir = '';
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-pathological-'));
  const docs = join(root, 'docs');
  await mkdir(docs);
  await writeFile(join(docs, 'tower.md'), '# The tower\n\nThe Eiffel Tower is in Paris. It was completed in 1889. It is 330 metres tall.\n');
  await writeFile(join(docs, 'router.txt'), 'Opened routers can be returned within 14 days. The X200 router supports 5G and reboots in about two minutes.\n');
  kbDir = join(root, 'kb');
  await ingest(kbDir, [docs], { embedder: createLexicalEmbedder(), cwd: root });
});

afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
  await rm(root, { recursive: true, force: true });
});

async function serve(engine: GroundingEngine, limits: Record<string, number> = {}): Promise<ServerHandle> {
  const server = await startServer({ port: 0, engine, log: false, limits: { rateBurst: 10_000, ratePerSecond: 10_000, ...limits } });
  cleanup.push(() => server.close());
  return server;
}

async function groundingPool(options: { workers?: number; queue?: number } = {}): Promise<GroundingPool> {
  const pool = await createGroundingPool({ kbDir, workers: 2, ...options });
  cleanup.push(() => pool.close());
  return pool;
}

const post = (url: string, body: unknown) =>
  fetch(`${url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** GET /healthz every 20 ms until `until` settles: each reply's status (0: no reply) and latency. */
async function pollHealthz(url: string, until: Promise<unknown>): Promise<{ status: number; ms: number }[]> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => {});
  const polls: { status: number; ms: number }[] = [];
  do {
    const t0 = performance.now();
    // a connection the server dropped counts as status 0
    const status = await fetch(`${url}/healthz`).then(
      async (res) => (await res.arrayBuffer(), res.status),
      () => 0,
    );
    polls.push({ status, ms: performance.now() - t0 });
    await new Promise((r) => setTimeout(r, 20));
  } while (!done);
  return polls;
}

describe('the pathological corpus against a real server', () => {
  it('answers every one well-formed (its status, or 504), and the event loop stays free throughout', async () => {
    const pool = await groundingPool();
    // A body limit that lets every answer in: 100,000 characters of a 3-byte script, or JSON-escaped control
    // characters, are more than the default 256 KiB (413).
    const server = await serve(pool, { requestTimeoutMs: 60_000, maxBodyBytes: 1 << 20 });
    const corpus = pathologicalAnswers();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const results: { name: string; expected: number; status: number; body: Record<string, unknown> }[] = [];
    const work = (async () => {
      // Three at a time: two running, one waiting in the queue.
      for (let i = 0; i < corpus.length; i += 3) {
        await Promise.all(
          corpus.slice(i, i + 3).map(async (p) => {
            const res = await post(server.url, { query: 'What does it say?', answer: p.answer });
            results.push({ name: p.name, expected: p.status, status: res.status, body: (await res.json()) as Record<string, unknown> });
          }),
        );
      }
    })();
    const polls = await pollHealthz(server.url, work);
    await work;
    loop.disable();

    expect(results).toHaveLength(corpus.length);
    for (const r of results) {
      expect([r.expected, 504], r.name).toContain(r.status);
      if (r.status === 200) {
        const report = r.body as unknown as GroundingReport;
        expect(report.claims_analysis.length, r.name).toBeGreaterThan(0);
        expect(['LOW', 'MEDIUM', 'HIGH'], r.name).toContain(report.hallucination_risk);
        expect(report.answer, r.name).toBe(corpus.find((p) => p.name === r.name)?.answer);
      } else {
        expect(r.body, r.name).toMatchObject({ error: r.status === 504 ? 'timeout' : 'invalid_request', message: expect.any(String) });
      }
    }
    expect(pool.stats()).toMatchObject({ crashed: 0 });
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((p) => p.status === 200)).toBe(true);
    // On the event loop, the one request held it for 10–30 s; off it, the longest delay is ≈0.3 s on an
    // idle machine. The bound leaves a loaded machine (two suites on two cores) 15 times that.
    expect(loop.max / 1e6).toBeLessThan(5_000);
  }, 240_000);

  it('answers 504 at the time limit and serves the next request (the worker was replaced)', async () => {
    const pool = await groundingPool({ workers: 1 });
    const server = await serve(pool, { requestTimeoutMs: 1 });
    const res = await post(server.url, { query: 'q', answer: heaviestAnswer() });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: 'timeout', message: 'the analysis did not finish within 1 ms' });
    expect(pool.stats().terminated).toBe(1);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await expect.poll(() => pool.stats().idle, { timeout: START_MS }).toBe(1);
    const server2 = await serve(pool, { requestTimeoutMs: 60_000 });
    const next = await post(server2.url, { query: 'q', answer: 'The Eiffel Tower is in Paris.' });
    expect(next.status).toBe(200);
  });
});

describe('a worker that crashes or a pool that is full, through HTTP', () => {
  /** The pool's own test worker behind the GroundingEngine interface: real threads, a real OOM. */
  async function testWorkerServer() {
    const pool = await WorkerPool.start<TestTask, unknown>({
      size: 1,
      queue: 0,
      spawn: () => spawnModuleWorker(new URL('../ground/pool/testing/test-worker', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 32 } }),
    });
    cleanup.push(() => pool.close());
    const engine: GroundingEngine = {
      async analyze(request, signal) {
        const op: TestTask = request.query === 'oom' ? { op: 'oom' } : request.query === 'sleep' ? { op: 'sleep', ms: 3_000 } : { op: 'echo', value: 1 };
        await pool.run(op, signal);
        return {
          query: request.query,
          answer: '',
          confidence_score: 1,
          hallucination_risk: 'LOW',
          evidence_coverage: 'FULL',
          unsupported_claims: [],
          claims_analysis: [],
          hallucination_flag: false,
          partial: false,
        };
      },
    };
    return { pool, server: await serve(engine) };
  }

  it('answers 500 with a clear error when the analysis runs out of memory, and goes on serving', async () => {
    const { pool, server } = await testWorkerServer();
    const res = await post(server.url, { query: 'oom', answer: 'x' });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: 'analysis_crashed',
      message: 'the analysis of this request ran out of memory; its worker was replaced and the service goes on',
    });
    // its replacement loads, then serves (with no queue, a request before that gets 503)
    await expect.poll(() => pool.stats().idle, { timeout: START_MS }).toBe(1);
    expect((await post(server.url, { query: 'fine', answer: 'x' })).status).toBe(200);
    expect(pool.stats()).toMatchObject({ crashed: 1, started: 2 });
  });

  it('answers 503 with Retry-After when every worker is busy and the queue is full', async () => {
    const { pool, server } = await testWorkerServer();
    const busy = post(server.url, { query: 'sleep', answer: 'x' });
    await expect.poll(() => pool.stats().busy, { timeout: START_MS }).toBe(1);
    const refused = await post(server.url, { query: 'fine', answer: 'x' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'overloaded', message: expect.stringContaining('1 analysis workers are busy') });
    expect((await busy).status).toBe(200);
  });
});

describe('issue 17 reproducer: `assay serve` and an answer of 99,999 spaces and "x"', () => {
  it('keeps answering /healthz while it analyses (it was blocked for 10.4 s)', async () => {
    const child = spawn(process.execPath, [...cliCommand(), 'serve', '--kb', kbDir, '--port', '0'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    cleanup.push(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), START_MS);
      child.stderr!.on('data', (d) => {
        stderr += d;
        const m = /serving on (http:\/\/\S+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const answer = ' '.repeat(99_999) + 'x';
    // The CPU time of the server's main thread while it answers, not the polls' latency: a loaded machine can
    // delay a poll for seconds, but cannot give the main thread CPU time it did not use. The request held
    // it for 10.4 s of work; off the loop, it uses ≈50 ms.
    const mainCpuMs = () => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1e6;
    const linux = process.platform === 'linux';
    const before = linux ? mainCpuMs() : 0;
    const request = post(url, { query: 'q', answer });
    const polls = await pollHealthz(url, request);
    const res = await request;
    const used = linux ? mainCpuMs() - before : 0;
    expect(res.status).toBe(200);
    expect(((await res.json()) as GroundingReport).claims_analysis.map((c) => c.claim)).toEqual(['x']);
    expect(polls.every((p) => p.status === 200)).toBe(true);
    expect(used, 'ms of CPU on the main thread').toBeLessThan(2_000);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
