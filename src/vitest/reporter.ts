/**
 * `assay/vitest/reporter`: add it beside Vitest's own (`reporters: ['default', 'assay/vitest/reporter']`).
 * At the end of a run it prints each describeReliability block's reliability table (the same text as
 * `assay run`); under GitHub Actions (GITHUB_STEP_SUMMARY set) it appends each block's Markdown report to the
 * job summary and prints an `::error` annotation for every rule test that failed. A summary it cannot write is
 * a warning, never a crash: the annotations still print and Vitest's exit code stays Vitest's.
 */
import { appendFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { Reporter, Vitest } from 'vitest/node';
import type { AssayTaskMeta } from './index.js';
import { storedWhen } from './when.js';
import { thrownMessage } from '../errors.js';

export interface AssayReporterOptions {
  /** Where the tables go; default process.stdout. */
  out?: { write(s: string): unknown };
  /** Where warnings go; default process.stderr. */
  err?: { write(s: string): unknown };
  env?: NodeJS.ProcessEnv;
}

/** A workflow command's value, escaped as GitHub documents it (%, CR, LF; and , : in properties). */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** The `::error` line of a failing rule test. */
export function annotation(meta: AssayTaskMeta, cwd = process.cwd()): string {
  const rule = meta.run.rules.find((r) => r.name === meta.rule);
  const props = [
    ...(meta.file ? [`file=${escapeProperty(relative(cwd, meta.file).split(sep).join('/'))}`] : []),
    ...(meta.line !== undefined ? [`line=${meta.line}`] : []),
    `title=${escapeProperty(`${meta.run.name} › ${meta.rule}`)}`,
  ];
  return `::error ${props.join(',')}::${escapeData(rule?.message ?? meta.rule)}`;
}

/**
 * A block's run has no config file on record, so `assay run --resume` cannot finish it (it says so, exit 2):
 * what does is running the test file again; the cache serves it the model calls already made (a function system's
 * own outputs only under `cache: { key }`).
 */
export function rerunAdvice(file: string | undefined, cacheOn: boolean, cwd = process.cwd()): string {
  const target = file ? ` ${relative(cwd, file).split(sep).join('/')}` : '';
  const keep = cacheOn
    ? 'the cache serves the model calls already made'
    : 'with the cache on (ASSAY_CACHE=1 or cache: true) a re-run is served the model calls already made';
  return `re-run the test file: npx vitest run${target} (${keep})`;
}

/** The terminal report of a block's run, its resume command (the CLI's) replaced by what works for a test. */
export function blockTerminal(run: AssayTaskMeta['run'], file: string | undefined, cwd = process.cwd()): string {
  return run.terminal.replace(/resume with: (?:npx )?assay run .*--resume .*$/m, rerunAdvice(file, run.cache, cwd));
}

/** What the cache did for a block: calls made, answers served and when they were stored, and whether the run was kept. */
export function cacheLine(r: AssayTaskMeta['run']): string {
  const when = r.cachedFrom !== undefined ? ` (stored ${storedWhen(r.cachedFrom, r.cachedTo ?? r.cachedFrom)})` : '';
  const replay = r.replay ? '; a replay: not stored as a new run' : '';
  const none =
    r.calls + r.cached === 0
      ? "; nothing cacheable was called (a function system's own outputs are not cached: wrap its model with withAssayCache, or give cache: { key })"
      : '';
  return `cache on: ${r.calls} call(s), ${r.cached} answer(s) from the cache${when}${replay}${none}`;
}

export default class AssayReporter implements Reporter {
  private readonly out: { write(s: string): unknown };
  private readonly err: { write(s: string): unknown };
  private readonly env: NodeJS.ProcessEnv;
  /** Vitest's own GitHub Actions reporter, run by this one when the config's reporter list dropped it. */
  private github: Reporter | undefined;
  /** Whether a `github-actions` reporter annotates the failing tests (the config's, or the one run here). */
  private annotated = false;

  constructor(options: AssayReporterOptions = {}) {
    this.out = options.out ?? process.stdout;
    this.err = options.err ?? process.stderr;
    this.env = options.env ?? process.env;
  }

  /**
   * A config that lists its reporters replaces Vitest's default set, which under GITHUB_ACTIONS=true includes
   * `github-actions`: when that one is missing, this reporter runs it, so every failing test of the suite keeps its
   * annotation (the reporter adds, never removes); when it is there, this one leaves annotating to it (no test
   * annotated twice: a rule test's error is its assay message).
   */
  async onInit(vitest: Vitest): Promise<void> {
    this.annotated = vitest.config.reporters.some((r) =>
      Array.isArray(r) ? r[0] === 'github-actions' : (r as object).constructor?.name === 'GithubActionsReporter',
    );
    if (this.annotated || this.env.GITHUB_ACTIONS !== 'true') return;
    const { GithubActionsReporter } = await import('vitest/reporters');
    this.github = new GithubActionsReporter();
    await this.github.onInit?.(vitest);
    this.annotated = true;
  }

  async onTestCaseAnnotate(...args: Parameters<NonNullable<Reporter['onTestCaseAnnotate']>>): Promise<void> {
    await this.github?.onTestCaseAnnotate?.(...args);
  }

  async onTestRunEnd(...args: Parameters<NonNullable<Reporter['onTestRunEnd']>>): Promise<void> {
    await this.github?.onTestRunEnd?.(...args);
    const [testModules] = args;
    const runs = new Map<string, { run: AssayTaskMeta['run']; file?: string }>();
    const failed: AssayTaskMeta[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const meta = t.meta().assay;
        if (!meta) continue;
        runs.set(meta.run.runId, { run: meta.run, file: meta.file ?? m.moduleId });
        if (t.result().state === 'failed') failed.push(meta);
      }
    }
    if (!runs.size) return;
    for (const { run: r, file } of runs.values()) {
      const cache = r.cache ? `${cacheLine(r)}\n` : '';
      this.out.write(`\n${blockTerminal(r, file).trimEnd()}\n${cache}`);
    }
    const summaryFile = this.env.GITHUB_STEP_SUMMARY;
    if (!summaryFile) return;
    // Annotated by Vitest's github-actions reporter already (its message is the rule's): not twice.
    if (!this.annotated) for (const f of failed) this.out.write(`${annotation(f)}\n`);
    try {
      appendFileSync(summaryFile, [...runs.values()].map(({ run: r }) => `${r.markdown.trimEnd()}\n\n`).join(''));
    } catch (e) {
      // A job summary is an extra: the verdicts and the exit code are Vitest's, so say it and go on.
      const why = thrownMessage(e);
      this.err.write(`assay/vitest/reporter: warning: could not append the job summary to GITHUB_STEP_SUMMARY=${summaryFile}: ${why}\n`);
    }
  }
}

export { AssayReporter };
