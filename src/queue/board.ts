import type { Redis } from 'ioredis';
import { direct, type Ride } from '../store/outage.js';
import type { StopDecision } from '../run/stop.js';
import type { SampleJobResult } from './jobs.js';

/**
 * The run board: what the workers and the process waiting for a queued run share about it in Redis, beside
 * BullMQ's own keys. Which samples were queued (a bitmap over i × M + j, and their number `target`), which
 * of those were resolved (a second bitmap and its count: stored by this run's workers, found stored, or
 * skipped), how many failed for good and why, and whether the run was stopped (Ctrl-C, a stop rule) or some
 * columns settled, which workers read before their jobs; and, while a process watches the run (its stop
 * rules decide from the samples), a stream of the samples as the workers resolve them. Marking a sample resolved twice (a retried job)
 * counts it once, and a job left from an earlier queuing of the run counts only if its sample was queued
 * again, so `done` reaches `target` exactly when every queued sample is resolved. Every step is idempotent
 * (a step whose answer was lost with the connection is simply taken again), and goes through `ride`, which
 * waits out a lost Redis for a bounded time.
 */

/** How a stopped run ended, as a stop decision or Ctrl-C left it. */
export type BoardStop = Pick<StopDecision, 'status' | 'message'> & { rule?: string };

export interface BoardCounts {
  /** False when the run has no board in Redis: never queued, expired, or lost with a Redis restarted without its data. */
  present: boolean;
  target: number;
  done: number;
  failed: number;
  /** The first error of a job that failed for good. */
  error?: string;
}

/** Run keys expire a week after their last use. */
const TTL_S = 7 * 24 * 3600;

/** Samples kept in a watched run's stream for a watcher that fell behind (older ones are trimmed). */
const STREAM_MAX = 100_000;

// KEYS: bits, done, target, failed, queued, results, watch. ARGV: index, ttl, the sample's result (JSON, or '').
const MARK = `
if redis.call('GETBIT', KEYS[5], ARGV[1]) == 1 and redis.call('SETBIT', KEYS[1], ARGV[1], 1) == 0 then redis.call('INCR', KEYS[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[7]) == 1 then
  redis.call('XADD', KEYS[6], 'MAXLEN', '~', ${STREAM_MAX}, '*', 'r', ARGV[3])
  redis.call('EXPIRE', KEYS[6], ARGV[2])
end
return { tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0') }`;

const FAIL = `
if redis.call('GETBIT', KEYS[1], ARGV[1]) == 1 and redis.call('SETBIT', KEYS[2], ARGV[1], 1) == 0 then
  redis.call('INCR', KEYS[3])
  redis.call('SET', KEYS[4], ARGV[2], 'EX', ARGV[3], 'NX')
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 0`;

// KEYS: target, queued. Target is the number of samples queued: set, not added to, so that taking the step twice changes nothing.
const TARGET = `
redis.call('SET', KEYS[1], redis.call('BITCOUNT', KEYS[2]), 'EX', ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 0`;

export class RunBoard {
  constructor(
    private redis: Redis,
    private prefix: string,
    private ride: Ride = direct,
  ) {}

  private key(runId: string, what: string): string {
    return `${this.prefix}:assay:run:${runId}:${what}`;
  }

  /** A fresh board for a run about to be queued (a resume starts its count again). */
  async reset(runId: string): Promise<void> {
    const keys = ['target', 'queued', 'bits', 'done', 'failed', 'failedbits', 'error', 'stop', 'settled', 'results', 'watch'].map((w) => this.key(runId, w));
    await this.ride(() => this.redis.del(...keys));
  }

  /** The samples (i × M + j) about to be queued: set before their jobs exist, so no worker outruns the count. */
  async expect(runId: string, indices: number[]): Promise<void> {
    const queued = this.key(runId, 'queued');
    for (let at = 0; at < indices.length; at += 10_000) {
      await this.ride(async () => {
        const p = this.redis.pipeline();
        for (const x of indices.slice(at, at + 10_000)) p.setbit(queued, x, 1);
        const replies = (await p.exec()) ?? [];
        for (const [err] of replies) if (err) throw err;
      });
    }
    await this.ride(() => this.redis.eval(TARGET, 2, this.key(runId, 'target'), queued, TTL_S));
  }

  /** Sample `index` (i × M + j) is resolved (`result`: how, for a process watching the run); returns the counts after it. */
  async mark(runId: string, index: number, result?: SampleJobResult): Promise<{ done: number; target: number; failed: number }> {
    const keys = ['bits', 'done', 'target', 'failed', 'queued', 'results', 'watch'].map((w) => this.key(runId, w));
    const r = result?.outcomes ? JSON.stringify(result) : '';
    const [done, target, failed] = (await this.ride(() => this.redis.eval(MARK, keys.length, ...keys, index, TTL_S, r))) as number[];
    return { done, target, failed };
  }

  /** A process watches the run: from now on the workers add each sample they resolve to the run's stream (results). */
  async watch(runId: string): Promise<void> {
    await this.ride(() => this.redis.set(this.key(runId, 'watch'), '1', 'EX', TTL_S));
  }

  /**
   * The samples resolved after stream position `after` ('0' for the first), at most `count`, and the
   * position to read on from. Reads without blocking: the watcher asks again at its next poll.
   */
  async results(runId: string, after: string, count = 1000): Promise<{ results: SampleJobResult[]; next: string }> {
    const reply = (await this.ride(() => this.redis.xread('COUNT', count, 'STREAMS', this.key(runId, 'results'), after))) as
      [string, [string, string[]][]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    return {
      results: entries.map(([, fields]) => JSON.parse(fields[1]) as SampleJobResult),
      next: entries.length ? entries[entries.length - 1][0] : after,
    };
  }

  /** Sample `index`'s job failed for good (no attempts left, or a problem no retry can fix); counted once, if it was queued. */
  async fail(runId: string, index: number, message: string): Promise<void> {
    const keys = [this.key(runId, 'queued'), this.key(runId, 'failedbits'), this.key(runId, 'failed'), this.key(runId, 'error')];
    await this.ride(() => this.redis.eval(FAIL, keys.length, ...keys, index, message, TTL_S));
  }

  async counts(runId: string): Promise<BoardCounts> {
    const [target, done, failed, error] = await this.ride(() =>
      this.redis.mget(this.key(runId, 'target'), this.key(runId, 'done'), this.key(runId, 'failed'), this.key(runId, 'error')),
    );
    return {
      present: target !== null,
      target: Number(target ?? 0),
      done: Number(done ?? 0),
      failed: Number(failed ?? 0),
      ...(error ? { error } : {}),
    };
  }

  /** Stop the run: workers skip its remaining jobs. The first stop wins. */
  async stop(runId: string, stop: BoardStop): Promise<void> {
    await this.ride(() => this.redis.set(this.key(runId, 'stop'), JSON.stringify(stop), 'EX', TTL_S, 'NX'));
  }

  /** Columns no longer worth checking (a stop rule settled them): workers leave their cells pending. */
  async settle(runId: string, columns: number[]): Promise<void> {
    const value = JSON.stringify([...new Set(columns)].sort((a, b) => a - b));
    await this.ride(() => this.redis.set(this.key(runId, 'settled'), value, 'EX', TTL_S));
  }

  /** Whether the run was stopped, and its settled columns: what a worker reads before it runs a sample. */
  async state(runId: string): Promise<{ stop?: BoardStop; settled: number[] }> {
    const [stop, settled] = await this.ride(() => this.redis.mget(this.key(runId, 'stop'), this.key(runId, 'settled')));
    return { ...(stop ? { stop: JSON.parse(stop) as BoardStop } : {}), settled: settled ? (JSON.parse(settled) as number[]) : [] };
  }
}
