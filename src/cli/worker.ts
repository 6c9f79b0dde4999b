import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import type { OutageError } from '../store/outage.js';
import { outageTimeout } from './store-flag.js';
import { connectRedis, parseRedisUrl, QueueError } from '../queue/connection.js';
import { startSampleWorker, type SampleWorker } from '../queue/worker.js';
import { openStore, shownLocation, storeLocation, storeOutage } from '../store/open.js';
import { intFlag } from './flags.js';
import { OUTAGE_FLAG, OUTAGE_HELP, STORE_FLAG, STORE_HELP } from './store-flag.js';

interface WorkerFlags {
  queue?: string;
  store?: string;
  concurrency?: string;
  lockDuration?: string;
  outageTimeout?: string;
}

/**
 * `assay worker --queue redis://… --store postgres://…`: run sample jobs of queued runs until stopped. Ctrl-C
 * (or SIGTERM) stops taking jobs and lets the running ones finish; a second one quits at once, and the
 * queue gives the abandoned jobs to another worker. A lost queue or store is waited for (--outage-timeout);
 * past that the worker exits 3, and its jobs go to other workers once their locks expire.
 */
async function workerCommand(flags: WorkerFlags): Promise<void> {
  if (flags.queue === undefined)
    throw new UsageError('assay worker: expected --queue <redis-url> (e.g. --queue redis://127.0.0.1:6379), found none', { path: '--queue' });
  const queue = parseRedisUrl(flags.queue);
  const concurrency = intFlag('--concurrency', flags.concurrency, { min: 1 }) ?? 8;
  const lockDurationMs = intFlag('--lock-duration', flags.lockDuration, { min: 1000, what: 'a whole number of milliseconds' });
  const outageMs = outageTimeout(flags.outageTimeout);
  const location = storeLocation(flags.store);
  const log = (line: string) => process.stderr.write(`assay worker: ${line}\n`);
  // The queue first: a worker that cannot reach it leaves no trace in the store (no schema made).
  const redis = await connectRedis(queue);
  // Either service gone past the bound ends the worker (exit 3); the first to go is the one named.
  let fatal: ((err: OutageError) => void) | undefined;
  let gone: OutageError | undefined;
  const onGiveUp = (err: OutageError) => {
    gone ??= err;
    fatal?.(err);
  };
  let store;
  try {
    store = await openStore(location, { outage: storeOutage(location, { boundMs: outageMs, log, onGiveUp }) });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const signals: { stop?: () => void } = {};
  let worker: SampleWorker | undefined;
  try {
    worker = await startSampleWorker({
      queue,
      redis,
      store,
      concurrency,
      ...(lockDurationMs !== undefined ? { lockDurationMs } : {}),
      log,
      storeShown: shownLocation(location),
      outageMs,
      onFatal: onGiveUp,
    });
    const w = worker;
    log(`taking sample jobs from ${queue.shown} (concurrency ${concurrency}), storing into ${shownLocation(location)}; Ctrl-C to stop`);
    await new Promise<void>((resolve, reject) => {
      let count = 0;
      signals.stop = () => {
        count++;
        if (count > 1) process.exit(ExitCode.INTERRUPTED);
        log('stopping: finishing the samples in hand (Ctrl-C again to quit at once; the queue gives them to another worker)');
        w.close().then(resolve, resolve);
      };
      fatal = (err) => {
        const what = / refused us: /.test(err.message) ? 'fix the URL and restart it' : 'restart it once that is back';
        const said = new QueueError(`${err.message}: the worker stops; ${what} (the samples it held go to other workers)`, { cause: err });
        w.close(true).finally(() => reject(said));
      };
      if (gone) fatal(gone);
      process.on('SIGINT', signals.stop);
      process.on('SIGTERM', signals.stop);
    });
    log(`stopped after storing ${worker.stored} sample(s)`);
  } finally {
    if (signals.stop) {
      process.off('SIGINT', signals.stop);
      process.off('SIGTERM', signals.stop);
    }
    await store.close().catch(() => {});
    redis.disconnect();
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
    .option(OUTAGE_FLAG, OUTAGE_HELP)
    .addHelpText(
      'after',
      '\nExit codes: 0 stopped by Ctrl-C or SIGTERM after finishing its samples; 2 bad usage; 3 the queue or store cannot be reached,\nor was lost for longer than --outage-timeout; 130 quit at once.',
    )
    .action((flags: WorkerFlags) => workerCommand(flags));
}
