import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerLimits } from './limits.js';
import { RateLimiter } from './limits.js';
import { startServer, type ServerHandle } from './start.js';
import { testEngine } from './testing/engine.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

const KB = 'The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall.';
let servers: ServerHandle[] = [];

async function serve(opts: { delayMs?: number; limits?: Partial<ServerLimits>; noEngine?: boolean } = {}) {
  const logs: string[] = [];
  const engine = testEngine(KB, { delayMs: opts.delayMs });
  const server = await startServer({ port: 0, engine: opts.noEngine ? undefined : engine, limits: opts.limits, log: (l) => logs.push(l) });
  servers.push(server);
  return { server, logs, engine };
}

function post(server: ServerHandle, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return fetch(`${server.url}/analyze`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

describe('POST /analyze', () => {
  it('audits a given answer and returns the design report; logs one line per request without the body', async () => {
    const { server, logs } = await serve();
    const res = await post(server, { query: 'Where is the Eiffel Tower?', answer: 'The Eiffel Tower is in Paris. It is made of cheese.', top_k: 3 });
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report.claims_analysis.map((c: { status: string }) => c.status)).toEqual(['STRONG', 'UNSUPPORTED']);
    expect(report.unsupported_claims).toEqual(['It is made of cheese.']);
    const requestLines = logs.map((l) => JSON.parse(l)).filter((l) => l.path);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ method: 'POST', path: '/analyze', status: 200 });
    expect(typeof requestLines[0].ms).toBe('number');
    expect(logs.join('\n')).not.toMatch(/cheese|Eiffel/);
  });

  it.each([
    [{}, 'query'],
    [{ query: 42 }, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 'q', answer: ['a'] }, 'answer'],
    [{ query: 'q', answer: 'a', top_k: 0 }, 'top_k'],
    [{ query: 'q', answer: 'a', top_k: 2.5 }, 'top_k'],
    [{ query: 'q', anwser: 'typo' }, 'anwser'],
  ])('rejects %j with a 400 naming the field %s', async (body, field) => {
    const { server, engine } = await serve();
    const res = await post(server, body);
    expect(res.status).toBe(400);
    const err = await res.json();
    expect(err.field).toBe(field);
    expect(err.message).toContain(field);
    expect(engine.calls).toBe(0);
  });

  it('rejects bodies that are not a JSON object (400) and other media types (415)', async () => {
    const { server } = await serve();
    expect((await post(server, '{"query": ')).status).toBe(400);
    expect((await post(server, '[1,2]')).status).toBe(400);
    expect((await post(server, 'null')).status).toBe(400);
    expect((await post(server, 'query=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
  });

  it("maps the engine's request errors to their status: empty answer 422, query-only without an LLM 400", async () => {
    const { server } = await serve();
    const empty = await post(server, { query: 'q', answer: '  ' });
    expect(empty.status).toBe(422);
    expect((await empty.json()).field).toBe('answer');
    const noLlm = await post(server, { query: 'q' });
    expect(noLlm.status).toBe(400);
    expect((await noLlm.json()).message).toMatch(/no LLM/);
  });

  it('answers 503 with Retry-After when the engine cannot work now (LLM or embedder down)', async () => {
    const { server } = await serve();
    const res = await post(server, { query: 'unavailable', answer: 'A claim.' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await res.json()).error).toBe('unavailable');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 413 above the body limit, with Content-Length and when streamed chunked', async () => {
    const { server, engine } = await serve({ limits: { maxBodyBytes: 1000 } });
    const big = JSON.stringify({ query: 'q', answer: 'x'.repeat(2000) });
    expect((await post(server, big)).status).toBe(413);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/analyze`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{"query":"q","answer":"');
      req.write('y'.repeat(1500));
      req.end('"}');
    });
    expect(chunked).toBe(413);
    expect(engine.calls).toBe(0);
    expect((await post(server, { query: 'q', answer: 'small.' })).status).toBe(200);
  });

  it('rate-limits each client with 429 and Retry-After', async () => {
    const { server } = await serve({ limits: { rateBurst: 3, ratePerSecond: 0.5 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let n = 0; n < 5; n++) {
      const res = await post(server, { query: 'q', answer: 'Paris.' });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(2);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 504 when the analysis exceeds the time limit, and aborts the engine', async () => {
    const { server, engine } = await serve({ delayMs: SLOW_MS, limits: { requestTimeoutMs: 100 } });
    const t0 = Date.now();
    const res = await post(server, { query: 'q', answer: 'Paris.' });
    expect(res.status).toBe(504);
    expect((await res.json()).message).toMatch(/100 ms/);
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(engine.aborted).toBe(1);
  });

  it('answers 503 with Retry-After when too many analyses run at once', async () => {
    const { server } = await serve({ delayMs: 300, limits: { maxInFlight: 1 } });
    const [a, b] = await Promise.all([post(server, { query: 'q', answer: 'Paris.' }), post(server, { query: 'q', answer: 'Paris.' })]);
    expect([a.status, b.status].sort()).toEqual([200, 503]);
    expect((a.status === 503 ? a : b).headers.get('retry-after')).toBe('1');
  });

  it('hides an internal error: 500 without its message, in the response or the log', async () => {
    const { server, logs } = await serve();
    const res = await post(server, { query: 'throw', answer: 'x.' });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret');
    expect(logs.join('\n')).not.toContain('secret');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 503 when no knowledge base is configured, and /healthz says so', async () => {
    const { server } = await serve({ noEngine: true });
    expect((await post(server, { query: 'q', answer: 'a.' })).status).toBe(503);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', analyze: false, store: false });
  });

  it('shuts down gracefully: an in-flight request finishes, then new connections are refused', async () => {
    const { server } = await serve({ delayMs: 300 });
    const inFlight = post(server, { query: 'q', answer: 'Paris.' });
    await new Promise((r) => setTimeout(r, 50));
    const closed = server.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    await closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});

describe('RateLimiter', () => {
  it('gives each client its own bucket that refills at the sustained rate', () => {
    let now = 0;
    const rl = new RateLimiter(2, 1, () => now);
    expect([rl.take('a'), rl.take('a')]).toEqual([0, 0]);
    expect(rl.take('a')).toBeCloseTo(1, 9); // empty: one token in 1 s
    expect(rl.take('b')).toBe(0); // another client is unaffected
    now = 500;
    expect(rl.take('a')).toBeCloseTo(0.5, 9);
    now = 1000;
    expect(rl.take('a')).toBe(0);
  });

  it('bounds memory under a flood of distinct clients', () => {
    let now = 0;
    const rl = new RateLimiter(1, 1, () => now, 100);
    for (let n = 0; n < 1000; n++) rl.take(`client-${n}`);
    expect((rl as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(100);
    now = 10;
    expect(rl.take('client-999')).toBeGreaterThan(0); // the newest client still has its empty bucket
  });
});
