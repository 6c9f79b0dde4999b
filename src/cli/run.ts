import { startTracingFromEnv } from '../otel/sdk.js';
import type { Command } from 'commander';
import type { Estimand, IntervalMethod, StoppingRule, VerdictMode } from '../core/summary-types.js';
import { ExitCode, UsageError } from '../errors.js';
import { exitCodeFor, reportMeta } from '../report/meta.js';
import { formatTerminalSummary } from '../report/terminal.js';
import { checkReportTargets } from '../report/targets.js';
import { reportsToStdout, writeReports } from '../report/write.js';
import { runConfig } from '../app/run-config.js';
import { DEFAULT_MAX_ERRORS } from '../run/fail-fast.js';
import { shownLocation, storeFile, storeLocation } from '../store/open.js';
import { createProgressView } from '../run/progress.js';
import { outageTimeout } from './store-flag.js';
import { parseRedisUrl } from '../queue/connection.js';
import { OUTAGE_FLAG, OUTAGE_HELP, STORE_FLAG, STORE_HELP } from './store-flag.js';
import { durationFlag, intFlag, oneOfFlag, shareFlag, usdFlag } from './flags.js';
import { assayCommandLine } from '../invocation.js';

interface RunFlags {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  concurrency?: string;
  samples?: string;
  resume?: string;
  store?: string;
  queue?: string;
  detach?: boolean;
  allowInconclusive?: boolean;
  progress?: boolean;
  maxErrors?: string;
  stopping?: string;
  verdict?: string;
  interval?: string;
  perInput?: string;
  estimand?: string;
  cache?: boolean;
  cacheTtl?: string;
  maxCost?: string;
  retryErrors?: boolean;
  outageTimeout?: string;
}

async function runCommand(configArg: string | undefined, flags: RunFlags): Promise<void> {
  const concurrency = intFlag('--concurrency', flags.concurrency, { min: 1 });
  const samples = intFlag('--samples', flags.samples, { min: 1 });
  // Samples in a row failing the same way that stop a run (0: never).
  const maxErrors = intFlag('--max-errors', flags.maxErrors, { min: 0, hint: '0 never stops' }) ?? DEFAULT_MAX_ERRORS;
  const stopping = oneOfFlag<StoppingRule>('--stopping', flags.stopping, ['fixed', 'sequential']);
  const verdict = oneOfFlag<VerdictMode>('--verdict', flags.verdict, ['confident', 'point']);
  const interval = oneOfFlag<IntervalMethod>('--interval', flags.interval, ['clopper-pearson', 'wilson', 'wald']);
  const estimand = oneOfFlag<Estimand>('--estimand', flags.estimand, ['inputs', 'population']);
  // The per-input floor of every rule without its own.
  const floor = shareFlag('--per-input', flags.perInput, { open: true, hint: "each input's floor, e.g. 0.8" });
  const perInput = floor !== undefined ? { minSuccess: floor } : undefined;
  const maxCost = usdFlag('--max-cost', flags.maxCost);
  // Ignore cached answers older than this.
  const cacheTtlMs = durationFlag('--cache-ttl', flags.cacheTtl);
  checkQueueFlags(flags);
  if (flags.retryErrors && flags.resume === undefined)
    throw new UsageError('--retry-errors: only with --resume <runId> (a new run has no failed samples to run again)', { path: '--retry-errors' });
  const queue = flags.queue !== undefined ? parseRedisUrl(flags.queue) : undefined;
  const outageMs = outageTimeout(flags.outageTimeout);
  // Report paths are checked before any call is made: a run must not be lost to an unwritable report.
  const location = storeLocation(flags.store);
  checkReportTargets(flags, { storeFile: storeFile(location) });
  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.INTERRUPTED); // a second Ctrl-C: quit at once (stored samples are safe)
    process.stderr.write('\nassay: stopping; finished samples are kept (Ctrl-C again to quit at once)\n');
    ac.abort();
  };
  const say = (line: string) => process.stderr.write(`assay: ${line}\n`);
  process.on('SIGINT', onSigint);
  // The run's spans go to an OTLP endpoint when the standard variables name one (docs/production.md).
  const tracing = await startTracingFromEnv(process.env, say);
  try {
    await using outcome = await runConfig({
      ...(configArg !== undefined ? { config: configArg } : {}),
      overrides: {
        ...(samples !== undefined ? { samples } : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(stopping !== undefined ? { stopping } : {}),
        ...(verdict !== undefined ? { verdict } : {}),
        ...(interval !== undefined ? { interval } : {}),
        ...(perInput !== undefined ? { perInput } : {}),
        ...(estimand !== undefined ? { estimand } : {}),
      },
      ...(flags.resume !== undefined ? { runId: flags.resume, retryErrors: flags.retryErrors ?? false } : {}),
      store: location,
      outageMs,
      ...(queue ? { queue, detach: flags.detach ?? false } : {}),
      maxErrors,
      ...(maxCost !== undefined ? { maxCostUsd: maxCost } : {}),
      // --cache / --no-cache over `cache:`; --cache-ttl over its ttl and turns it on.
      ...(flags.cache !== undefined ? { useCache: flags.cache } : cacheTtlMs !== undefined ? { useCache: true } : {}),
      ...(cacheTtlMs !== undefined ? { cacheTtlMs } : {}),
      signal: ac.signal,
      progress: createProgressView(process.stderr, flags.progress === false ? false : undefined),
      say,
      warn: (m) => say(`warning: ${m}`),
    });
    const { result, summary, store } = outcome;
    if (!summary) {
      say(`run ${result.run.id} is queued; the workers finish it. See it with: ${assayCommandLine(`show ${result.run.id}`)}`);
      process.stdout.write(`${result.run.id}\n`);
      return;
    }
    // Why a stop rule ended the run (sequential: every validator decided; fail-fast: the calls that keep failing), once, before the summary.
    if (result.stopped) say(result.stopped.message);
    if (result.storedByOthers > 0)
      say(`${result.storedByOthers} sample(s) of run ${result.run.id} were stored by another process working on it at the same time; theirs were kept`);
    const meta = reportMeta(result.run, result.stats, {
      allowInconclusive: flags.allowInconclusive ?? false,
      ...(flags.store !== undefined ? { store: shownLocation(flags.store) } : {}),
      ...(queue ? { queue: queue.shown } : {}),
    });
    // With a report on stdout (`--json -`), the human table goes to stderr so stdout stays parseable.
    const human = reportsToStdout(flags) ? process.stderr : process.stdout;
    human.write(formatTerminalSummary(summary, meta, { color: Boolean(human.isTTY) }));
    const written = await writeReports(flags, { run: result.run, summary, meta, tensor: result.tensor, store });
    for (const f of written) say(`wrote ${f}`);
    // A stop rule may set the exit code (fail-fast: 3, the endpoint cannot be used).
    process.exitCode = result.stopped?.exitCode ?? exitCodeFor(summary, result.status, flags.allowInconclusive ?? false);
    if (outcome.failure) throw outcome.failure;
  } finally {
    process.off('SIGINT', onSigint);
    await tracing?.shutdown();
  }
}

/** `assay run <config>`: run an experiment, store it, print the summary, write reports, exit on the verdict. */
export function register(program: Command): void {
  program
    .command('run')
    .description('Run a reliability experiment: N inputs × M samples, every output checked by every validator')
    .argument('[config]', "experiment config: assay.yaml, .json or assay.config.ts (default: the one of them in this folder; with --resume, the run's own)")
    .option('--json <file>', 'write the JSON report (schemas/report.schema.json); "-" for stdout')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per validator)')
    .option('--markdown <file>', 'write a Markdown report for a CI job summary')
    .option('--html <file>', 'write a static HTML report')
    .option('--concurrency <n>', 'most generation calls in flight at once (overrides the config)')
    .option('--samples <m>', 'samples per input (overrides the config)')
    .option('--resume <runId>', 'finish an interrupted run (its id, "latest" or the start of its id): stored samples are kept, the rest are run')
    .option(STORE_FLAG, STORE_HELP)
    .option('--queue <redis-url>', 'run on `assay worker` processes: queue the samples on this Redis (redis://host:6379) and wait for them')
    .option('--detach', 'with --queue: return once the samples are queued, printing the run id')
    .option(
      '--max-errors <n>',
      `stop the run (exit 3, resumable) after n samples in a row fail the same way: connection refused, 401/403/404, a missing model, an unreadable answer (default ${DEFAULT_MAX_ERRORS}; 0 never stops)`,
    )
    .option('--allow-inconclusive', 'exit 0 when a verdict is inconclusive (confident mode); an `error` verdict still exits 1')
    .option('--stopping <rule>', 'fixed (every sample) or sequential (stop each validator once its confidence sequence decides it); overrides the config')
    .option('--verdict <mode>', 'confident (the default: the interval must clear minSuccess) or point (rate ≥ minSuccess); overrides the config')
    .option('--interval <method>', 'clopper-pearson (the default), wilson, or wald (only with --verdict point); overrides the config')
    .option(
      '--estimand <claim>',
      'inputs (verdicts about the inputs run, the default) or population (about the inputs you will meet, each input a unit); overrides the config',
    )
    .option(
      '--per-input <rate>',
      'each input must pass at least this share of its samples, for every rule without its own perInput (Holm over the inputs); overrides the config',
    )
    .option('--no-progress', 'no progress bar, plain progress lines')
    .option('--cache', 'reuse stored answers of identical calls (same provider, model, request and sample j), and store new ones')
    .option('--no-cache', 'call the models even if the config turns the cache on')
    .option('--cache-ttl <duration>', 'ignore cached answers older than this (e.g. 12h, 7d); implies --cache')
    .option(
      '--retry-errors',
      'with --resume: run again the samples whose generation failed (connection refused, 5xx, …; e.g. those of a run fail fast stopped)',
    )
    .option('--max-cost <usd>', 'stop cleanly once the run has cost this much (resumable with --resume)')
    .option(OUTAGE_FLAG, OUTAGE_HELP)
    .addHelpText(
      'after',
      '\nExit codes: 0 every validator passes; 1 a validator fails, is an error (more error cells than maxErrorShare)\nor is inconclusive (unless --allow-inconclusive); 2 bad config or usage; 3 internal error, the store or queue lost\nfor longer than --outage-timeout, or calls kept failing the same way (see --max-errors; resume with --resume <runId>\n[--retry-errors]); 130 interrupted (resume with --resume <runId>).',
    )
    .action(async (config: string | undefined, flags: RunFlags) => {
      await runCommand(config, flags);
    });
}

function checkQueueFlags(flags: { queue?: string; detach?: boolean }): void {
  if (flags.detach && flags.queue === undefined)
    throw new UsageError('--detach: only with --queue (a local run cannot go on without this process)', { path: '--detach' });
}
