import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { runCliProcess } from '../cli/testing/process.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { redisForTests } from '../testing/services.js';
import { mockRunYaml, requestsReach, silencedUntil, silenceFor, silenceLines, unreachableFor } from '../testing/silence.js';
import { pausableProxy, type PausableProxy } from '../testing/throwaway.js';
import { spawnWorker, type WorkerProcess, stopWorkers } from './testing/workers.js';

// A Redis that goes silent in the middle of a queued run (it keeps the connection and answers nothing: a
// hung server, a network dropping packets), made by a proxy to the shared Redis that stops forwarding.
// What must hold (issue 30): the time from the silence to the exit is the bound (± a second or two), the
// message says the real time, and a silence longer than a few seconds gets one line, and one when it ends.
const redis = await redisForTests();
afterAll(async () => redis?.drop());
const tmp = useConfigDir('assay-silence-');

let mock: MockOpenAI;
let proxy: PausableProxy;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  // 200 ms an answer, one worker of 2: 100 samples take about 10 s, time enough to silence Redis midway.
  mock = await startMockOpenAI({ chat: () => ({ content: 'a fine answer', delayMs: 200 }) });
});
afterAll(async () => mock?.close());
beforeEach(async () => {
  proxy = await pausableProxy(Number(new URL(redis!.url).port || 6379));
});
afterEach(async () => {
  await proxy.close();
  await stopWorkers(workers);
});

const config = (name: string) => tmp.config(`${name}.yaml`, mockRunYaml(name, mock.baseURL, 10, 10));

/** `assay run` on the queue behind the proxy (the worker reaches Redis directly, so only the waiting run loses it). */
function queuedRun(name: string, ...extra: string[]) {
  const prefix = `${redis!.prefix}-${name}`;
  const store = join(tmp.dir(), `${name}.db`);
  const w = spawnWorker(['--queue', `${redis!.url}?prefix=${prefix}`, '--store', store, '--concurrency', '2']);
  workers.push(w);
  const queue = `redis://127.0.0.1:${proxy.port}?prefix=${prefix}`;
  return { worker: w, run: () => runCliProcess(['run', config(name), '--queue', queue, '--store', store, '--no-progress', ...extra]) };
}

describe.skipIf(!redis)('a Redis that goes silent under a waiting assay run --queue', () => {
  it('past --outage-timeout 4s: exits 3 about 4 s after the silence began, saying how long it really was', async () => {
    const { worker, run } = queuedRun('bound', '--outage-timeout', '4s');
    await worker.ready;
    const before = mock.requests.length;
    const running = run();
    await requestsReach(mock, before, 10);
    const { result: r, tookS } = await silencedUntil(proxy, running);
    expect(r.code, r.err).toBe(3);
    expect(silenceLines(r.err, 'queue', '4 s').lost).toBe(1);
    // The bound, give or take a second or two on a loaded machine (before: 20 s, saying 10 s).
    expect(tookS).toBeGreaterThan(3.5);
    expect(tookS).toBeLessThan(4 + 2.5);
    // What the line says is what the silence lasted, to a second.
    expect(Math.abs(unreachableFor(r.err) - tookS)).toBeLessThan(1.5);
    expect(r.err.trim().split('\n').at(-1)).toMatch(/^assay: the queue at \S+ has been unreachable for [\d.]+ s \(.+\); run \S+ is kept as interrupted: /);
  }, 120_000);

  it('silent for 6 s (the default bound): one line when it goes silent, one when it answers again, and the run completes', async () => {
    const { worker, run } = queuedRun('pause');
    await worker.ready;
    const before = mock.requests.length;
    const running = run();
    await requestsReach(mock, before, 10);
    await silenceFor(proxy, 6000);
    const r = await running;
    expect(r.code, r.err).toBe(0);
    // Before: no line at all (the first command's 10 s timeout had not passed).
    const said = silenceLines(r.err, 'queue', '60 s');
    expect([said.lost, said.back]).toEqual([1, 1]);
    expect(said.backAfterS).toBeGreaterThan(5);
    expect(said.backAfterS).toBeLessThan(8);
  }, 120_000);
});

describe.skipIf(!redis)('a Redis that goes silent under an assay worker', () => {
  const viaProxy = (name: string, ...extra: string[]) => {
    const w = spawnWorker(['--queue', `redis://127.0.0.1:${proxy.port}?prefix=${redis!.prefix}-${name}`, '--store', join(tmp.dir(), `${name}.db`), ...extra]);
    workers.push(w);
    return w;
  };

  it('past --outage-timeout 4s, with no job in hand: exits 3 about 4 s after the silence began, saying how long it really was', async () => {
    const w = viaProxy('worker-bound', '--outage-timeout', '4s');
    await w.ready;
    const { result, tookS } = await silencedUntil(proxy, w.exited);
    expect(result.code, w.log()).toBe(3);
    expect(silenceLines(w.log(), 'queue', '4 s').lost).toBe(1);
    expect(tookS).toBeGreaterThan(3.5);
    expect(tookS).toBeLessThan(4 + 2.5);
    // Counted from its first unanswered heartbeat, up to a second after the silence began.
    expect(Math.abs(unreachableFor(w.log()) - tookS)).toBeLessThan(2);
    expect(w.log()).toMatch(/^assay: the queue at \S+ has been unreachable for [\d.]+ s \(.+\): the worker stops; restart it once that is back/m);
  }, 120_000);

  it('silent for 6 s: one line when it goes silent, one when it answers again, and it goes on', async () => {
    const w = viaProxy('worker-pause');
    await w.ready;
    await silenceFor(proxy, 6000);
    for (let waited = 0; !/ is back /.test(w.log()) && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    const said = silenceLines(w.log(), 'queue', '60 s');
    expect([said.lost, said.back]).toEqual([1, 1]);
    expect(w.child.exitCode).toBeNull();
  }, 120_000);
});
