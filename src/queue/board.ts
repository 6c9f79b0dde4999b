import type { Redis } from 'ioredis';
import type { StopDecision } from '../run/stop.js';

/**
 * The run board: what the workers and the process waiting for a queued run share about it in Redis, beside
 * BullMQ's own keys. Which samples were queued (a bitmap over i × M + j, and their number `target`), which
 * of those were resolved (a second bitmap and its count: stored by this run's workers, found stored, or
 * skipped), how many failed for good and why, and whether the run was stopped (Ctrl-C, a stop rule) or some
 * columns settled, which workers read before their jobs. Marking a sample resolved twice (a retried job)
 * counts it once, and a job left from an earlier queuing of the run counts only if its sample was queued
 * again, so `done` reaches `target` exactly when every queued sample is resolved.
 */

/** How a stopped run ended, as a stop decision or Ctrl-C left it. */
export type BoardStop = Pick<StopDecision, 'status' | 'message'> & { rule?: string };

export interface BoardCounts {
  target: number;
  done: number;
  failed: number;
  /** The first error of a job that failed for good. */
  error?: string;
}

/** Run keys expire a week after their last use. */
const TTL_S = 7 * 24 * 3600;

const MARK = `
if redis.call('GETBIT', KEYS[5], ARGV[1]) == 1 and redis.call('SETBIT', KEYS[1], ARGV[1], 1) == 0 then redis.call('INCR', KEYS[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return { tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0') }`;

const FAIL = `
if redis.call('GETBIT', KEYS[1], ARGV[1]) == 1 and redis.call('SETBIT', KEYS[2], ARGV[1], 1) == 0 then
  redis.call('INCR', KEYS[3])
  redis.call('SET', KEYS[4], ARGV[2], 'EX', ARGV[3], 'NX')
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 0`;

export class RunBoard {
  constructor(
    private redis: Redis,
    private prefix: string,
  ) {}

  private key(runId: string, what: string): string {
    return `${this.prefix}:assay:run:${runId}:${what}`;
  }

  /** A fresh board for a run about to be queued (a resume starts its count again). */
  async reset(runId: string): Promise<void> {
    await this.redis.del(...['target', 'queued', 'bits', 'done', 'failed', 'failedbits', 'error', 'stop', 'settled'].map((w) => this.key(runId, w)));
  }

  /** The samples (i × M + j) about to be queued: set before their jobs exist, so no worker outruns the count. */
  async expect(runId: string, indices: number[]): Promise<void> {
    const queued = this.key(runId, 'queued');
    for (let at = 0; at < indices.length; at += 10_000) {
      const p = this.redis.pipeline();
      for (const x of indices.slice(at, at + 10_000)) p.setbit(queued, x, 1);
      await p.exec();
    }
    await this.redis.multi().incrby(this.key(runId, 'target'), indices.length).expire(this.key(runId, 'target'), TTL_S).expire(queued, TTL_S).exec();
  }

  /** Sample `index` (i × M + j) is resolved; returns the counts after it. */
  async mark(runId: string, index: number): Promise<{ done: number; target: number; failed: number }> {
    const keys = [this.key(runId, 'bits'), this.key(runId, 'done'), this.key(runId, 'target'), this.key(runId, 'failed'), this.key(runId, 'queued')];
    const [done, target, failed] = (await this.redis.eval(MARK, keys.length, ...keys, index, TTL_S)) as number[];
    return { done, target, failed };
  }

  /** Sample `index`'s job failed for good (no attempts left, or a problem no retry can fix); counted once, if it was queued. */
  async fail(runId: string, index: number, message: string): Promise<void> {
    const keys = [this.key(runId, 'queued'), this.key(runId, 'failedbits'), this.key(runId, 'failed'), this.key(runId, 'error')];
    await this.redis.eval(FAIL, keys.length, ...keys, index, message, TTL_S);
  }

  async counts(runId: string): Promise<BoardCounts> {
    const [target, done, failed, error] = await this.redis.mget(
      this.key(runId, 'target'),
      this.key(runId, 'done'),
      this.key(runId, 'failed'),
      this.key(runId, 'error'),
    );
    return { target: Number(target ?? 0), done: Number(done ?? 0), failed: Number(failed ?? 0), ...(error ? { error } : {}) };
  }

  /** Stop the run: workers skip its remaining jobs. The first stop wins. */
  async stop(runId: string, stop: BoardStop): Promise<void> {
    await this.redis.set(this.key(runId, 'stop'), JSON.stringify(stop), 'EX', TTL_S, 'NX');
  }

  /** Columns no longer worth checking (a stop rule settled them): workers leave their cells pending. */
  async settle(runId: string, columns: number[]): Promise<void> {
    await this.redis.set(this.key(runId, 'settled'), JSON.stringify([...new Set(columns)].sort((a, b) => a - b)), 'EX', TTL_S);
  }

  /** Whether the run was stopped, and its settled columns: what a worker reads before it runs a sample. */
  async state(runId: string): Promise<{ stop?: BoardStop; settled: number[] }> {
    const [stop, settled] = await this.redis.mget(this.key(runId, 'stop'), this.key(runId, 'settled'));
    return { ...(stop ? { stop: JSON.parse(stop) as BoardStop } : {}), settled: settled ? (JSON.parse(settled) as number[]) : [] };
  }
}
