import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { readYaml } from '../config/yaml.js';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../core/prng.js';
import type { ProductionSpan } from '../core/production.js';
import { MemoryStore } from '../store/memory.js';
import type { Store } from '../store/types.js';
import { newRun, P, F } from '../store/testing/fixtures.js';
import { monitorFromDocument, type Monitor } from './config.js';
import { runMonitor, sampled } from './monitor.js';
import { postWebhook, webhookAlarms } from './webhook.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openSqliteStore } from '../store/sqlite.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 5);
const DAY = 24 * 60;

/** `n` calls, one a simulated minute from minute `from`, each answering politely with probability p. */
function traffic(rand: () => number, from: number, n: number, p: number): ProductionSpan[] {
  return Array.from({ length: n }, (_, t) => {
    const m = from + t;
    return {
      traceId: m.toString(16).padStart(32, '0'),
      spanId: (m + 1).toString(16).padStart(16, '0'),
      kind: 'sample' as const,
      experiment: 'shop/answer',
      name: 'ai.generateText',
      startMs: T0 + m * MINUTE - 800,
      endMs: T0 + m * MINUTE,
      input: `question ${m}`,
      output: rand() < p ? 'Thank you for asking: it ships today.' : 'Figure it out yourself.',
    };
  });
}

async function ingest(store: Store, spans: ProductionSpan[]) {
  for (let at = 0; at < spans.length; at += 2000) await store.production.ingest(spans.slice(at, at + 2000));
}

const monitors: Monitor[] = [];
afterEach(() => {
  for (const m of monitors.splice(0)) m.dispose();
});

async function monitor(extra: Record<string, unknown> = {}, rules: Record<string, unknown> = {}): Promise<Monitor> {
  const m = await monitorFromDocument(
    {
      monitor: { experiment: 'shop/answer', window: '1d', ...extra },
      validators: [{ name: 'polite', predicate: "o => !o.includes('yourself')", minSuccess: 0.9, ...rules }],
    },
    'monitor.yaml',
  );
  monitors.push(m);
  return m;
}

describe('runMonitor', () => {
  it('an injected drop raises an alarm in simulated time, once, and the webhook gets it', async () => {
    await using store = new MemoryStore();
    const rand = mulberry32(5);
    // A CI run of the same rule: the baseline.
    const run = await store.runs.create(newRun({ name: 'shop-answer', inputs: Array.from({ length: 100 }, (_, i) => `q${i}`), samples: 10 }));
    for (let i = 0; i < 100; i++)
      for (let j = 0; j < 10; j++) await store.samples.record(run.id, { i, j, outcomes: [rand() < 0.96 ? P : F, P], latencyMs: 1, attempts: 1 });
    const m = await monitor({ baseline: { run: 'latest', name: 'shop-answer' } }, { name: 'v0' });

    // A week at 96%: no alarm.
    await ingest(store, traffic(rand, 0, 7 * DAY, 0.96));
    const week = await runMonitor(store, m);
    expect(week.newAlarms).toEqual([]);
    expect(week.rules[0]).toMatchObject({ rule: 'v0', checks: 7 * DAY, newChecks: 7 * DAY });
    expect(week.rules[0].baseline).toMatchObject({ run: run.id });
    expect(week.rules[0].windows).toHaveLength(7);

    // Then the model turns rude 15% of the time: the next pass raises the alarm.
    await ingest(store, traffic(rand, 7 * DAY, DAY, 0.85));
    const hooks: unknown[] = [];
    const drop = await runMonitor(store, m, { onAlarm: async (a) => void hooks.push(a) });
    expect(drop.newAlarms.length).toBeGreaterThan(0);
    const first = drop.newAlarms[0];
    expect(first).toMatchObject({ experiment: 'shop/answer', rule: 'v0' });
    // Raised on the day of the drop (simulated time), not before.
    expect(first.atMs).toBeGreaterThanOrEqual(T0 + 7 * DAY * MINUTE);
    expect(first.atMs).toBeLessThan(T0 + 8 * DAY * MINUTE);
    expect(first.message).toMatch(/^v0: \d+(\.\d)?% in window 8 .* is below its (minSuccess 90%|baseline)/);
    expect(hooks).toEqual(drop.newAlarms);

    // Again, with nothing new: the same alarms are found, none is raised twice.
    const again = await runMonitor(store, m);
    expect(again.newAlarms).toEqual([]);
    expect(again.rules[0].alarms).toHaveLength(drop.newAlarms.length);
    expect(again.rules[0].checks).toBe(8 * DAY);
    expect(await store.production.alarms('shop/answer')).toHaveLength(drop.newAlarms.length);
  });

  it('checks its share of the samples, the same ones every pass; a failed call is an error, not a failure', async () => {
    await using store = new MemoryStore();
    const spans = traffic(mulberry32(1), 0, 1000, 1);
    spans[3] = { ...spans[3], output: undefined, error: 'HTTP 503' };
    await ingest(store, spans);
    const m = await monitor({ sample: 0.3 });
    const r = await runMonitor(store, m);
    const expected = spans.filter((s) => sampled(s.spanId, 0.3));
    expect(r.rules[0].checks).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(250);
    expect(expected.length).toBeLessThan(350);
    const checks = await store.production.checks('shop/answer', 'polite');
    const seqs = new Map((await store.production.list('shop/answer')).map((s) => [s.spanId, s.seq]));
    expect(checks.map((c) => c.seq)).toEqual(expected.map((s) => seqs.get(s.spanId)));
    const errored = checks.find((c) => c.seq === seqs.get(spans[3].spanId));
    if (sampled(spans[3].spanId, 0.3)) expect(errored).toMatchObject({ outcome: 'error', reason: 'HTTP 503' });
    expect(checks.every((c) => c.outcome !== 'fail')).toBe(true);
  });

  it('spends at most judgeCallsPerHour judge calls per hour of traffic', async () => {
    await using store = new MemoryStore();
    await ingest(store, traffic(mulberry32(2), 0, 180, 1)); // three hours, one call a minute
    const m = await monitor({ judgeCallsPerHour: 10 });
    let calls = 0;
    m.rules.push({
      name: 'judge',
      message: 'judged',
      minSuccess: 0.5,
      kind: 'verifier',
      predicate: () => true,
      evaluate: async () => (calls++, { outcome: 'pass' }),
    });
    const r = await runMonitor(store, m);
    expect(calls).toBe(30);
    expect(r.rules.find((s) => s.rule === 'judge')).toMatchObject({ checks: 30, overBudget: 150 });
    expect(r.rules.find((s) => s.rule === 'polite')).toMatchObject({ checks: 180, overBudget: 0 });
  });

  it("loads docs/production.md's monitor as written", async () => {
    const md = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'production.md'), 'utf8');
    const yaml = /```yaml\n(# monitor\.yaml[\s\S]*?)\n```/.exec(md)![1];
    const { raw, locate } = readYaml(yaml, 'monitor.yaml');
    const m = await monitorFromDocument(raw, 'monitor.yaml', locate, { OPENAI_API_KEY: 'sk-test' });
    monitors.push(m);
    expect(m).toMatchObject({ experiment: 'shop/answer', sample: 0.2, judgeCallsPerHour: 120, alpha: 0.05, window: { ms: 86_400_000 }, tolerance: 0.02 });
    expect(m.rules.map((r) => [r.name, r.kind ?? 'validator'])).toEqual([
      ['no-internal-ids', 'validator'],
      ['called-lookup', 'validator'],
      ['polite', 'verifier'],
    ]);
  });

  it('refuses a bad monitor file, naming the field', async () => {
    await expect(monitorFromDocument({ monitor: { experiment: 'x', sample: 2 }, validators: [] }, 'm.yaml')).rejects.toThrow(
      /m\.yaml: monitor\.sample: expected a share of the samples in \(0, 1\]/,
    );
    await expect(monitorFromDocument({ validators: [] }, 'm.yaml')).rejects.toThrow(/m\.yaml: monitor: expected the monitor's settings/);
    await expect(monitorFromDocument({ monitor: { experiment: 'x' }, validators: [], inputs: ['a'] }, 'm.yaml')).rejects.toThrow(
      /m\.yaml: inputs: expected one of/,
    );
    await expect(monitorFromDocument({ monitor: { experiment: 'x' }, validators: [] }, 'm.yaml')).rejects.toThrow(/at least one validator/);
  });
});

describe('postWebhook', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('posts the alarm as JSON, trying again after a 503, and gives up on a 400', async () => {
    const got: unknown[] = [];
    let n = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.statusCode = n++ === 0 ? 503 : req.url === '/bad' ? 400 : 200;
        res.end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    expect(await postWebhook(`${url}/ok`, { rule: 'polite' }, { retries: 3, sleep })).toEqual({ delivered: true, attempts: 2 });
    expect(waits).toEqual([1000]);
    expect(got).toEqual([{ rule: 'polite' }, { rule: 'polite' }]);
    expect(await postWebhook(`${url}/bad`, { x: 1 }, { retries: 3, sleep })).toEqual({ delivered: false, attempts: 1, error: 'HTTP 400' });
    // A port nothing listens on any more: refused, tried three times.
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((r) => gone.close(() => r()));
    const closed = await postWebhook(`http://127.0.0.1:${port}/none`, {}, { retries: 2, sleep });
    expect(closed).toMatchObject({ delivered: false, attempts: 3 });
    expect(closed.error).toMatch(/ECONNREFUSED|connect/);
  });
});

describe('alarms the webhook did not take', () => {
  let server: Server | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'assay-monitor-hook-'));
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are stored undelivered and sent again on the next pass, once the hook answers', async () => {
    // A real hook that is down (503) until `up`, then takes every alarm.
    let up = false;
    const took: Record<string, unknown>[] = [];
    let refused = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (!up) refused++;
        else took.push(JSON.parse(body) as Record<string, unknown>);
        res.statusCode = up ? 200 : 503;
        res.end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const store = openSqliteStore(join(dir, 'assay.db'));
    try {
      await ingest(store, traffic(mulberry32(7), 0, 2 * DAY, 0.5));
      const m = await monitor({ webhook: { url, retries: 1 } });
      const failures: string[] = [];
      const onAlarm = webhookAlarms(m.webhook!, { sleep: async () => {}, onFailure: (_a, r) => void failures.push(r.error ?? '') });

      const first = await runMonitor(store, m, { onAlarm });
      expect(first.newAlarms.length).toBeGreaterThan(0);
      expect(refused).toBe(2 * first.newAlarms.length); // each alarm tried twice (retries: 1)
      expect(failures.every((f) => f === 'HTTP 503')).toBe(true);
      expect(took).toEqual([]);
      expect((await store.production.alarms('shop/answer')).map((a) => a.delivered)).toEqual(first.newAlarms.map(() => false));

      // The next pass: nothing new to raise, but the stored undelivered alarms are sent again, with their figures.
      up = true;
      const second = await runMonitor(store, m, { onAlarm });
      expect(second.newAlarms).toEqual([]);
      expect(second.redelivered.map((a) => a.message)).toEqual(first.newAlarms.map((a) => a.message));
      expect(took.map((b) => b.message)).toEqual(first.newAlarms.map((a) => a.message));
      for (const b of took) {
        expect(b).toMatchObject({ experiment: 'shop/answer', rule: 'polite', late: true });
        expect(typeof b.rate).toBe('number');
        expect(b).not.toHaveProperty('delivered');
      }
      expect((await store.production.alarms('shop/answer')).every((a) => a.delivered === true)).toBe(true);

      // Delivered: never sent again.
      const third = await runMonitor(store, m, { onAlarm });
      expect(third.redelivered).toEqual([]);
      expect(took).toHaveLength(first.newAlarms.length);
    } finally {
      await store.close();
    }
  });

  it('are not marked for delivery when the monitor has no hook', async () => {
    await using store = new MemoryStore();
    await ingest(store, traffic(mulberry32(7), 0, 2 * DAY, 0.5));
    const r = await runMonitor(store, await monitor());
    expect(r.newAlarms.length).toBeGreaterThan(0);
    expect((await store.production.alarms('shop/answer')).every((a) => a.delivered === undefined)).toBe(true);
  });
});
