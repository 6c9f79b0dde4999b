import type { RunSummary } from '../core/summary-types.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { RunRecord, Store } from '../store/types.js';
import { writeHtmlReport } from './html.js';
import { writeJsonReport } from './json.js';
import { writeJunitReport } from './junit.js';
import { writeMarkdownReport } from './markdown.js';
import type { ReportMeta } from './meta.js';

export interface ReportTargets {
  json?: string;
  junit?: string;
  markdown?: string;
  html?: string;
}

/** Outputs are embedded in the HTML report only up to this many samples, to keep the file openable. */
const HTML_SAMPLES_LIMIT = 5000;

/** Write every requested report file from the one spine: the RunSummary and the run's metadata. */
export async function writeReports(
  targets: ReportTargets,
  ctx: { run: RunRecord; summary: RunSummary; meta: ReportMeta; tensor: ReliabilityTensor; store: Store },
): Promise<string[]> {
  const written: string[] = [];
  if (targets.json) {
    await writeJsonReport(targets.json, ctx.summary, ctx.meta);
    written.push(targets.json);
  }
  if (targets.junit) {
    await writeJunitReport(targets.junit, ctx.summary, ctx.meta);
    written.push(targets.junit);
  }
  if (targets.markdown) {
    await writeMarkdownReport(targets.markdown, ctx.summary, ctx.meta);
    written.push(targets.markdown);
  }
  if (targets.html) {
    const samples = ctx.run.N * ctx.run.M <= HTML_SAMPLES_LIMIT ? await ctx.store.listSamples(ctx.run.id) : undefined;
    await writeHtmlReport(targets.html, { ...ctx.run, status: ctx.meta.status }, ctx.summary, ctx.tensor, samples);
    written.push(targets.html);
  }
  return written;
}
