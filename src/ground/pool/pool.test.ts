import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PoolOverloadedError, PoolUnavailableError, TaskFailedError, WorkerCrashedError, WorkerPool, type PoolOptions } from './pool.js';
import { spawnModuleWorker } from './spawn.js';
import type { TestTask } from './testing/test-worker.js';
import { PROMPTLY_MS, START_MS } from '../../testing/time.js';

/** Real worker threads running testing/test-worker.ts, which misbehaves on request. */
const pools: WorkerPool<TestTask, unknown>[] = [];
const dir = mkdtempSync(join(tmpdir(), 'assay-pool-'));
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(options: Partial<PoolOptions> & { heapMb?: number; failIfExists?: string } = {}) {
  const { heapMb, failIfExists, ...rest } = options;
  const pool = await WorkerPool.start<TestTask, unknown>({
    size: 1,
    queue: 4,
    spawn: () =>
      spawnModuleWorker(new URL('./testing/test-worker', import.meta.url), {
        workerData: { failIfExists },
        ...(heapMb ? { resourceLimits: { maxOldGenerationSizeMb: heapMb } } : {}),
      }),
    ...rest,
  });
  pools.push(pool);
  return pool;
}

const deadline = (ms: number) => AbortSignal.timeout(ms);
const threadOf = async (pool: WorkerPool<TestTask, unknown>) => ((await pool.run({ op: 'echo', value: 1 })) as { threadId: number }).threadId;

describe('WorkerPool', () => {
  it('runs tasks on its workers, one at a time each, and answers each with its value', async () => {
    const pool = await start({ size: 2 });
    expect(pool.stats()).toMatchObject({ size: 2, idle: 2, busy: 0, started: 2 });
    const slow = [pool.run({ op: 'sleep', ms: 300 }), pool.run({ op: 'sleep', ms: 300 })];
    expect(pool.stats()).toMatchObject({ idle: 0, busy: 2, queued: 0 });
    const echoed = pool.run({ op: 'echo', value: { a: [1, 'two'] } });
    expect(pool.stats().queued).toBe(1);
    const threads = (await Promise.all(slow)).map((r) => (r as { threadId: number }).threadId);
    expect(new Set(threads).size).toBe(2);
    expect(await echoed).toMatchObject({ value: { a: [1, 'two'] } });
    expect(pool.stats()).toMatchObject({ idle: 2, busy: 0, queued: 0, started: 2, terminated: 0, crashed: 0 });
  });

  it('refuses a task when every worker is busy and the queue is full, at once', async () => {
    const pool = await start({ size: 1, queue: 1 });
    const running = pool.run({ op: 'sleep', ms: 500 });
    const waiting = pool.run({ op: 'echo', value: 'second' });
    await expect(pool.run({ op: 'echo', value: 'third' })).rejects.toBeInstanceOf(PoolOverloadedError);
    await expect(pool.run({ op: 'echo', value: 'third' })).rejects.toThrow(/1 analysis workers are busy and 1 requests are waiting/);
    await running;
    expect(await waiting).toMatchObject({ value: 'second' });
  });

  it('terminates a worker stuck in synchronous code at the deadline, and replaces it', async () => {
    const pool = await start();
    const before = await threadOf(pool);
    const t0 = performance.now();
    await expect(pool.run({ op: 'spin' }, deadline(200))).rejects.toMatchObject({ name: 'TimeoutError' });
    // rejected at the deadline, not when the work ends (it never would)
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(pool.stats()).toMatchObject({ terminated: 1, crashed: 0 });
    const after = await threadOf(pool);
    expect(after).not.toBe(before);
    expect(pool.stats()).toMatchObject({ started: 2, idle: 1 });
  });

  it('terminates a worker stuck in a backtracking regular expression', async () => {
    const pool = await start();
    await expect(pool.run({ op: 'regex' }, deadline(200))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(await pool.run({ op: 'echo', value: 'next' })).toMatchObject({ value: 'next' });
    expect(pool.stats()).toMatchObject({ terminated: 1, started: 2 });
  });

  it('takes a waiting task out of the queue when its signal aborts, without touching the workers', async () => {
    const pool = await start();
    const running = pool.run({ op: 'sleep', ms: 400 });
    const ctrl = new AbortController();
    const waiting = pool.run({ op: 'echo', value: 'never' }, ctrl.signal);
    ctrl.abort(new Error('the client left'));
    await expect(waiting).rejects.toThrow('the client left');
    expect(pool.stats()).toMatchObject({ queued: 0, terminated: 0 });
    await running;
    await expect(pool.run({ op: 'echo', value: 1 }, ctrl.signal)).rejects.toThrow('the client left'); // already aborted
    expect(pool.stats()).toMatchObject({ started: 1 });
  });

  it('fails the task of a worker that runs out of memory, and goes on with a fresh worker', async () => {
    const pool = await start({ heapMb: 32 });
    const err = await pool.run({ op: 'oom' }, deadline(60_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerCrashedError);
    expect(err).toMatchObject({ outOfMemory: true, message: expect.stringMatching(/ran out of memory; it has been replaced/) });
    expect(await pool.run({ op: 'echo', value: 'alive' })).toMatchObject({ value: 'alive' });
    expect(pool.stats()).toMatchObject({ crashed: 1, started: 2 });
  });

  it('fails the task of a worker that exits or throws outside the task, and goes on', async () => {
    const pool = await start();
    await expect(pool.run({ op: 'exit', code: 7 })).rejects.toThrow(/exited with code 7/);
    await expect(pool.run({ op: 'uncaught' })).rejects.toThrow(/failed \(uncaught in the worker\)/);
    expect(await pool.run({ op: 'echo', value: 'alive' })).toMatchObject({ value: 'alive' });
    expect(pool.stats()).toMatchObject({ crashed: 2, started: 3 });
  });

  it('passes on what a task threw, with its name, and keeps the worker', async () => {
    const pool = await start();
    const err = await pool.run({ op: 'throw' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskFailedError);
    expect((err as TaskFailedError).error).toMatchObject({ name: 'RangeError', message: 'a bad input' });
    expect(pool.stats()).toMatchObject({ started: 1, crashed: 0 });
  });

  it('rejects at start when a worker cannot load, with the worker’s error', async () => {
    const marker = join(dir, 'broken');
    writeFileSync(marker, '');
    const err = await start({ size: 2, failIfExists: marker }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoolUnavailableError);
    expect(err).toMatchObject({ message: `cannot load: ${marker} exists`, error: { name: 'UsageError', where: { path: '--kb' } } });
    rmSync(marker);
  });

  it('refuses tasks while no worker can start, and recovers once one can', async () => {
    const marker = join(dir, 'later');
    const failures: string[] = [];
    const pool = await start({ failIfExists: marker, onStartFailure: (e) => failures.push(e.message) });
    writeFileSync(marker, '');
    await expect(pool.run({ op: 'exit', code: 1 })).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect.poll(() => failures.length, { timeout: START_MS }).toBeGreaterThan(0);
    await expect(pool.run({ op: 'echo', value: 1 })).rejects.toThrow(/no worker can start: cannot load/);
    rmSync(marker);
    await expect.poll(() => pool.stats().idle, { timeout: START_MS }).toBe(1);
    expect(await pool.run({ op: 'echo', value: 'back' })).toMatchObject({ value: 'back' });
  });

  it('close() rejects running and waiting tasks and stops every worker', async () => {
    const pool = await start();
    const running = pool.run({ op: 'spin' }).catch((e: unknown) => e);
    const waiting = pool.run({ op: 'echo', value: 1 }).catch((e: unknown) => e);
    await pool.close();
    expect(await running).toBeInstanceOf(PoolUnavailableError);
    expect(await waiting).toMatchObject({ message: 'the worker pool has been closed' });
    await expect(pool.run({ op: 'echo', value: 1 })).rejects.toThrow(/closed/);
    expect(pool.stats()).toMatchObject({ idle: 0, busy: 0, starting: 0 });
  });
});
