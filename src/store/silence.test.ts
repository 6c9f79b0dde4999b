import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { runCliProcess } from '../cli/testing/process.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { createTestDatabase } from '../testing/services.js';
import { mockRunYaml, requestsReach, silencedUntil, silenceFor, silenceLines, unreachableFor } from '../testing/silence.js';
import { pausableProxy, silentServer, sparePort, type PausableProxy } from '../testing/throwaway.js';
import { postgresProbe } from './postgres.js';

// A PostgreSQL store that goes silent in the middle of a local run (the connections stay open and nothing
// is answered: a hung server, a network dropping packets), made by a proxy to the shared server that stops
// forwarding. What must hold (issue 30): the time from the silence to the exit is the bound (± a second or
// two), the message says the real time, and a silence longer than a few seconds gets one line each way.
const db = await createTestDatabase();
afterAll(async () => db?.drop());
const tmp = useConfigDir('assay-pg-silence-');

let mock: MockOpenAI;
let proxy: PausableProxy;
beforeAll(async () => {
  // 200 ms an answer at concurrency 2: 100 samples take about 10 s, time enough to silence the store midway.
  mock = await startMockOpenAI({ chat: () => ({ content: 'a fine answer', delayMs: 200 }) });
});
afterAll(async () => mock?.close());
beforeEach(async () => {
  proxy = await pausableProxy(Number(new URL(db!.url).port || 5432));
});
afterEach(async () => proxy.close());

const config = (name: string) => tmp.config(`${name}.yaml`, mockRunYaml(name, mock.baseURL, 10, 10));

function localRun(name: string, ...extra: string[]) {
  const u = new URL(db!.url);
  u.port = String(proxy.port);
  u.searchParams.set('schema', name);
  return runCliProcess(['run', config(name), '--store', u.toString(), '--no-progress', '--concurrency', '2', ...extra]);
}

describe.skipIf(!db)('a PostgreSQL store that goes silent under a local assay run', () => {
  it('past --outage-timeout 4s: exits 3 about 4 s after the silence began, saying how long it really was', async () => {
    const before = mock.requests.length;
    const running = localRun('bound', '--outage-timeout', '4s');
    await requestsReach(mock, before, 10);
    const { result: r, tookS } = await silencedUntil(proxy, running);
    expect(r.code, r.err).toBe(3);
    expect(silenceLines(r.err, 'store', '4 s').lost).toBe(1);
    // The bound, give or take a second or two on a loaded machine (before: a minute, the query timeout).
    expect(tookS).toBeGreaterThan(3.5);
    expect(tookS).toBeLessThan(4 + 2.5);
    expect(Math.abs(unreachableFor(r.err) - tookS)).toBeLessThan(1.5);
    expect(r.err.trim().split('\n').at(-1)).toMatch(/^assay: the store at \S+ has been unreachable for [\d.]+ s \(.+\); run \S+ is not finished: /);
  }, 120_000);

  it('silent for 6 s (the default bound): one line when it goes silent, one when it answers again, and the run completes', async () => {
    const before = mock.requests.length;
    const running = localRun('pause');
    await requestsReach(mock, before, 10);
    await silenceFor(proxy, 6000);
    const r = await running;
    expect(r.code, r.err).toBe(0);
    const said = silenceLines(r.err, 'store', '60 s');
    expect([said.lost, said.back]).toEqual([1, 1]);
    expect(said.backAfterS).toBeGreaterThan(5);
    expect(said.backAfterS).toBeLessThan(8);
  }, 120_000);
});

describe.skipIf(!db)('the probe that tells a slow query from a silent server', () => {
  it('true when the server answers (if only to refuse); false, within its time, when it is silent or not there', async () => {
    expect(await postgresProbe(db!.url)(3000)).toBe(true);
    const wrongDb = new URL(db!.url);
    wrongDb.pathname = '/assay_no_such_database';
    expect(await postgresProbe(wrongDb.toString())(3000)).toBe(true);
    const silent = await silentServer();
    try {
      const t0 = performance.now();
      expect(await postgresProbe(`postgres://postgres@127.0.0.1:${silent.port}/postgres`)(500)).toBe(false);
      expect(performance.now() - t0).toBeLessThan(2000);
    } finally {
      await silent.close();
    }
    expect(await postgresProbe(`postgres://postgres@127.0.0.1:${await sparePort()}/postgres`)(500)).toBe(false);
  });
});
