import { writeFile } from 'node:fs/promises';
import type { RunSummary } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { RunRecord, Store } from '../store/types.js';
import { renderJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';
import type { ReportMeta } from './meta.js';
import { REPORT_FLAGS, STDOUT, type ReportFlag } from './targets.js';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import { assayCommandLine } from '../invocation.js';

export interface ReportTargets {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
}

/** Outputs are embedded in the HTML report only up to this many samples, to keep the file openable. */
const HTML_SAMPLES_LIMIT = 5000;

const REPORT_WRITE_ERROR = Symbol.for('assay.ReportWriteError');

/**
 * A report that could not be written after the work was done (disk full, folder removed meanwhile).
 * Exit 3 with this one line; the run itself is already stored.
 */
export class ReportWriteError extends AssayError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'ReportWriteError';
    setMarker(this, REPORT_WRITE_ERROR);
  }

  static override isInstance(err: unknown): err is ReportWriteError {
    return hasMarker(err, REPORT_WRITE_ERROR);
  }
}

/** True when some report goes to stdout (`-`): the human summary must then stay off stdout. */
export function reportsToStdout(targets: ReportTargets): boolean {
  return REPORT_FLAGS.some((f) => targets[f] === STDOUT);
}

/**
 * Write every requested report from the one spine: the RunSummary and the run's metadata. `-` writes to
 * stdout. Returns the files written; a failure is a ReportWriteError naming the flag and the file.
 */
export async function writeReports(
  targets: ReportTargets,
  ctx: { run: RunRecord; summary: RunSummary; meta: ReportMeta; tensor: ReliabilityTensor; store: Store },
): Promise<string[]> {
  const render: Record<ReportFlag, () => Promise<string>> = {
    json: async () => renderJsonReport(ctx.summary, ctx.meta),
    junit: async () => renderJunitReport(ctx.summary, ctx.meta),
    markdown: async () => renderMarkdownReport(ctx.summary, ctx.meta),
    html: async () => {
      const samples = ctx.run.N * ctx.run.M <= HTML_SAMPLES_LIMIT ? await ctx.store.samples.list(ctx.run.id) : undefined;
      // The charts (Observable Plot, linkedom) load with an HTML report only (start-up, docs/runner.md).
      const { renderHtmlReport } = await import('./html.js');
      return renderHtmlReport({ ...ctx.run, status: ctx.meta.status }, ctx.summary, ctx.tensor, samples, ctx.meta.stats);
    },
  };
  const written: string[] = [];
  for (const flag of REPORT_FLAGS) {
    const file = targets[flag];
    if (!file) continue;
    const text = await render[flag]();
    if (file === STDOUT) {
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      continue;
    }
    try {
      await writeFile(file, text, 'utf8');
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ReportWriteError(
        `--${flag}: could not write ${file} (${why}); run ${ctx.run.id} is stored, write it again with: ${assayCommandLine(`show ${ctx.run.id} --${flag} <file>`)}`,
        { cause: err },
      );
    }
    written.push(file);
  }
  return written;
}
