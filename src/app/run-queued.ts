import type { Redis } from 'ioredis';
import { QueueError, type RedisLocation } from '../queue/connection.js';
import type { QueuedRunResult } from '../queue/coordinator.js';
import type { AssembledRun } from '../run/assemble.js';
import type { ProgressView } from '../run/progress.js';
import type { RunProgress } from '../run/runner.js';
import { isPostgresUrl, shownLocation } from '../store/open.js';
import type { Store } from '../store/types.js';
import { assayCommandLine } from '../invocation.js';

export interface QueuedCommand {
  /** Assembled here only to check the config and name the system: the workers assemble it again to run it. */
  assembled: AssembledRun;
  configPath: string;
  store: Store;
  location: string;
  queue: RedisLocation;
  /** Connected before the store was opened (connectRedis); the caller closes it. */
  redis: Redis;
  /** How long a lost queue or store is waited for (ms). */
  outageMs: number;
  resume?: string;
  /** With resume: the samples whose generation failed are queued again. */
  retryErrors?: boolean;
  /** Once the run is open (before the jobs are queued), with what it found. */
  onStart?: (runId: string, p: RunProgress) => void;
  detach: boolean;
  signal: AbortSignal;
  progress: ProgressView;
  say: (line: string) => void;
}

/** `assay run --queue`: queue the run's missing samples for `assay worker`s, wait (unless --detach) and return the run as a local run would. */
export async function runQueued(c: QueuedCommand): Promise<QueuedRunResult> {
  const x = c.assembled.experiment;
  const systemId = c.assembled.system.id;
  if ((x.serialisable as { document?: unknown } | null)?.document === undefined) {
    c.say(
      `${c.configPath} holds functions, which cannot be stored with the run: every worker loads ${x.configPath}, which must exist at that path where the workers run`,
    );
  }
  if (!isPostgresUrl(c.location)) {
    c.say(`note: the workers must use this same store (${c.location}); a SQLite file serves only workers on this machine, a postgres:// store any machine`);
  }
  const where = `--queue ${c.queue.shown} --store ${shownLocation(c.location)}`;
  // bullmq loads with the queued run only, not with every `assay run` (start-up, docs/runner.md).
  const { runOnQueue } = await import('../queue/coordinator.js');
  const result = await runOnQueue({
    experiment: x,
    systemId,
    store: c.store,
    queue: c.queue,
    redis: c.redis,
    outageMs: c.outageMs,
    log: c.say,
    where,
    ...(c.resume !== undefined ? { runId: c.resume, retryErrors: c.retryErrors ?? false } : {}),
    detach: c.detach,
    signal: c.signal,
    // Decided by the coordinator from the samples the workers store (stopping: sequential, --max-cost, fail fast); workers skip a stopped run.
    ...(c.assembled.stopRules.length ? { stopRules: c.assembled.stopRules } : {}),
    onStart: (run, p, queued) => {
      c.onStart?.(run.id, p);
      const resumed = c.resume !== undefined ? ` (resuming: ${p.skipped} of ${p.total} samples already stored)` : '';
      c.say(
        `run ${run.id}: ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${systemId}${resumed}; ${queued} sample job(s) queued on ${c.queue.shown}`,
      );
    },
    onProgress: (p) => c.progress.update(p),
    onIdle: () => c.say(`no worker has finished a sample yet; start workers with: ${assayCommandLine(`worker ${where}`)}`),
  }).finally(() => c.progress.stop());
  if (result.detached) return result;
  if (result.failed > 0) {
    c.say(`${result.failed} sample(s) failed on the workers; the first: ${result.firstError ?? 'unknown'}`);
  }
  return result;
}

/** After the report: failures on the workers end the command with exit 3, naming the way to finish the run. */
export function queueFailure(result: QueuedRunResult, c: Pick<QueuedCommand, 'queue' | 'location'>): QueueError | undefined {
  if (result.failed === 0) return undefined;
  return new QueueError(
    `${result.failed} sample(s) of run ${result.run.id} failed on the workers (${result.firstError ?? 'unknown error'}); the run is kept as ${result.status}: fix the cause, then finish it with: ${assayCommandLine(`run --resume ${result.run.id} --queue ${c.queue.shown} --store ${shownLocation(c.location)}`)}`,
  );
}
