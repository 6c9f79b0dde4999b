import type { Command } from 'commander';
import { loadExperiment, type Experiment } from '../config/index.js';
import { summarize } from '../core/summarize.js';
import type { Validator } from '../core/validator.js';
import { DURATION_EXPECTED, parseDuration } from '../config/duration.js';
import { ExitCode, UsageError } from '../errors.js';
import { verifierFromConfig } from '../judge/config.js';
import type { CacheSettings } from '../providers/cache.js';
import { createSystem } from '../providers/factory.js';
import { priceTable, type PriceTable } from '../providers/prices.js';
import { exitCodeFor, reportMeta } from '../report/meta.js';
import { formatTerminalSummary } from '../report/terminal.js';
import { checkReportTargets } from '../report/targets.js';
import { reportsToStdout, writeReports } from '../report/write.js';
import { summaryOptionsOf } from '../run/options.js';
import { maxCostRule } from '../run/cost.js';
import { createProgressView } from '../run/progress.js';
import { runExperiment, validatorMeta } from '../run/runner.js';
import { openStore, storeFailure, storeFile, storeLocation } from '../store/open.js';
import type { Store } from '../store/types.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';

interface RunFlags {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
  concurrency?: string;
  samples?: string;
  resume?: string;
  store?: string;
  allowInconclusive?: boolean;
  progress?: boolean;
  cache?: boolean;
  cacheTtl?: string;
  maxCost?: string;
}

/** A whole number ≥ 1 from a flag, or a UsageError naming the flag and what was found. */
export function positiveIntFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new UsageError(`${flag}: expected a whole number ≥ 1, found ${JSON.stringify(value)}`, { path: flag });
  return Number(value);
}

/** An amount of USD > 0 from a flag. */
export function usdFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const usd = Number(value.trim().replace(/^\$/, ''));
  if (!/\d/.test(value) || !Number.isFinite(usd) || usd <= 0) throw new UsageError(`${flag}: expected an amount of USD > 0 such as 5 or 0.50, found ${JSON.stringify(value)}`, { path: flag });
  return usd;
}

/** The experiment's validators followed by its verifiers: the K columns of the tensor, in order. */
function allValidators(x: Experiment, models: { prices: PriceTable; cache?: CacheSettings }): Validator[] {
  const verifiers = x.verifierConfigs.map((raw, i) => verifierFromConfig(raw, { file: x.configPath, path: `verifiers[${i}]`, timeoutMs: x.timeoutMs, ...models }) as Validator);
  return [...x.validators, ...verifiers];
}

/** The response cache as the flags and the config ask: --cache / --no-cache over `cache:`, --cache-ttl over its ttl. */
function cacheSettings(flags: RunFlags, x: Experiment, store: Store): CacheSettings | undefined {
  const ttlMs = flags.cacheTtl !== undefined ? parseDuration(flags.cacheTtl) : x.cache?.ttlMs;
  if (flags.cacheTtl !== undefined && ttlMs === undefined) throw new UsageError(`--cache-ttl: ${DURATION_EXPECTED}, found ${JSON.stringify(flags.cacheTtl)}`, { path: '--cache-ttl' });
  const on = flags.cache ?? (x.cache !== undefined || flags.cacheTtl !== undefined);
  return on ? { store: store.cache, ...(ttlMs !== undefined ? { ttlMs } : {}) } : undefined;
}

async function runCommand(configArg: string | undefined, flags: RunFlags): Promise<void> {
  const concurrency = positiveIntFlag('--concurrency', flags.concurrency);
  const samples = positiveIntFlag('--samples', flags.samples);
  const maxCost = usdFlag('--max-cost', flags.maxCost);
  // Report paths are checked before any call is made: a run must not be lost to an unwritable report.
  const location = storeLocation(flags.store);
  checkReportTargets(flags, { storeFile: storeFile(location) });
  // A config that does not load should leave no trace: the store (and .assay/) is opened once it has,
  // except for `--resume` without a config, which reads the config's path from the store.
  let store: Store | undefined;
  let experiment: Experiment | undefined;
  let system: Awaited<ReturnType<typeof createSystem>> | undefined;
  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.INTERRUPTED); // a second Ctrl-C: quit at once (stored samples are safe)
    process.stderr.write('\nassay: stopping; finished samples are kept (Ctrl-C again to quit at once)\n');
    ac.abort();
  };
  try {
    let configPath = configArg;
    if (configPath === undefined) {
      if (flags.resume === undefined) throw new UsageError('assay run: expected a config file (e.g. assay run assay.yaml), found none');
      store = await openStore(location);
      const prior = await store.getRun(flags.resume);
      if (!prior) throw new UsageError(`--resume: no run with id "${flags.resume}" in the store (list them with: assay runs)`, { path: '--resume' });
      if (!prior.configPath) throw new UsageError(`--resume ${flags.resume}: the run has no config file on record; give it: assay run <config> --resume ${flags.resume}`);
      configPath = prior.configPath;
    }
    experiment = await loadExperiment(configPath, { ...(samples !== undefined ? { samples } : {}), ...(concurrency !== undefined ? { concurrency } : {}) });
    store ??= await openStore(location);
    const models = { prices: priceTable(experiment.prices), cache: cacheSettings(flags, experiment, store) };
    const validators = allValidators(experiment, models);
    system = createSystem(experiment.systemConfig, { file: configPath, baseDir: experiment.baseDir, inputs: experiment.inputs, ...models });
    const budget = maxCost ?? experiment.maxCostUsd;
    const progress = createProgressView(process.stderr, flags.progress === false ? false : undefined);
    process.on('SIGINT', onSigint);
    const result = await runExperiment({
      experiment: { ...experiment, validators },
      system,
      store,
      ...(flags.resume !== undefined ? { runId: flags.resume } : {}),
      signal: ac.signal,
      ...(budget !== undefined ? { stopRules: [maxCostRule(budget)] } : {}),
      onStart: (run, p) => {
        const resumed = flags.resume !== undefined ? ` (resuming: ${p.skipped} of ${p.total} samples already stored)` : '';
        process.stderr.write(`assay: run ${run.id}: ${run.N} inputs × ${run.M} samples × ${run.K} validators on ${system!.id}${resumed}\n`);
      },
      onProgress: (p) => progress.update(p),
    })
      .catch((err: unknown) => {
        throw storeFailure(location, err) ?? err;
      })
      .finally(() => progress.stop());
    if (result.stopped) {
      const resume = result.stopped.status === 'interrupted' ? ` (assay run --resume ${result.run.id})` : '';
      process.stderr.write(`assay: stopped by ${result.stopped.rule}: ${result.stopped.message}${resume}\n`);
    }
    const summary = summarize(result.tensor, validators.map(validatorMeta), summaryOptionsOf(experiment));
    const meta = reportMeta(result.run, result.stats, { allowInconclusive: flags.allowInconclusive ?? false });
    // With a report on stdout (`--json -`), the human table goes to stderr so stdout stays parseable.
    const human = reportsToStdout(flags) ? process.stderr : process.stdout;
    human.write(formatTerminalSummary(summary, meta, { color: Boolean(human.isTTY) }));
    const written = await writeReports(flags, { run: result.run, summary, meta, tensor: result.tensor, store });
    for (const f of written) process.stderr.write(`assay: wrote ${f}\n`);
    process.exitCode = exitCodeFor(summary, result.status, flags.allowInconclusive ?? false);
  } finally {
    process.off('SIGINT', onSigint);
    await system?.close?.();
    experiment?.dispose();
    await store?.close();
  }
}

/** `assay run <config>`: run an experiment, store it, print the summary, write reports, exit on the verdict. */
export function register(program: Command): void {
  program
    .command('run')
    .description('Run a reliability experiment: N inputs × M samples, every output checked by every validator')
    .argument('[config]', 'experiment config: assay.yaml, .json or assay.config.ts (optional with --resume)')
    .option('--json <file>', 'write the JSON report (schemas/report.schema.json); "-" for stdout')
    .option('--junit <file>', 'write a JUnit XML report (one testcase per validator)')
    .option('--markdown <file>', 'write a Markdown report for a CI job summary')
    .option('--html <file>', 'write a static HTML report')
    .option('--concurrency <n>', 'most generation calls in flight at once (overrides the config)')
    .option('--samples <m>', 'samples per input (overrides the config)')
    .option('--resume <runId>', 'finish an interrupted run: stored samples are kept, the rest are run')
    .option(STORE_FLAG, STORE_HELP)
    .option('--allow-inconclusive', 'exit 0 when a verdict is inconclusive (confident mode)')
    .option('--no-progress', 'no progress bar, plain progress lines')
    .option('--cache', 'reuse stored answers of identical calls (same provider, model, request and sample j), and store new ones')
    .option('--no-cache', 'call the models even if the config turns the cache on')
    .option('--cache-ttl <duration>', 'ignore cached answers older than this (e.g. 12h, 7d); implies --cache')
    .option('--max-cost <usd>', 'stop cleanly once the run has cost this much (resumable with --resume)')
    .addHelpText(
      'after',
      '\nExit codes: 0 every validator passes; 1 a validator fails (or is inconclusive, unless --allow-inconclusive);\n2 bad config or usage; 3 internal error; 130 interrupted (resume with --resume <runId>).',
    )
    .action(async (config: string | undefined, flags: RunFlags) => {
      await runCommand(config, flags);
    });
}
