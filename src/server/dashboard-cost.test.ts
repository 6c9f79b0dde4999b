import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { newRun, sample } from '../store/testing/fixtures.js';
import { MemoryStore } from '../store/memory.js';
import { startServer, type ServerHandle } from './start.js';

/** The dashboard's run page shows what the run cost and how much came from the response cache. */
const { PASS } = Outcome;
let server: ServerHandle;
let runId: string;
beforeAll(async () => {
  const store = new MemoryStore();
  const run = await store.runs.create(newRun());
  runId = run.id;
  await store.samples.record(
    run.id,
    sample(0, 0, [PASS, PASS], { usage: { promptTokens: 300, completionTokens: 30 }, cost: { usd: 0.0125, checks: [undefined, 0.0025] } }),
  );
  await store.samples.record(run.id, sample(1, 0, [PASS, PASS], { cached: true, cost: { usd: 0, checks: [undefined, 0] } }));
  await store.runs.setStatus(run.id, 'complete');
  server = await startServer({ store, port: 0, log: false });
});
afterAll(() => server.close());

describe('dashboard: cost and cache', () => {
  it('shows tokens, cost by verifier and cells from the cache on the run page', async () => {
    const html = await (await fetch(`${server.url}/runs/${runId}`)).text();
    expect(html).toMatch(
      /data-testid="spend">tokens 300 in \/ 30 out · cost \$0\.0125 \(system \$0\.01 · v1 \$0\.0025\) · 1 of 2 samples from the cache \(2 cells\)</,
    );
  });
});
