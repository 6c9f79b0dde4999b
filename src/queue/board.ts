import type { Redis } from 'ioredis';
import type { StopDecision } from '../run/stop.js';

/**
 * The run board: what the workers and the process waiting for a queued run share about it in Redis, beside
 * BullMQ's own keys. How many sample jobs were queued (`target`), which were resolved (a bitmap over
 * i × M + j and its count: stored by this run's workers, found stored, or skipped), how many failed for
 * good and why, and whether the run was stopped (Ctrl-C, a stop rule) or some columns settled, which
 * workers read before each job. Marking a sample resolved twice (a retried job) counts it once.
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
if redis.call('SETBIT', KEYS[1], ARGV[1], 1) == 0 then redis.call('INCR', KEYS[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return { tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0') }`;

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
    await this.redis.del(...['target', 'bits', 'done', 'failed', 'error', 'stop', 'settled'].map((w) => this.key(runId, w)));
  }

  /** `n` more sample jobs were queued. */
  async addTarget(runId: string, n: number): Promise<void> {
    await this.redis.multi().incrby(this.key(runId, 'target'), n).expire(this.key(runId, 'target'), TTL_S).exec();
  }

  /** Sample `index` (i × M + j) is resolved; returns the counts after it. */
  async mark(runId: string, index: number): Promise<{ done: number; target: number; failed: number }> {
    const keys = [this.key(runId, 'bits'), this.key(runId, 'done'), this.key(runId, 'target'), this.key(runId, 'failed')];
    const [done, target, failed] = (await this.redis.eval(MARK, keys.length, ...keys, index, TTL_S)) as number[];
    return { done, target, failed };
  }

  /** A job failed for good (no attempts left, or a problem no retry can fix). */
  async fail(runId: string, message: string): Promise<void> {
    await this.redis
      .multi()
      .incr(this.key(runId, 'failed'))
      .set(this.key(runId, 'error'), message, 'EX', TTL_S, 'NX')
      .expire(this.key(runId, 'failed'), TTL_S)
      .exec();
  }

  async counts(runId: string): Promise<BoardCounts> {
    const [target, done, failed, error] = await this.redis.mget(this.key(runId, 'target'), this.key(runId, 'done'), this.key(runId, 'failed'), this.key(runId, 'error'));
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

  /** What a worker reads before each job: one round trip. */
  async state(runId: string): Promise<{ stop?: BoardStop; settled: number[] }> {
    const [stop, settled] = await this.redis.mget(this.key(runId, 'stop'), this.key(runId, 'settled'));
    return { ...(stop ? { stop: JSON.parse(stop) as BoardStop } : {}), settled: settled ? (JSON.parse(settled) as number[]) : [] };
  }
}
