import type { Command } from 'commander';
import { loadStoredRun } from '../report/load.js';
import { exitCodeFor } from '../report/meta.js';
import { formatTerminalSummary } from '../report/terminal.js';
import { sampleText } from '../report/trajectory.js';
import { UsageError } from '../errors.js';
import { checkReportTargets } from '../report/targets.js';
import { reportsToStdout, writeReports, type ReportTargets } from '../report/write.js';
import { openStore, shownLocation, storeFile, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { gradingText } from './grade-audits.js';

interface ShowFlags extends ReportTargets {
  store?: string;
  allowInconclusive?: boolean;
  sample?: string;
}

/** `--sample 3,2`: input 3, sample 2, counted from 1 as the dashboard and reports count them. */
function sampleFlag(value: string | undefined): { i: number; j: number } | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*(\d+)\s*[,:]\s*(\d+)\s*$/.exec(value);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new UsageError(`--sample: expected <input>,<sample> counted from 1, e.g. 3,2, found ${JSON.stringify(value)}`);
  return { i: Number(m[1]) - 1, j: Number(m[2]) - 1 };
}

/**
 * `assay show <runId>`: a stored run's summary again, and any report written from it. Exits on the stored verdict
 * (0 every verdict accepted, 1 not, 130 the run is interrupted, whatever stopped it), so it can gate CI on a stored run.
 */
/** `assay show a-…`: a stored grounding audit batch (assay audits import) — its grading summary, `--json` as JSON. */
async function showStoredAudit(id: string, flags: ShowFlags): Promise<void> {
  const other = (['junit', 'markdown', 'html', 'sample', 'allowInconclusive'] as const).find((k) => flags[k] !== undefined);
  if (other) {
    const flag = `--${other.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new UsageError(`${flag}: a run's option; an audit batch (${id}) takes only --json and --store`, { path: flag });
  }
  const { showAudit } = await import('./audits.js');
  await using store = await openStore(storeLocation(flags.store), { readonly: true });
  await showAudit(store, id, flags.json);
  process.exitCode = 0;
}

export function register(program: Command): void {
  program
    .command('show')
    .description('Show a stored run: its summary table, and reports written from the store')
    .argument('<runId>', 'run id, "latest", or the start of an id (see: assay runs)')
    .option('--json <file>', 'write the JSON report (schemas/report.schema.json); "-" for stdout (any report flag takes "-")')
    .option('--junit <file>', 'write a JUnit XML report')
    .option('--markdown <file>', 'write a Markdown report')
    .option('--html <file>', 'write a static HTML report')
    .option(STORE_FLAG, STORE_HELP)
    .option('--allow-inconclusive', 'treat inconclusive verdicts as accepted in the reports')
    .option(
      '--sample <input,sample>',
      "also print one output (e.g. 3,2, counted from 1): its input, an agent's steps (calls, arguments, results), the answer and each rule's outcome",
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 every verdict accepted; 1 a validator fails, is an error or is inconclusive; 2 unknown or\nambiguous run id, bad flag; 3 the store cannot be read, or a report cannot be written; 130 the run is\ninterrupted (finish it with assay run --resume <runId>).',
    )
    .action(async (runId: string, flags: ShowFlags) => {
      if (runId.startsWith('a-')) return showStoredAudit(runId, flags);
      const cell = sampleFlag(flags.sample);
      const location = storeLocation(flags.store);
      checkReportTargets(flags, { storeFile: storeFile(location) });
      await using store = await openStore(location, { readonly: true });
      const id = await resolveRunId(store, runId);
      const r = await loadStoredRun(store, id, {
        withStats: true,
        allowInconclusive: flags.allowInconclusive ?? false,
        ...(flags.store !== undefined ? { store: shownLocation(flags.store) } : {}),
        withClaimGrading: true,
      });
      // With a report on stdout (`--json -`), the human table goes to stderr so stdout stays parseable.
      const human = reportsToStdout(flags) ? process.stderr : process.stdout;
      human.write(formatTerminalSummary(r.summary, r.meta, { color: Boolean(human.isTTY) }));
      // People's grades of a grounded rule's claims: the detector against them, the corrected unsupported rate
      for (const g of r.meta.claimGrading ?? []) human.write(`\n${g.run!.rule}: claims graded by people (audit batch ${g.id})${gradingText(g)}\n`);
      if (cell) {
        const s = cell.i < r.run.N && cell.j < r.run.M ? await store.samples.get(id, cell.i, cell.j) : undefined;
        if (!s)
          throw new UsageError(
            `--sample: run ${id} has no stored output at input ${cell.i + 1}, sample ${cell.j + 1} (it has ${r.run.N} inputs × ${r.run.M} samples)`,
          );
        human.write(`\n${sampleText(r.run, s)}`);
      }
      const written = await writeReports(flags, { ...r, store });
      for (const f of written) process.stderr.write(`assay: wrote ${f}\n`);
      process.exitCode = exitCodeFor(r.summary, r.run.status, flags.allowInconclusive ?? false);
    });
}
