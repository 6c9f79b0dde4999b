import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../ground/engine.js';
import type { KnowledgeBase } from '../ground/kb.js';
import { heaviestAnswer, syntheticKb } from '../ground/testing/heavy.js';
import type { AnalyzeRequest, GroundingEngine } from '../ground/types.js';
import type { ServerLimits } from './limits.js';
import { startServer, type ServerHandle } from './start.js';
import { PROMPTLY_MS } from '../testing/time.js';

/**
 * Issue 12: one large /analyze request froze `assay serve` (/healthz included) for seconds, and `--timeout`
 * still answered 200 after the work ran to its end. Here the real engine over a real KB serves the heaviest
 * request the limits accept (100,000 characters, 200 claims) through a real server.
 */
let kb: KnowledgeBase;
const answer = heaviestAnswer();
const servers: ServerHandle[] = [];

beforeAll(async () => {
  kb = await syntheticKb(40, 100);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The real engine, recording when each analysis runs and how it ended. */
function recordingEngine() {
  const runs: { start: number; end?: number; outcome?: 'report' | 'rejected'; reason?: unknown }[] = [];
  const engine: GroundingEngine = {
    async analyze(request: AnalyzeRequest, signal?: AbortSignal) {
      const run: (typeof runs)[number] = { start: performance.now() };
      runs.push(run);
      try {
        const report = await analyze(kb, request, {}, signal);
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
    const server = await serve(engine);
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
    // This process is the client too: before time-slicing, nothing (no /healthz reply either) could arrive while
    // an analysis ran, so no reply fell inside one. Now replies come in between the analysis's slices.
    const during = healthz.filter((h) => runs.some((r) => r.end !== undefined && h.at > r.start && h.at < r.end));
    expect(healthz.every((h) => h.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThanOrEqual(2);
  });

  it('answers 504 at the time limit and stops the analysis instead of finishing it', async () => {
    const { engine, runs } = recordingEngine();
    const server = await serve(engine, { requestTimeoutMs: 20 });
    const res = await heavy(server);
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: string }).error).toBe('timeout');
    await expect.poll(() => runs[0]?.outcome, { timeout: PROMPTLY_MS }).toBe('rejected');
    expect(String(runs[0].reason)).toMatch(/timeout/);
  });
});
