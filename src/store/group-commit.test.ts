import { describe, expect, it } from 'vitest';
import { GroupCommit, type BatchOutcome } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes the items of one event-loop turn together, in batches of at most batchSize, each settling alone', async () => {
    const batches: number[][] = [];
    const commit = new GroupCommit<number>((batch) => {
      batches.push(batch);
      return batch.map((x) => (x === 3 ? new Error(`item ${x} refused`) : undefined));
    }, 4);
    const writes = [1, 2, 3, 4, 5, 6].map((x) => commit.add(x));
    expect(batches).toEqual([]); // queued until the end of the turn
    const settled = await Promise.allSettled(writes);
    expect(batches).toEqual([
      [1, 2, 3, 4],
      [5, 6],
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    await commit.add(7);
    expect(batches.at(-1)).toEqual([7]); // a later turn, a batch of its own
  });

  it('flush writes what is queued at once: a synchronous writer has committed when it returns', async () => {
    const written: number[] = [];
    const commit = new GroupCommit<number>((batch) => {
      written.push(...batch);
      return [];
    });
    const a = commit.add(1);
    commit.flush();
    expect(written).toEqual([1]);
    await a;
    commit.flush(); // nothing queued: no write
    expect(written).toEqual([1]);
  });

  it('a write that fails as a whole (thrown or rejected) fails every item of its batch with its error', async () => {
    const thrown = new GroupCommit<number>(() => {
      throw new Error('disk full');
    });
    const rejected = new GroupCommit<number>(async () => {
      throw new Error('connection lost');
    });
    const results = await Promise.allSettled([thrown.add(1), thrown.add(2), rejected.add(3)]);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'stored'))).toEqual(['disk full', 'disk full', 'connection lost']);
  });

  it('settle waits for the writes in flight, so that a read after it sees them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stored: number[] = [];
    const commit = new GroupCommit<number>(async (batch): Promise<BatchOutcome> => {
      await gate;
      stored.push(...batch);
      return [];
    });
    const write = commit.add(1);
    const settled = commit.settle().then(() => [...stored]);
    release();
    expect(await settled).toEqual([1]);
    await write;
  });
});
