import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { displayWidth } from './width.js';
import type { AnswerOutcome } from '../ground/ci.js';
import {
  BatchTally,
  batchParts,
  paintMark,
  tableLine,
  type AnswerResult,
  type BatchFormat,
  type BatchMeta,
  type BatchPart,
  type BatchSummary,
  type GroundingBatch,
} from './grounding-formats.js';
import { MemorySpool, SpoolFolder, type Spool } from './spool.js';
import { STDOUT } from './targets.js';
import { ReportWriteError } from './write.js';

export { GROUNDING_BATCH_SCHEMA, outcomeReason, type AnswerResult, type BatchMeta, type BatchSummary, type GroundingBatch } from './grounding-formats.js';

/**
 * The reports of `assay analyze` over many answers, put together from their parts (grounding-formats.ts): as a
 * string for a batch in memory, or streamed (`BatchReportWriter`): each answer's text written to a spool as it is
 * done, the summary kept as counts, and each report assembled at the end from its summary and its spools. Both
 * ways write the same bytes.
 */

/** One report being written: its parts, the spools of its per-answer parts, the widths of its table. */
class ReportRun {
  private readonly spools: (Spool | undefined)[];
  private readonly widths: number[] = [];
  private index = 0;

  constructor(
    private readonly parts: BatchPart[],
    spool: () => Spool,
    private readonly color: boolean,
  ) {
    this.spools = parts.map((p) => ('fixed' in p ? undefined : spool()));
    for (const p of parts) if ('table' in p) this.widen(p.table.head);
  }

  private widen(cells: readonly string[]): void {
    cells.forEach((cell, c) => (this.widths[c] = Math.max(this.widths[c] ?? 0, displayWidth(cell))));
  }

  add(r: AnswerResult): void {
    this.parts.forEach((p, k) => {
      if ('each' in p) {
        const text = p.each(r, this.index);
        if (text) this.spools[k]!.write(text);
      } else if ('table' in p) {
        const cells = p.table.cells(r);
        this.widen(cells);
        // Kept as JSON (no raw line break) until the widths are known.
        this.spools[k]!.write(JSON.stringify([r.outcome, cells]) + '\n');
      }
    });
    this.index++;
  }

  /** The report, in pieces, once every answer is in. */
  *output(s: BatchSummary): Generator<string | Buffer> {
    for (const [k, p] of this.parts.entries()) {
      if ('fixed' in p) yield p.fixed(s);
      else if ('each' in p) yield* this.spools[k]!.chunks();
      else {
        const { head, numeric } = p.table;
        let batch: string[] = [tableLine(head, this.widths, numeric)];
        for (const record of this.spools[k]!.lines()) {
          const [outcome, cells] = JSON.parse(record) as [AnswerOutcome, string[]];
          batch.push(tableLine(cells, this.widths, numeric, (t) => paintMark(t, outcome, this.color)));
          if (batch.length >= 1024) {
            yield batch.join('\n') + '\n';
            batch = [];
          }
        }
        if (batch.length) yield batch.join('\n') + '\n';
      }
    }
  }
}

function render(format: BatchFormat, b: GroundingBatch, o: { color?: boolean } = {}): string {
  const run = new ReportRun(batchParts(format, b, o), () => new MemorySpool(), Boolean(o.color));
  const tally = new BatchTally();
  for (const r of b.results) {
    run.add(r);
    tally.add(r);
  }
  let text = '';
  for (const piece of run.output(tally.summary())) text += String(piece);
  return text;
}

export function summarizeBatch(b: GroundingBatch): BatchSummary {
  const tally = new BatchTally();
  for (const r of b.results) tally.add(r);
  return tally.summary();
}

/** The terminal summary: one row per answer, the flagged claims of failed and undecided answers, a footer. */
export function formatBatchTable(b: GroundingBatch, o: { color?: boolean } = {}): string {
  return render('table', b, o);
}

export function renderBatchJson(b: GroundingBatch): string {
  return render('json', b);
}

/** JUnit: one testcase per answer (grounding-formats.ts says which outcome is which element). */
export function renderBatchJunit(b: GroundingBatch): string {
  return render('junit', b);
}

/** Markdown for a CI job summary: a heading with the outcome, a table of answers, the flagged claims folded. */
export function renderBatchMarkdown(b: GroundingBatch): string {
  return render('markdown', b);
}

export type BatchTargets = { json?: string; junit?: string; markdown?: string };
const FLAGS = ['json', 'junit', 'markdown'] as const;

/** Where a finished report goes: a file (written synchronously, in pieces) or a stream (with its backpressure). */
async function writeTo(out: { file: string; flag: string } | Writable, pieces: Iterable<string | Buffer>): Promise<void> {
  if (!('file' in out)) {
    for (const piece of pieces) if (!out.write(piece)) await once(out, 'drain');
    return;
  }
  const { file, flag } = out;
  const failed = (err: unknown) =>
    new ReportWriteError(`--${flag}: could not write ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (err) {
    throw failed(err);
  }
  try {
    for (const piece of pieces) {
      const buf = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at);
    }
  } catch (err) {
    throw failed(err);
  } finally {
    closeSync(fd);
  }
}

/**
 * The batch's reports, streamed: `add` each answer's result as it is done (in input order), `finish` once all
 * are: the terminal table to `table` (if given), then each report to its file or stdout. Memory holds counts,
 * the table's column widths and write buffers; the answers' text waits in temporary files (TMPDIR), removed
 * by `finish` (or `dispose`).
 */
export class BatchReportWriter {
  private readonly tally = new BatchTally();
  private readonly folder = new SpoolFolder();
  private readonly runs: { flag: BatchFormat; run: ReportRun }[] = [];

  constructor(
    private readonly meta: BatchMeta,
    private readonly targets: BatchTargets,
    private readonly table?: { to: Writable; color: boolean },
  ) {
    const spool = () => this.folder.spool();
    if (table) this.runs.push({ flag: 'table', run: new ReportRun(batchParts('table', meta, table), spool, table.color) });
    for (const flag of FLAGS) if (targets[flag]) this.runs.push({ flag, run: new ReportRun(batchParts(flag, meta), spool, false) });
  }

  add(r: AnswerResult): void {
    this.tally.add(r);
    for (const { run } of this.runs) run.add(r);
  }

  /** Writes the table and the reports; returns the summary and the files written. */
  async finish(): Promise<{ summary: BatchSummary; written: string[] }> {
    const summary = this.tally.summary();
    const written: string[] = [];
    try {
      for (const { flag, run } of this.runs) {
        if (flag === 'table') {
          await writeTo(this.table!.to, run.output(summary));
          continue;
        }
        const file = this.targets[flag]!;
        await writeTo(file === STDOUT ? process.stdout : { file, flag }, run.output(summary));
        if (file !== STDOUT) written.push(file);
      }
    } finally {
      this.dispose();
    }
    return { summary, written };
  }

  /** Removes the temporary files (finish does). */
  dispose(): void {
    this.folder.dispose();
  }
}

/** Writes each requested report (`-` for stdout); returns the files written. Targets are checked before any work. */
export async function writeBatchReports(targets: BatchTargets, b: GroundingBatch): Promise<string[]> {
  const writer = new BatchReportWriter(b, targets);
  for (const r of b.results) writer.add(r);
  return (await writer.finish()).written;
}
