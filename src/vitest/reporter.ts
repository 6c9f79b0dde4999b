/**
 * `assay/vitest/reporter`: add it beside Vitest's own (`reporters: ['default', 'assay/vitest/reporter']`).
 * At the end of a run it prints each describeReliability block's reliability table (the same text as
 * `assay run`); under GitHub Actions (GITHUB_STEP_SUMMARY set) it appends each block's Markdown report to the
 * job summary and prints an `::error` annotation for every rule test that failed.
 */
import { appendFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { AssayTaskMeta } from './index.js';

export interface AssayReporterOptions {
  /** Where the tables go; default process.stdout. */
  out?: { write(s: string): unknown };
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

export default class AssayReporter implements Reporter {
  private readonly out: { write(s: string): unknown };
  private readonly env: NodeJS.ProcessEnv;

  constructor(options: AssayReporterOptions = {}) {
    this.out = options.out ?? process.stdout;
    this.env = options.env ?? process.env;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const runs = new Map<string, AssayTaskMeta['run']>();
    const failed: AssayTaskMeta[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const meta = t.meta().assay;
        if (!meta) continue;
        runs.set(meta.run.runId, meta.run);
        if (t.result().state === 'failed') failed.push(meta);
      }
    }
    if (!runs.size) return;
    for (const r of runs.values()) {
      const cache = r.cache ? ` · cache on: ${r.calls} call(s), ${r.cached} output(s) from the cache` : '';
      this.out.write(`\n${r.terminal.trimEnd()}\n${cache ? `${cache.slice(3)}\n` : ''}`);
    }
    const summaryFile = this.env.GITHUB_STEP_SUMMARY;
    if (!summaryFile) return;
    appendFileSync(summaryFile, [...runs.values()].map((r) => `${r.markdown.trimEnd()}\n\n`).join(''));
    for (const f of failed) this.out.write(`${annotation(f)}\n`);
  }
}

export { AssayReporter };
