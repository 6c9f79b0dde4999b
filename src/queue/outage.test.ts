import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { openStore } from '../store/open.js';
import { createTestDatabase, redisForTests } from '../testing/services.js';
import { throwawayPostgres, throwawayRedis, type ThrowawayPostgres, type ThrowawayRedis } from '../testing/throwaway.js';
import { spawnWorker, type WorkerProcess, stopWorkers } from './testing/workers.js';

// Services lost in the middle of a queued run: a Redis of the test's own killed (and restarted empty), a
// PostgreSQL of its own crashed and restarted, under two `assay worker` processes. What must hold: every
// wait has a bound and a sentence, and every sample is stored exactly once whatever happens.
const db = await createTestDatabase();
const sharedRedis = await redisForTests();
const redis: ThrowawayRedis | undefined = db ? await throwawayRedis() : undefined;
const pg: ThrowawayPostgres | undefined = sharedRedis ? await throwawayPostgres() : undefined;
afterAll(async () => {
  await redis?.destroy();
  await pg?.destroy();
  await db?.drop();
  await sharedRedis?.drop();
});
const tmp = useConfigDir('assay-outage-');
const cli = (...args: string[]) => captureCli(args);

const N = 20;
const M = 10;

let mock: MockOpenAI;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  // 200 ms per answer: two workers of 4 take about 5 s for the 200 samples, time enough to lose a service midway.
  mock = await startMockOpenAI({ chat: () => ({ content: 'a fine answer', delayMs: 200 }) });
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
`,
  );

const start = (queue: string, store: string, ...extra: string[]) => {
  const w = spawnWorker(['--queue', queue, '--store', store, '--concurrency', '4', '--lock-duration', '2000', ...extra]);
  workers.push(w);
  return w;
};

/** Resolves once the provider has been asked `n` more times than `before`: the run is under way. */
async function requestsReach(before: number, n: number): Promise<void> {
  while (mock.requests.length - before < n) await new Promise((r) => setTimeout(r, 20));
}

const count = (text: string, re: RegExp) => text.match(new RegExp(re.source, 'g'))?.length ?? 0;
/** No stack trace, no multi-line driver dump: every line a sentence of assay's. */
const noDumps = (text: string) => expect(text).not.toMatch(/^\s+at |^Error: |\{$/m);

async function storedOnce(store: string, runId: string): Promise<{ samples: number; status: string }> {
  await using s = await openStore(store, { readonly: true });
  const samples = await s.samples.list(runId);
  // Exactly once: as many distinct (i, j) as rows.
  expect(new Set(samples.map((x) => `${x.i},${x.j}`)).size).toBe(samples.length);
  return { samples: samples.length, status: (await s.runs.get(runId))!.status };
}

describe.skipIf(!db || !redis)('a Redis lost in the middle of a queued run', () => {
  const store = () => `${db!.url}?schema=redis_outage`;
  const queue = (name: string) => `${redis!.url}?prefix=outage-${name}`;

  it('restarted empty under two workers: the run queues again what the store lacks and completes, each sample stored once', async () => {
    const q = queue('restart');
    const [a, b] = [start(q, store()), start(q, store())];
    await Promise.all([a.ready, b.ready]);
    const before = mock.requests.length;
    const running = cli('run', config('restarted'), '--queue', q, '--store', store(), '--no-progress');
    await requestsReach(before, 40);
    await redis!.kill();
    await new Promise((r) => setTimeout(r, 1500));
    await redis!.start(); // empty: the jobs, the run board and BullMQ's keys are gone

    const r = await running;
    expect(r.code, r.err).toBe(0);
    const runId = /run (\S+):/.exec(r.err)![1];
    expect(count(r.err, /lost the queue at redis:\/\/127\.0\.0\.1:\d+\?prefix=outage-restart \(.+\); trying again for up to 60 s/)).toBe(1);
    expect(count(r.err, /the queue at \S+ is back \(after [\d.]+ s\)/)).toBe(1);
    expect(r.err).toContain(`came back without run ${runId}'s jobs`);
    noDumps(r.err);
    expect(await storedOnce(store(), runId)).toEqual({ samples: N * M, status: 'complete' });
    // The workers said it once each, rode it out, and are still taking jobs.
    for (const w of [a, b]) {
      expect(count(w.log(), /lost the queue at/)).toBe(1);
      expect(count(w.log(), /the queue at \S+ is back/)).toBe(1);
      noDumps(w.log());
      expect(w.child.exitCode).toBeNull();
    }
  }, 120_000);

  it('gone for longer than --outage-timeout: the run exits 3 naming the resume command, the workers exit 3; the command finishes the run once Redis is back', async () => {
    const q = queue('gone');
    const [a, b] = [start(q, store(), '--outage-timeout', '3s'), start(q, store(), '--outage-timeout', '3s')];
    await Promise.all([a.ready, b.ready]);
    const before = mock.requests.length;
    const running = cli('run', config('gone'), '--queue', q, '--store', store(), '--no-progress', '--outage-timeout', '2s');
    await requestsReach(before, 40);
    await redis!.kill();

    const r = await running;
    expect(r.code, r.err).toBe(3);
    const runId = /run (\S+):/.exec(r.err)![1];
    const last = r.err.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `^assay: the queue at redis://127\\.0\\.0\\.1:\\d+\\?prefix=outage-gone has been unreachable for [\\d.]+ s \\(.+\\); run ${runId} is kept as interrupted: finish it with: assay run --resume ${runId} --queue (\\S+) --store (\\S+)$`,
      ),
    );
    noDumps(r.err);
    const [, resumeQueue, resumeStore] = / --queue (\S+) --store (\S+)$/.exec(last)!;
    expect([resumeQueue, resumeStore]).toEqual([q, store()]);
    const kept = await storedOnce(store(), runId);
    expect(kept.status).toBe('interrupted');
    expect(kept.samples).toBeLessThan(N * M);
    for (const w of [a, b]) {
      expect((await w.exited).code).toBe(3);
      expect(w.log()).toMatch(/^assay: the queue at \S+ has been unreachable for [\d.]+ s \(.+\): the worker stops; restart it once that is back/m);
      noDumps(w.log());
    }

    // The command it named finishes the run, with the samples stored so far kept.
    await redis!.start();
    start(q, store());
    const resumed = await cli('run', '--resume', runId, '--queue', resumeQueue, '--store', resumeStore, '--no-progress');
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toContain(`resuming: ${kept.samples} of ${N * M} samples already stored`);
    expect(await storedOnce(store(), runId)).toEqual({ samples: N * M, status: 'complete' });
  }, 120_000);

  it('back but asking for a password it did not ask before: no wait mends that, the worker exits 3 at once saying so', async () => {
    const w = start(queue('password'), store());
    await w.ready;
    await redis!.kill();
    await redis!.start(['--requirepass', 'now-needed']);
    expect((await w.exited).code).toBe(3);
    expect(w.log()).toMatch(
      /^assay: the queue at \S+ refused us: NOAUTH, authentication required \(the server now requires a password: give it in the URL, redis:\/\/:password@host:6379\): the worker stops; fix the URL and restart it/m,
    );
    noDumps(w.log());
  }, 120_000);
});

describe.skipIf(!pg || !sharedRedis)('a PostgreSQL store restarted in the middle of a run', () => {
  const store = (schema: string) => `${pg!.url()}?schema=${schema}`;

  it('under two workers: they say so once, wait for it, and the run completes with each sample stored once', async () => {
    const q = `${sharedRedis!.url}?prefix=${sharedRedis!.prefix}-pg-restart`;
    const [a, b] = [start(q, store('queued')), start(q, store('queued'))];
    await Promise.all([a.ready, b.ready]);
    const before = mock.requests.length;
    const running = cli('run', config('pg-restart'), '--queue', q, '--store', store('queued'), '--no-progress');
    await requestsReach(before, 40);
    await pg!.stop('immediate'); // a crash: connections cut, no shutdown checkpoint
    await new Promise((r) => setTimeout(r, 1000));
    await pg!.start();

    const r = await running;
    expect(r.code, r.err).toBe(0);
    noDumps(r.err);
    const runId = /run (\S+):/.exec(r.err)![1];
    expect(await storedOnce(store('queued'), runId)).toEqual({ samples: N * M, status: 'complete' });
    const logs = [a.log(), b.log()];
    // A worker with samples in hand during the crash said so once, and once that it was back.
    expect(
      logs.some((l) => /lost the store at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?schema=queued \(.+\); trying again for up to 60 s/.test(l)),
    ).toBe(true);
    for (const l of logs) {
      expect(count(l, /lost the store at/)).toBeLessThanOrEqual(1);
      expect(count(l, /the store at \S+ is back/)).toBe(count(l, /lost the store at/));
      noDumps(l);
    }
    expect([a, b].every((w) => w.child.exitCode === null)).toBe(true);
  }, 120_000);

  it('a local run rides it out too, saying so once each way', async () => {
    const before = mock.requests.length;
    const running = cli('run', config('pg-local'), '--store', store('local'), '--no-progress', '--concurrency', '8');
    await requestsReach(before, 40);
    await pg!.stop('immediate');
    await new Promise((r) => setTimeout(r, 1000));
    await pg!.start();
    const r = await running;
    expect(r.code, r.err).toBe(0);
    expect(count(r.err, /lost the store at postgres:\/\/\S+ \(.+\); trying again for up to 60 s/)).toBe(1);
    expect(count(r.err, /the store at \S+ is back \(after [\d.]+ s\)/)).toBe(1);
    noDumps(r.err);
    const runId = /run (\S+):/.exec(r.err)![1];
    expect(await storedOnce(store('local'), runId)).toEqual({ samples: N * M, status: 'complete' });
  }, 120_000);

  it('a local run past --outage-timeout exits 3 naming the resume command, which finishes the run once the store is back', async () => {
    const before = mock.requests.length;
    const running = cli('run', config('pg-gone'), '--store', store('gone'), '--no-progress', '--concurrency', '8', '--outage-timeout', '2s');
    await requestsReach(before, 40);
    await pg!.stop('immediate');
    let r: Awaited<typeof running>;
    try {
      r = await running;
    } finally {
      await pg!.start();
    }
    expect(r.code, r.err).toBe(3);
    noDumps(r.err);
    const runId = /run (\S+):/.exec(r.err)![1];
    const last = r.err.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `^assay: the store at postgres://postgres@127\\.0\\.0\\.1:\\d+/postgres\\?schema=gone has been unreachable for [\\d.]+ s \\(.+\\); run ${runId} is not finished: finish it with: assay run --resume ${runId} --store (\\S+)$`,
      ),
    );
    const kept = await storedOnce(store('gone'), runId);
    expect(kept.samples).toBeLessThan(N * M);
    const resumed = await cli('run', '--resume', runId, '--store', / --store (\S+)$/.exec(last)![1], '--no-progress');
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toContain(`resuming: ${kept.samples} of ${N * M} samples already stored`);
    expect(await storedOnce(store('gone'), runId)).toEqual({ samples: N * M, status: 'complete' });
  }, 120_000);
});
