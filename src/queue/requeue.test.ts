import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { isJudgeRequest, judgeReply } from '../mock/judge.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { openStore } from '../store/open.js';
import { createTestDatabase } from '../testing/services.js';
import { throwawayRedis, type ThrowawayRedis } from '../testing/throwaway.js';
import { spawnWorker, type WorkerProcess, stopWorkers } from './testing/workers.js';

// Issue 30: a Redis that loses its jobs mid-run (FLUSHALL on a Redis of the test's own) makes the waiting run
// queue again every sample the store lacks, including those still in flight on the workers. What must hold:
// every provider call is paid once (one generation and one judge call per sample), and every sample is stored once.
const db = await createTestDatabase();
const redis: ThrowawayRedis | undefined = db ? await throwawayRedis() : undefined;
afterAll(async () => {
  await redis?.destroy();
  await db?.drop();
});
const tmp = useConfigDir('assay-requeue-');
const cli = (...args: string[]) => captureCli(args);

const N = 10;
const M = 6;

let mock: MockOpenAI;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  // 300 ms per answer (generation and judge alike): two workers of 4 always hold calls in flight.
  mock = await startMockOpenAI({ chat: (view) => ({ content: isJudgeRequest(view) ? judgeReply(view, 'PASS') : 'a fine answer', delayMs: 300 }) });
});
afterAll(async () => mock?.close());
afterEach(() => stopWorkers(workers));

const config = (name: string) =>
  tmp.config(
    `${name}.yaml`,
    `name: ${name}
system: { openai: { baseURL: "${mock.baseURL}", model: m } }
inputs: [${Array.from({ length: N }, (_, i) => `"input ${i}"`).join(', ')}]
samples: ${M}
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
verifiers:
  - name: judged
    minSuccess: 0.5
    instructions: "Is it fine?"
    judge:
      openai: { baseURL: "${mock.baseURL}", model: j }
`,
  );

/** Resolves once the provider has been asked `n` more times than `before`. */
async function requestsReach(before: number, n: number): Promise<void> {
  while (mock.requests.length - before < n) await new Promise((r) => setTimeout(r, 10));
}

async function flushAll(): Promise<void> {
  const c = new Redis(redis!.url);
  try {
    await c.flushall();
  } finally {
    c.disconnect();
  }
}

describe.skipIf(!db || !redis)('work queued again after Redis lost its jobs', () => {
  const store = () => `${db!.url}?schema=requeue`;

  // Lost early (calls in flight, none stored yet), midway, and twice.
  for (const at of [[6], [50], [20, 70]]) {
    it(`FLUSHALL after ${at.join(' and ')} provider calls under two workers: every call paid once, every sample stored once`, async () => {
      const q = `${redis!.url}?prefix=requeue-${at.join('-')}`;
      const start = () => {
        const w = spawnWorker(['--queue', q, '--store', store(), '--concurrency', '4', '--lock-duration', '2000']);
        workers.push(w);
        return w;
      };
      const [a, b] = [start(), start()];
      await Promise.all([a.ready, b.ready]);
      const before = mock.requests.length;
      const running = cli('run', config(`requeue-${at.join('-')}`), '--queue', q, '--store', store(), '--no-progress');
      for (const n of at) {
        await requestsReach(before, n);
        await flushAll();
      }
      const r = await running;
      expect(r.code, r.err).toBe(0);
      const runId = /run (\S+):/.exec(r.err)![1];
      expect(r.err).toContain(`came back without run ${runId}'s jobs`);
      await using s = await openStore(store(), { readonly: true });
      const samples = await s.samples.list(runId);
      expect(new Set(samples.map((x) => `${x.i},${x.j}`)).size).toBe(samples.length);
      expect(samples.length).toBe(N * M);
      const paid = mock.requests.length - before;
      const judged = mock.requests.slice(before).filter((x) => isJudgeRequest(x.body as { messages: { role: string; content: unknown }[] })).length;
      expect({ generations: paid - judged, judged }).toEqual({ generations: N * M, judged: N * M });
      // The journal (kept in the store's cache table) is emptied as the samples are stored; workers stopped
      // cleanly remove their heartbeats. (Each test starts from an empty table: the one before cleared it.)
      for (const w of [a, b]) w.child.kill('SIGTERM');
      expect((await Promise.all([a.exited, b.exited])).map((e) => e.code)).toEqual([0, 0]);
      await using w = await openStore(store());
      expect(await w.cache.clear()).toBe(0);
    }, 120_000);
  }
});
