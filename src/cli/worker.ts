import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { parseRedisUrl } from '../queue/connection.js';
import { startSampleWorker } from '../queue/worker.js';
import { openStore, shownLocation, storeLocation } from '../store/open.js';
import { positiveIntFlag } from './run.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';

interface WorkerFlags {
  queue?: string;
  store?: string;
  concurrency?: string;
  lockDuration?: string;
}

/**
 * `assay worker --queue redis://… --store postgres://…`: run sample jobs of queued runs until stopped. Ctrl-C
 * (or SIGTERM) stops taking jobs and lets the running ones finish; a second one quits at once, and the
 * queue gives the abandoned jobs to another worker.
 */
async function workerCommand(flags: WorkerFlags): Promise<void> {
  if (flags.queue === undefined)
    throw new UsageError('assay worker: expected --queue <redis-url> (e.g. --queue redis://127.0.0.1:6379), found none', { path: '--queue' });
  const queue = parseRedisUrl(flags.queue);
  const concurrency = positiveIntFlag('--concurrency', flags.concurrency) ?? 8;
  const lockDurationMs = positiveIntFlag('--lock-duration', flags.lockDuration);
  if (lockDurationMs !== undefined && lockDurationMs < 1000)
    throw new UsageError(`--lock-duration: expected at least 1000 ms, found ${lockDurationMs}`, { path: '--lock-duration' });
  const location = storeLocation(flags.store);
  const store = await openStore(location);
  const log = (line: string) => process.stderr.write(`assay worker: ${line}\n`);
  try {
    const worker = await startSampleWorker({
      queue,
      store,
      concurrency,
      ...(lockDurationMs !== undefined ? { lockDurationMs } : {}),
      log,
      storeShown: shownLocation(location),
    });
    log(`taking sample jobs from ${queue.shown} (concurrency ${concurrency}), storing into ${shownLocation(location)}; Ctrl-C to stop`);
    await new Promise<void>((resolve) => {
      let signals = 0;
      const stop = () => {
        signals++;
        if (signals > 1) process.exit(ExitCode.INTERRUPTED);
        log('stopping: finishing the samples in hand (Ctrl-C again to quit at once; the queue gives them to another worker)');
        worker.close().then(resolve, resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    log(`stopped after storing ${worker.stored} sample(s)`);
  } finally {
    await store.close();
  }
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run the sample jobs of queued runs (assay run --queue): many workers, on many machines, share one run')
    .option('--queue <redis-url>', 'the Redis the runs are queued on, e.g. redis://127.0.0.1:6379 (?prefix=name to share a server)')
    .option(STORE_FLAG, STORE_HELP)
    .option('--concurrency <n>', 'sample jobs run at once by this worker (default 8)')
    .option('--lock-duration <ms>', 'how long a job stays with a worker that stopped answering before another takes it (default 30000)')
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped by Ctrl-C or SIGTERM after finishing its samples; 2 bad usage; 3 the queue or store cannot be reached; 130 quit at once.',
    )
    .action((flags: WorkerFlags) => workerCommand(flags));
}
