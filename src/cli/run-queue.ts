import type { Redis } from 'ioredis';
import type { Experiment } from '../config/load.js';
import { UsageError } from '../errors.js';
import { createSystem } from '../providers/factory.js';
import { QueueError, type RedisLocation } from '../queue/connection.js';
import type { QueuedRunResult } from '../queue/coordinator.js';
import { tensorColumns } from '../run/columns.js';
import type { ProgressView } from '../run/progress.js';
import type { RunProgress } from '../run/runner.js';
import type { StopRule } from '../run/stop.js';
import { isPostgresUrl, shownLocation } from '../store/open.js';
import type { Store } from '../store/types.js';

/**
 * The environment a queued run's config is checked against here. The workers call the system and the
 * judges, so they hold the API keys; this process only needs the config to be well formed.
 */
const workersHoldSecrets = new Proxy(process.env, { get: (env, name: string) => env[name] ?? '(set on the workers)' });

export interface QueuedCommand {
  experiment: Experiment;
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
  /** Decided by the coordinator from the samples the workers store (stopping: sequential, --max-cost, fail fast); workers skip a stopped run. */
  stopRules?: readonly StopRule[];
}

/** `assay run --queue`: queue the run's missing samples for `assay worker`s, wait (unless --detach) and return the run as a local run would. */
export async function runQueued(c: QueuedCommand): Promise<QueuedRunResult> {
  const x = c.experiment;
  const validators = tensorColumns(x, undefined, workersHoldSecrets);
  const system = createSystem(x.systemConfig, { file: c.configPath, baseDir: x.baseDir, inputs: x.inputs, env: workersHoldSecrets });
  const systemId = system.id;
  await system.close?.();
  if ((x.serialisable as { document?: unknown } | null)?.document === undefined) {
    process.stderr.write(
      `assay: ${c.configPath} holds functions, which cannot be stored with the run: every worker loads ${x.configPath}, which must exist at that path where the workers run\n`,
    );
  }
  if (!isPostgresUrl(c.location)) {
    process.stderr.write(
      `assay: note: the workers must use this same store (${c.location}); a SQLite file serves only workers on this machine, a postgres:// store any machine\n`,
    );
  }
  const where = `--queue ${c.queue.shown} --store ${shownLocation(c.location)}`;
  // bullmq loads with the queued run only, not with every `assay run` (start-up, docs/runner.md).
  const { runOnQueue } = await import('../queue/coordinator.js');
  const result = await runOnQueue({
    experiment: { ...x, validators },
    systemId,
    store: c.store,
    queue: c.queue,
    redis: c.redis,
    outageMs: c.outageMs,
    log: (line) => process.stderr.write(`assay: ${line}\n`),
    where,
    ...(c.resume !== undefined ? { runId: c.resume, retryErrors: c.retryErrors ?? false } : {}),
    detach: c.detach,
    signal: c.signal,
    ...(c.stopRules?.length ? { stopRules: c.stopRules } : {}),
    onStart: (run, p, queued) => {
      c.onStart?.(run.id, p);
      const resumed = c.resume !== undefined ? ` (resuming: ${p.skipped} of ${p.total} samples already stored)` : '';
      process.stderr.write(
        `assay: run ${run.id}: ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${systemId}${resumed}; ${queued} sample job(s) queued on ${c.queue.shown}\n`,
      );
    },
    onProgress: (p) => c.progress.update(p),
    onIdle: () => process.stderr.write(`assay: no worker has finished a sample yet; start workers with: assay worker ${where}\n`),
  }).finally(() => c.progress.stop());
  if (result.detached) return result;
  if (result.failed > 0) {
    process.stderr.write(`assay: ${result.failed} sample(s) failed on the workers; the first: ${result.firstError ?? 'unknown'}\n`);
  }
  return result;
}

/** After the report: failures on the workers end the command with exit 3, naming the way to finish the run. */
export function queueFailure(result: QueuedRunResult, c: Pick<QueuedCommand, 'queue' | 'location'>): QueueError | undefined {
  if (result.failed === 0) return undefined;
  return new QueueError(
    `${result.failed} sample(s) of run ${result.run.id} failed on the workers (${result.firstError ?? 'unknown error'}); the run is kept as ${result.status}: fix the cause, then finish it with: assay run --resume ${result.run.id} --queue ${c.queue.shown} --store ${shownLocation(c.location)}`,
  );
}

export function checkQueueFlags(flags: { queue?: string; detach?: boolean }): void {
  if (flags.detach && flags.queue === undefined)
    throw new UsageError('--detach: only with --queue (a local run cannot go on without this process)', { path: '--detach' });
}
