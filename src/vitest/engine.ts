import { dirname, relative, sep } from 'node:path';
import { experimentFromDocument, type Experiment } from '../config/load.js';
import { newCacheLedger, withSystemCache, type CacheSettings } from '../providers/cache.js';
import type { LimiterFactory } from '../providers/rate-limit.js';
import { functionSystem } from '../providers/function-system.js';
import type { SystemUnderTest } from '../providers/types.js';
import { renderMarkdownReport } from '../report/markdown.js';
import { reportMeta, verdictPasses } from '../report/meta.js';
import { formatTerminalSummary } from '../report/terminal.js';
import { summarizeRun } from '../core/decision.js';
import { assembleRun, type AssembledRun } from '../run/assemble.js';
import { runExperiment, type RunResult } from '../run/runner.js';
import { checkStoreLocation, openStore, shownLocation, storeLocation } from '../store/open.js';
import { MemoryStore } from '../store/memory.js';
import type { SampleRecord, Store } from '../store/types.js';
import type { StopRule } from '../run/stop.js';
import { cacheOn } from './cache.js';
import { isReplay, keepAsItGoes } from './keep.js';
import { cacheText, callTimeoutText, earlyStopText, ruleMessage, type EarlyStop } from './messages.js';
import { DEFAULT_CALL_TIMEOUT_MS, runTimeoutOf } from './limits.js';
import { blockedText, watchThread } from './thread.js';
import { checkOptions, configDocument } from './options.js';
import type { ReliabilityOptions, RuleOutcome, RunOutcome, SystemFunction } from './types.js';

/**
 * Runs one describeReliability block as an assay experiment: the options become a config document checked
 * like a config file, the runner executes it (sequential stopping included), the store keeps it, and the
 * run's summary (src/core/decision.ts, the one decider) gives every rule its verdict. Loaded on first use, so
 * `import 'assay/vitest'` stays light.
 */

export interface ReliabilityRequest {
  /** The describe block's name. */
  name: string;
  /** Absolute path of the test file. */
  file: string;
  options: ReliabilityOptions;
  /** Folder the experiment name is made relative to (the Vitest root); default process.cwd(). */
  root?: string;
  env?: NodeJS.ProcessEnv;
  /** A store to use instead of opening one (the matchers' in-memory runs). */
  store?: Store;
  /** One call repeated (toHoldReliably): never cached, and its message shows outputs, not inputs. */
  single?: boolean;
  /** Where rate limits are kept (tests count their permits); default this process's. */
  limiters?: LimiterFactory;
}

/** The experiment name: test file (relative to the root, with /) and describe name, so a trend follows one test. */
export function experimentName(file: string, name: string, root = process.cwd()): string {
  return `${relative(root, file).split(sep).join('/')} › ${name}`;
}

/**
 * A function system. Its outputs are its code's, so they are never replayed unless the user names a key they
 * control (`cache: { key }`: keyed by experiment name, that key, input and sample j); with the cache on, the
 * models it calls through `withAssayCache`/`assayCache()` are cached by their request instead (ai-sdk-cache.ts).
 */
function functionSystemOf(x: Experiment, o: ReliabilityOptions, cache: CacheSettings | undefined): SystemUnderTest | undefined {
  if (typeof o.system !== 'function') return undefined;
  const sys = functionSystem(o.system as SystemFunction, cache ? { cache } : {});
  const key = typeof o.cache === 'object' ? o.cache.key : undefined;
  return cache && key !== undefined ? withSystemCache(sys, { vitest: x.name, key }, cache) : sys;
}

/**
 * Whether a call met its per-call limit, seen as the samples are stored: the stores other than memory keep an
 * error's message, not its kind, so the samples read back from SQLite or PostgreSQL cannot say it. Stops nothing.
 */
function timeoutWatch(): StopRule & { seen: boolean } {
  const watch = {
    name: 'timeout-watch',
    ignoresResumed: true,
    seen: false,
    observe: (s: SampleRecord) => void (watch.seen ||= s.generationErrorKind === 'timeout'),
    check: () => undefined,
  };
  return watch;
}

/** Why the run ended short of its samples, if it did: a stop rule (fail fast), else runTimeoutMs when it passed. */
function earlyStopOf(result: RunResult, timedOutAt: number | undefined): EarlyStop | undefined {
  if (result.status !== 'interrupted') return undefined;
  if (result.stopped) return { by: 'rule', cause: result.stopped.cause ?? result.stopped.message };
  return timedOutAt !== undefined ? { by: 'runTimeoutMs', ms: timedOutAt } : { by: 'rule', cause: 'the run was interrupted' };
}

/** Run the block's experiment, store it, and decide each rule's test. */
export async function runReliability(req: ReliabilityRequest): Promise<RunOutcome> {
  const env = req.env ?? process.env;
  const name = experimentName(req.file, req.name, req.root);
  const where = `${name} (${req.single ? 'toHoldReliably' : 'describeReliability'})`;
  checkOptions(req.options, where);
  // From here, as the Vitest hook's own limit (set a margin above it, limits.ts) runs from a little earlier.
  const runTimeoutMs = runTimeoutOf(req.options.runTimeoutMs);
  const deadline = AbortSignal.timeout(runTimeoutMs);
  const x = await experimentFromDocument(configDocument(name, req.options), { file: where, configPath: req.file, baseDir: dirname(req.file) });
  let store: Store | undefined;
  let assembled: AssembledRun | undefined;
  try {
    const useCache = !req.single && cacheOn(req.options.cache, env);
    // The block's own `store:` is named as such (not as the CLI's --store); ASSAY_STORE names itself.
    const location = req.options.store !== undefined ? checkStoreLocation(req.options.store, `${where}: store`, process.cwd()) : storeLocation(undefined, env);
    store = req.store ?? (await openStore(location));
    const ledger = newCacheLedger();
    const cache: CacheSettings | undefined = useCache ? { store: store.cache, ledger } : undefined;
    // The one assembly (run/assemble.ts), as `assay run` makes its run: rate limits, prices, judges, stop rules.
    const system = functionSystemOf(x, req.options, cache);
    assembled = await assembleRun(x, {
      useCache,
      // A call's limit: the block's timeoutMs (checked by the loader), else assay/vitest's shorter default.
      timeoutMs: req.options.timeoutMs !== undefined ? x.timeoutMs : DEFAULT_CALL_TIMEOUT_MS,
      ...(cache ? { cache: cache.store, cacheLedger: ledger } : {}),
      ...(system ? { system } : {}),
      ...(req.limiters ? { limiters: req.limiters } : {}),
      ...(req.env ? { env: req.env } : {}),
    });
    // With the cache on the run is made in a scratch store and kept as it goes once it is no replay (keep.ts).
    const scratch = useCache ? new MemoryStore() : store;
    const keeping = useCache ? keepAsItGoes(scratch, store, ledger) : undefined;
    // No config file to resume from: the test file is named in the run's name, not as its config. runTimeoutMs
    // stops the run as Ctrl-C stops `assay run`: in-flight calls abandoned, finished samples kept, run interrupted.
    const thread = watchThread();
    const timeouts = timeoutWatch();
    const result = await runExperiment({
      ...assembled,
      experiment: { ...assembled.experiment, configPath: undefined },
      stopRules: [...assembled.stopRules, timeouts],
      store: keeping ? keeping.store : scratch,
      signal: deadline,
    }).finally(() => thread.stop());
    const blocked = blockedText(thread.longestGapMs());
    const replay = useCache && isReplay(ledger);
    const samples = await scratch.samples.list(result.run.id);
    const run = keeping ? ((await keeping.finish(result.run)) ?? result.run) : result.run;
    const summary = summarizeRun(run, result.tensor);
    const meta = reportMeta(run, result.stats, req.options.store !== undefined ? { store: shownLocation(location) } : {});
    const skip = req.options.onInconclusive === 'skip';
    const early = earlyStopOf(result, deadline.aborted ? runTimeoutMs : undefined);
    const stopped = early && earlyStopText(early, samples.length, run.N * run.M, req.single ? 'calls' : 'samples');
    const fromCache = useCache ? cacheText(ledger, replay) : undefined;
    const timedOut = timeouts.seen ? `\n  ${callTimeoutText(assembled.experiment.timeoutMs, req.options.timeoutMs !== undefined)}` : '';
    const rules: RuleOutcome[] = summary.validators.map((v, k) => ({
      name: v.name,
      verdict: v.verdict,
      // A run stopped short of its samples answers nothing: every rule's test fails, saying why.
      test: stopped ? 'fail' : verdictPasses(v.verdict) ? 'pass' : v.verdict === 'inconclusive' && skip ? 'skip' : 'fail',
      message:
        ruleMessage(summary, k, run.inputs, samples, {
          single: req.single ?? false,
          stats: result.stats,
          ...(stopped ? { stopped } : {}),
          ...(fromCache ? { fromCache } : {}),
        }) +
        timedOut +
        (blocked ? `\n  ${blocked}` : ''),
    }));
    return {
      runId: run.id,
      name,
      terminal: formatTerminalSummary(summary, meta),
      markdown: renderMarkdownReport(summary, meta),
      rules,
      calls: ledger.misses,
      cached: ledger.hits,
      cache: useCache,
      ...(ledger.oldest !== undefined ? { cachedFrom: ledger.oldest, cachedTo: ledger.newest ?? ledger.oldest } : {}),
      replay,
    };
  } finally {
    await (assembled ? assembled.dispose() : x.dispose());
    await store?.close();
  }
}
