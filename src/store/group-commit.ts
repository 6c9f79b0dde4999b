/**
 * Group commit, shared by the SQL adapters: items (samples) queued within one turn of the event loop are
 * written together at the end of that turn (setImmediate), in one transaction or statement instead of one
 * each. A caller's promise resolves only once the write holding its item has committed, so "acknowledged"
 * still means "stored, survives kill -9"; an item whose promise had not resolved when the process died is
 * simply not stored. One bad item (a duplicate) fails alone, not its batch.
 */

import type { SampleRecord } from './types.js';

/** A sample waiting for the next group commit of a SQL store. */
export interface QueuedSample {
  runId: string;
  sample: SampleRecord;
}

/** Per item of a batch, in order: undefined where it was stored, else the error it alone failed with. */
export type BatchOutcome = unknown[];

/**
 * Writes a batch, all-or-nothing per item. Throwing (or rejecting) means the write itself failed (disk full,
 * store closed): nothing of the batch was stored. A synchronous writer (SQLite) has committed when it returns.
 */
export type BatchWriter<T> = (batch: T[]) => BatchOutcome | Promise<BatchOutcome>;

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T> {
  private queue: Pending<T>[] = [];
  private scheduled = false;
  private inflight = new Set<Promise<void>>();

  constructor(
    private readonly write: BatchWriter<T>,
    /** Items per write at most (a statement's parameters are bounded); the rest go in further writes. */
    private readonly batchSize = Infinity,
  ) {}

  /** Queue an item for the next group commit; settles once it is stored, or with its own error. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Write every queued item now (a synchronous writer's are committed when this returns). */
  flush(): void {
    this.scheduled = false;
    const queued = this.queue.splice(0);
    for (let at = 0; at < queued.length; at += this.batchSize) this.commit(queued.slice(at, at + this.batchSize));
  }

  /** Write what is queued and wait for every write in flight: reads after it see earlier writes. */
  async settle(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inflight]);
  }

  private commit(batch: Pending<T>[]): void {
    const settle = (outcome: BatchOutcome) => batch.forEach((p, n) => (outcome[n] === undefined ? p.resolve() : p.reject(outcome[n])));
    const fail = (err: unknown) => batch.forEach((p) => p.reject(err));
    let written: BatchOutcome | Promise<BatchOutcome>;
    try {
      written = this.write(batch.map((p) => p.item));
    } catch (err) {
      fail(err);
      return;
    }
    if (!(written instanceof Promise)) return settle(written);
    const p: Promise<void> = written.then(settle, fail).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }
}
