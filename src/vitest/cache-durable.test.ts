import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions } from './types.js';

// Issue 26 leftover: with the cache on, a block ran in a scratch store and its run was copied into the store only
// at its end, so a process killed mid-run (Ctrl-C in watch mode, a CI timeout) lost every sample the block had
// finished. A run that makes calls is now kept as its samples finish; only a pure replay stays out of the store.

const file = join(process.cwd(), 'durable.test.ts');
const words = { name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 } as const;

/** Resolves once `test()` holds (polled; generous: it only catches a hang). */
async function until(test: () => Promise<boolean> | boolean, limitMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!(await test())) {
    if (Date.now() - start > limitMs) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a cached block that makes calls keeps its samples as they finish', () => {
  it('the store holds the finished samples while the block still runs', async () => {
    const store = new MemoryStore();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let answered = 0;
    const system = async (input: unknown) => {
      // The first 6 calls answer at once; the rest wait until the test has looked at the store.
      if (answered >= 6) await held;
      answered++;
      return `ok ${String(input)}`;
    };
    const done = runReliability({
      name: 'durable',
      file,
      options: { inputs: ['a', 'b', 'c'], samples: 4, concurrency: 2, validators: [words], system, cache: { key: 'v1' } } as ReliabilityOptions,
      store,
      env: { ASSAY_CACHE: '1' },
    });
    try {
      await until(() => answered >= 6);
      // What a process killed now would leave: the samples already finished are in the store.
      await until(async () => {
        const [run] = await store.runs.list();
        return run !== undefined && (await store.samples.list(run.id)).length >= 6;
      });
    } finally {
      release();
    }
    const r = await done;
    expect(r.replay).toBe(false);
    const runs = await store.runs.list();
    expect(runs.map((x) => x.id)).toEqual([r.runId]);
    expect(await store.samples.list(r.runId)).toHaveLength(12);
    expect(runs[0].status).toBe('complete');

    // Run again: every answer from the cache, no call, and no second run stored.
    const again = await runReliability({
      name: 'durable',
      file,
      options: { inputs: ['a', 'b', 'c'], samples: 4, concurrency: 2, validators: [words], system, cache: { key: 'v1' } } as ReliabilityOptions,
      store,
      env: { ASSAY_CACHE: '1' },
    });
    expect(again.replay).toBe(true);
    expect(again.calls).toBe(0);
    expect((await store.runs.list()).map((x) => x.id)).toEqual([r.runId]);

    // A new input: replayed answers first, then calls. Kept from the first call on, with the replayed samples
    // before it copied over, once each.
    const more = await runReliability({
      name: 'durable',
      file,
      options: { inputs: ['a', 'b', 'c', 'd'], samples: 4, concurrency: 2, validators: [words], system, cache: { key: 'v1' } } as ReliabilityOptions,
      store,
      env: { ASSAY_CACHE: '1' },
    });
    expect([more.replay, more.calls, more.cached]).toEqual([false, 4, 12]);
    expect((await store.runs.list()).map((x) => x.id).sort()).toEqual([r.runId, more.runId].sort());
    const kept = await store.samples.list(more.runId);
    expect(kept.map((x) => `${x.i},${x.j}`).sort()).toEqual(Array.from({ length: 16 }, (_, n) => `${n % 4},${Math.floor(n / 4)}`).sort());
    expect((await store.runs.get(more.runId))?.status).toBe('complete');
  }, 60_000);
});
