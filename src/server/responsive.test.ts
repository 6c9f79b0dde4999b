import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveKnowledgeBase } from '../ground/kb/kb-store.js';
import { createGroundingPool, type GroundingPool } from '../ground/pool/grounding.js';
import { heaviestAnswer, syntheticKb } from '../ground/testing/heavy.js';
import type { AnalyzeRequest, GroundingEngine } from '../ground/types.js';
import type { ServerLimits } from './limits.js';
import { startServer, type ServerHandle } from './start.js';
import { PROMPTLY_MS } from '../testing/time.js';

/**
 * Issue 12: one large /analyze request froze `assay serve` (/healthz included) for seconds, and `--timeout`
 * still answered 200 after the work ran to its end. Here the worker pool over a real KB serves the heaviest
 * request the limits accept (100,000 characters, 200 claims) through a real server.
 */
let dir = '';
let pool: GroundingPool;
const answer = heaviestAnswer();
const servers: ServerHandle[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assay-responsive-'));
  await saveKnowledgeBase(await syntheticKb(40, 100), join(dir, 'kb'));
  pool = await createGroundingPool({ kbDir: join(dir, 'kb'), workers: 2 });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await pool?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The pool, recording when each analysis runs (as this thread sees it) and how it ended. */
function recordingEngine() {
  const runs: { start: number; end?: number; outcome?: 'report' | 'rejected'; reason?: unknown }[] = [];
  const engine: GroundingEngine = {
    async analyze(request: AnalyzeRequest, signal?: AbortSignal) {
      const run: (typeof runs)[number] = { start: performance.now() };
      runs.push(run);
      try {
        const report = await pool.analyze(request, signal);
        run.outcome = 'report';
        return report;
      } catch (err) {
        run.outcome = 'rejected';
        run.reason = err;
        throw err;
      } finally {
        run.end = performance.now();
      }
    },
  };
  return { engine, runs };
}

async function serve(engine: GroundingEngine, limits: Partial<ServerLimits> = {}) {
  const server = await startServer({ port: 0, engine, log: false, limits: { rateBurst: 100, ...limits } });
  servers.push(server);
  return server;
}

const heavy = (server: ServerHandle) =>
  fetch(`${server.url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'q', answer }) });

describe('a heavy /analyze request does not freeze the server', () => {
  it('answers /healthz while analyses of the heaviest accepted request are running', async () => {
    const { engine, runs } = recordingEngine();
    // The deadline is not what this test is about: on a loaded machine the default one could answer 504.
    const server = await serve(engine, { requestTimeoutMs: 300_000 });
    const requests = [heavy(server), heavy(server), heavy(server)];
    let finished = false;
    const all = Promise.all(requests).finally(() => (finished = true));
    const healthz: { at: number; ms: number; status: number }[] = [];
    while (!finished) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      healthz.push({ at: performance.now(), ms: performance.now() - t0, status: res.status });
    }
    const responses = await all;
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of responses) expect(((await r.json()) as { claims_analysis: unknown[] }).claims_analysis).toHaveLength(200);
    // This process is the client too: when analyses ran on this thread, nothing (no /healthz reply either) could
    // arrive while one ran, so no reply fell inside one. Now they run in worker threads.
    const during = healthz.filter((h) => runs.some((r) => r.end !== undefined && h.at > r.start && h.at < r.end));
    expect(healthz.every((h) => h.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThanOrEqual(2);
  });

  it('answers 504 at the time limit and stops the analysis (its worker is terminated) instead of finishing it', async () => {
    const { engine, runs } = recordingEngine();
    const server = await serve(engine, { requestTimeoutMs: 1 });
    // Both workers idle first (a worker replaced earlier may still be starting): a queued job that times out is
    // dropped from the queue, and no worker is terminated for it.
    await expect.poll(() => pool.stats().idle, { timeout: 60_000 }).toBe(2);
    const terminated = pool.stats().terminated;
    const res = await heavy(server);
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: string }).error).toBe('timeout');
    await expect.poll(() => runs[0]?.outcome, { timeout: PROMPTLY_MS }).toBe('rejected');
    expect(String(runs[0].reason)).toMatch(/timeout/);
    expect(pool.stats().terminated).toBe(terminated + 1);
  });
});
