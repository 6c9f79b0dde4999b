import { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { MemoryStore } from '../store/memory.js';
import { openStore } from '../store/open.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { createTestDatabase, redisForTests } from '../testing/services.js';
import { loadExperiment } from '../config/load.js';
import type { StopRule } from '../run/stop.js';
import { startMockProcess } from '../testing/mock-process.js';
import { RunBoard } from './board.js';
import { connectRedis, parseRedisUrl } from './connection.js';
import { runOnQueue } from './coordinator.js';
import { QUEUE_NAME } from './jobs.js';
import { maxInWindow, spawnWorker, type WorkerProcess, stopWorkers } from './testing/workers.js';
import { startSampleWorker } from './worker.js';
import { START_MS } from '../testing/time.js';

// Distributed runs against the real services: PostgreSQL for the store, Redis for BullMQ, `assay worker`
// child processes, and the local OpenAI-compatible mock as the system under test.
const db = await createTestDatabase();
const redis = await redisForTests();
afterAll(async () => {
  await db?.drop();
  await redis?.drop();
});
const tmp = useConfigDir('assay-queue-');
const cli = (...args: string[]) => captureCli(args);

describe.skipIf(!db || !redis)('assay run --queue with assay worker processes', () => {
  let mock: MockOpenAI;
  const workers: WorkerProcess[] = [];
  const store = () => `${db!.url}?schema=queue`;
  const queue = (name: string) => `${redis!.url}?prefix=${redis!.prefix}-${name}`;
  const config = (name: string, extra = '', system = '') =>
    tmp.config(
      `${name}.yaml`,
      `name: ${name}
system: { openai: { baseURL: "${mock.baseURL}", model: m${system} } }
inputs: ["a", "b", "c", "d", "e", "f"]
samples: 10
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
  - { name: short, check: { type: words, max: 5 }, minSuccess: 0.9 }
${extra}`,
    );
  const start = (q: string, env: NodeJS.ProcessEnv = process.env) => {
    const w = spawnWorker(['--queue', q, '--store', store(), '--concurrency', '4', '--lock-duration', '2000'], env);
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    // 150 ms per answer: a worker always holds jobs in flight. Model "m-slowing" answers 3 s after its 24th call,
    // so a run that should stop early cannot finish instead because the machine is slow to notice.
    const calls = new Map<string, number>();
    mock = await startMockOpenAI({
      chat: (view) => {
        const n = (calls.get(view.model) ?? 0) + 1;
        calls.set(view.model, n);
        return { content: 'a fine answer', delayMs: view.model === 'm-slowing' && n > 24 ? 3000 : 150 };
      },
    });
  });
  afterEach(() => stopWorkers(workers));
  afterAll(async () => mock?.close());

  it('a worker killed with SIGKILL mid-run loses nothing: its jobs go to the other, every sample stored once', async () => {
    const q = queue('kill');
    const [a, b] = [start(q), start(q)];
    await Promise.all([a.ready, b.ready]);
    // Watch the queue for the killed worker's jobs being put back (BullMQ's stalled-job recovery).
    const loc = parseRedisUrl(q);
    const events = new QueueEvents(QUEUE_NAME, { connection: { url: loc.url }, prefix: loc.prefix });
    const stalled: string[] = [];
    events.on('stalled', ({ jobId }) => stalled.push(jobId));
    await events.waitUntilReady();
    const before = mock.requests.length;
    const running = cli('run', config('killed'), '--queue', q, '--store', store(), '--no-progress');
    // Once both have answered a few, kill one while it holds jobs.
    while (!(a.log().includes('run ') && b.log().includes('run ') && mock.requests.length - before >= 16)) await new Promise((r) => setTimeout(r, 20));
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    const r = await running;
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/nonempty\s+100\.0%/);
    const runId = /run (\S+):/.exec(r.err)![1];
    const s = await openStore(store(), { readonly: true });
    try {
      const samples = await s.samples.list(runId);
      expect(samples).toHaveLength(60);
      expect(new Set(samples.map((x) => `${x.i},${x.j}`)).size).toBe(60);
      expect(samples.every((x) => x.outcomes.every((o) => o === Outcome.PASS))).toBe(true);
      expect((await s.runs.get(runId))!.status).toBe('complete');
    } finally {
      await s.close();
    }
    // Each sample was asked for at least once; the jobs the killed worker held were recovered and run again.
    expect(mock.requests.length - before).toBeGreaterThanOrEqual(60);
    await events.close();
    expect(stalled.length).toBeGreaterThan(0);
    expect(stalled.every((id) => id.startsWith(`${runId}_`))).toBe(true);
  });

  // Two workers shared by the tests below that keep them alive.
  let shared: WorkerProcess[] = [];
  const sharedQueue = () => queue('shared');
  const sharedPair = async () => {
    if (!shared.length) shared = [0, 1].map(() => spawnWorker(['--queue', sharedQueue(), '--store', store(), '--concurrency', '4', '--lock-duration', '2000']));
    await Promise.all(shared.map((w) => w.ready));
    return shared;
  };
  afterAll(async () => {
    for (const w of shared) w.child.kill('SIGKILL');
    await Promise.all(shared.map((w) => w.exited));
  });

  it('--detach returns at once with the run id; the workers finish the run and mark it complete', async () => {
    const q = sharedQueue();
    const pair = sharedPair();
    const r = await cli('run', config('detached'), '--queue', q, '--store', store(), '--detach');
    expect(r.code, r.err).toBe(0);
    const runId = r.out.trim();
    expect(runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect(r.err).toContain(`run ${runId} is queued`);
    await pair;
    const s = await openStore(store(), { readonly: true });
    try {
      const deadline = Date.now() + START_MS;
      while ((await s.runs.get(runId))!.status === 'running' && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      expect((await s.runs.get(runId))!.status).toBe('complete');
      expect(await s.samples.list(runId)).toHaveLength(60);
    } finally {
      await s.close();
    }
    const show = await cli('show', runId, '--store', store());
    expect(show.out).toMatch(/short\s+100\.0%/);
  });

  it('a worker that cannot build the run fails its jobs for good: the run says why and exits 3; a resume with a fixed worker completes it', async () => {
    const q = queue('broken');
    // The key is set here, where the run is queued, but not in the first worker's environment.
    const file = config('keyed', '', ', apiKeyEnv: ASSAY_QUEUE_TEST_KEY');
    const { ASSAY_QUEUE_TEST_KEY: _unset, ...without } = process.env;
    const broken = start(q, without);
    process.env.ASSAY_QUEUE_TEST_KEY = 'k';
    try {
      const r = await cli('run', file, '--queue', q, '--store', store(), '--no-progress');
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/60 sample\(s\) of run \S+ failed on the workers \(.*ASSAY_QUEUE_TEST_KEY.*\); the run is kept as interrupted/);
      const runId = /run (\S+):/.exec(r.err)![1];
      broken.child.kill('SIGTERM');
      expect((await broken.exited).code).toBe(0);
      // A queued resume is decided by the run's stored parameters too: another verdict mode is refused, nothing queued.
      const lax = await cli('run', '--resume', runId, '--verdict', 'point', '--queue', q, '--store', store(), '--no-progress');
      expect(lax.code).toBe(2);
      expect(lax.err).toMatch(/changes how the run is decided: verdict: confident → point\./);
      start(q, { ...process.env });
      const again = await cli('run', '--resume', runId, '--queue', q, '--store', store(), '--no-progress');
      expect(again.code, again.err).toBe(0);
      expect(again.err).toContain('resuming: 0 of 60 samples already stored');
    } finally {
      delete process.env.ASSAY_QUEUE_TEST_KEY;
    }
  });

  it('rateLimit across two workers: one budget kept in Redis; no one-second window at the provider sees more than the limit', async () => {
    const q = sharedQueue();
    const provider = await startMockProcess({ delayMs: 20 });
    try {
      const file = tmp.config(
        'rate.yaml',
        `name: rate
system:
  openai: { baseURL: "${provider.baseURL}", model: m }
  rateLimit: { requestsPerMinute: 900 }
inputs: ["a", "b", "c", "d", "e", "f"]
samples: 10
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`,
      );
      const [a, b] = await sharedPair();
      const r = await cli('run', file, '--queue', q, '--store', store(), '--no-progress');
      expect(r.code, r.err).toBe(0);
      const runId = /run (\S+):/.exec(r.err)![1];
      expect(a.log()).toContain(`run ${runId}`);
      expect(b.log()).toContain(`run ${runId}`); // both workers took part
      const arrivals = await provider.arrivals();
      expect(arrivals).toHaveLength(60);
      expect(maxInWindow(arrivals)).toBeLessThanOrEqual(15);
    } finally {
      await provider.close();
    }
  });

  it('a stop rule decides from the samples as the workers store them; the workers then skip the rest of the run', async () => {
    const q = parseRedisUrl(queue('stop'));
    const s = await openStore(store());
    const worker = await startSampleWorker({ queue: q, store: s, concurrency: 4 });
    const x = await loadExperiment(config('stopped', '', '-slowing'));
    let seen = 0;
    const enough: StopRule = {
      name: 'enough',
      observe: () => void seen++,
      check: () => (seen >= 20 ? { rule: 'enough', status: 'complete', message: 'twenty samples decide it' } : undefined),
    };
    try {
      const result = await runOnQueue({
        experiment: x,
        systemId: 'openai:m-slowing',
        store: s,
        queue: q,
        stopRules: [enough],
      });
      expect(result.status).toBe('complete');
      expect(result.stopped).toMatchObject({ rule: 'enough' });
      const stored = await s.samples.list(result.run.id);
      expect(stored.length).toBeGreaterThanOrEqual(20);
      expect(stored.length).toBeLessThan(60); // all 60 would take the workers another 27 s or more
      expect((await s.runs.get(result.run.id))!.status).toBe('complete');
      // Every queued job was resolved: the samples not run were skipped by the worker, none failed.
      const redisClient = await connectRedis(q);
      const counts = await new RunBoard(redisClient, q.prefix).counts(result.run.id);
      redisClient.disconnect();
      expect(counts).toMatchObject({ target: 60, done: 60, failed: 0 });
    } finally {
      await worker.close();
      x.dispose();
      await s.close();
    }
  });

  it('fail fast on the queue: calls that keep failing the same way stop the run early with exit 3, left interrupted', async () => {
    const q = queue('refused');
    const s = await openStore(store());
    const worker = await startSampleWorker({ queue: parseRedisUrl(q), store: s, concurrency: 2 });
    const file = tmp.config(
      'refused.yaml',
      `name: refused
system: { openai: { baseURL: "http://127.0.0.1:9/v1", model: m } }
inputs: ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
samples: 10
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`,
    );
    try {
      const r = await cli('run', file, '--queue', q, '--store', store(), '--no-progress', '--max-errors', '3');
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/stopped early: \d+ samples in a row failed the same way \(connection\):.*ECONNREFUSED/);
      const runId = /run (\S+):/.exec(r.err)![1];
      const run = await s.runs.get(runId);
      expect(run!.status).toBe('interrupted');
      // Stopped well before the 100 samples: the workers skipped the rest of the run.
      expect((await s.samples.list(runId)).length).toBeLessThan(40);
    } finally {
      await worker.close();
      await s.close();
    }
  });

  it('usage errors: --detach without --queue, a bad queue URL (exit 2), an unreachable queue (exit 3)', async () => {
    const file = config('usage');
    expect((await cli('run', file, '--detach', '--store', store())).err).toMatch(/--detach: only with --queue/);
    const bad = await cli('run', file, '--queue', 'http://x', '--store', store());
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--queue: expected a redis:\/\/ or rediss:\/\/ URL/);
    const down = await cli('run', file, '--queue', 'redis://:secret@127.0.0.1:1', '--store', store());
    expect(down.code).toBe(3);
    expect(down.err).toMatch(/^assay: cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:1.*ECONNREFUSED/);
    const worker = await cli('worker', '--queue', 'redis://127.0.0.1:1', '--store', store());
    expect(worker.code).toBe(3);
    expect((await cli('worker', '--store', store())).code).toBe(2);
  });
});

describe.skipIf(!redis)('a worker on another store than the run', () => {
  it('fails the run’s jobs naming the store it looked in and what to fix, in one log line for the whole run', async () => {
    const q = parseRedisUrl(`${redis!.url}?prefix=${redis!.prefix}-otherstore`);
    const [queuedIn, workerStore] = [new MemoryStore(), new MemoryStore()];
    const lines: string[] = [];
    const worker = await startSampleWorker({
      queue: q,
      store: workerStore,
      concurrency: 2,
      log: (l) => lines.push(l),
      storeShown: 'postgres://db/assay?schema=b',
    });
    const file = tmp.config(
      'elsewhere.yaml',
      `name: elsewhere
system: { simulated: { seed: 1, outputs: ["fine"] } }
inputs: ["a", "b", "c"]
samples: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`,
    );
    const x = await loadExperiment(file);
    try {
      const result = await runOnQueue({ experiment: x, systemId: 'simulated', store: queuedIn, queue: q });
      expect(result.failed).toBe(12);
      expect(result.firstError).toMatch(
        /^run \S+ is not in this worker's store \(postgres:\/\/db\/assay\?schema=b\): a worker must use the store the run was queued with/,
      );
      expect(lines.filter((l) => l.includes('failed'))).toHaveLength(1);
    } finally {
      await worker.close();
      x.dispose();
    }
  });
});
