import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { MemoryStore } from '../store/memory.js';
import { startServer, type ServerHandle } from './start.js';
import { MAX_QUEUE_BYTES } from './grading.js';

/** Issue 30, item 4: the grading API held to /analyze's standard: rate-limited, bounded pages, no work that grows with the run on a grade. */
const cell = (i: number, j: number) => ((i + j) % 2 ? Outcome.FAIL : Outcome.PASS);
const servers: ServerHandle[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
const json = { 'content-type': 'application/json' };

describe('grading API limits', () => {
  it('rate-limits each client: past its burst, 429 with Retry-After, and nothing stored', async () => {
    const store = new MemoryStore();
    const run = await writeGradedFixture(store, { N: 10, M: 4, cell });
    const server = await startServer({ port: 0, store, grading: true, log: false, limits: { rateBurst: 4, ratePerSecond: 0.01 } });
    servers.push(server);
    const post = (i: number) =>
      fetch(`${server.url}/api/runs/${run.id}/grades`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ i, j: 0, rule: 'polite', grade: 'pass', grader: 'bot' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(i)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
    const limited = await post(7);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({
      error: 'rate_limited',
      message: expect.stringMatching(/too many grading requests from this client; retry after \d+ s/),
    });
    expect((await fetch(`${server.url}/api/runs/${run.id}/grading`)).status).toBe(429);
    expect(await store.grades.list(run.id)).toHaveLength(4);
    // The rest of the server is not held up by the grading budget.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/runs/${run.id}`)).status).toBe(200);
  });

  it(`bounds a queue page: ?count at most 200, and at most ${MAX_QUEUE_BYTES / 2 ** 20} MB of inputs and outputs, saying how many were left for the next page`, async () => {
    const store = new MemoryStore();
    const run = await store.runs.create({
      name: 'big outputs',
      config: {},
      inputs: Array.from({ length: 20 }, (_, i) => `q${i}`),
      samples: 1,
      validators: [{ name: 'polite', message: 'm', minSuccess: 0.8, weight: 1, kind: 'verifier', source: 'judge' }],
      systemId: 'fixture',
    });
    const mb = 'x'.repeat(2 ** 20);
    for (let i = 0; i < 20; i++)
      await store.samples.record(run.id, { i, j: 0, output: mb, outcomes: [i % 2 ? Outcome.FAIL : Outcome.PASS], latencyMs: 1, attempts: 1 });
    await store.runs.setStatus(run.id, 'complete');
    const server = await startServer({ port: 0, store, grading: true, log: false });
    servers.push(server);
    expect((await fetch(`${server.url}/api/runs/${run.id}/grading?count=201`)).status).toBe(400);
    const r = await fetch(`${server.url}/api/runs/${run.id}/grading?count=20&design=uniform`);
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text.length).toBeLessThanOrEqual(MAX_QUEUE_BYTES + 64 * 1024);
    const body = JSON.parse(text) as { items: unknown[]; queue: { count: number; left: number } };
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.items.length).toBeLessThan(20);
    expect(body.queue).toMatchObject({ count: body.items.length, left: 20 - body.items.length });
  });

  it("stores a grade without reading the run's tensor (its work does not grow with the run)", async () => {
    const store = new MemoryStore();
    const run = await writeGradedFixture(store, { N: 10, M: 4, cell });
    let tensors = 0;
    const tensor = store.samples.tensor.bind(store.samples);
    store.samples.tensor = async (id: string) => (tensors++, tensor(id));
    const server = await startServer({ port: 0, store, grading: true, log: false });
    servers.push(server);
    const r = await fetch(`${server.url}/api/runs/${run.id}/grades`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ i: 1, j: 0, rule: 'polite', grade: 'pass', grader: 'ada' }),
    });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { rule: unknown }).rule).toEqual({ verdict: 'fail', reasons: ['judge says rude (1.0)'], agree: false });
    const id = (await store.grades.list(run.id))[0].id;
    const undo = await fetch(`${server.url}/api/runs/${run.id}/grades/${id}`, { method: 'DELETE' });
    expect(undo.status).toBe(200);
    expect(tensors).toBe(0);
  });
});
