import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import type { PAdjust } from '../core/compare.js';
import type { Estimand } from '../core/summary-types.js';
import { ExitCode, UsageError } from '../errors.js';
import { compareRuns, formatComparison } from '../report/compare.js';
import { loadStoredRun } from '../report/load.js';
import { checkReportTargets } from '../report/targets.js';
import { ReportWriteError } from '../report/write.js';
import { openStore, storeFile, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { oneOfFlag, shareFlag } from './flags.js';

interface CompareFlags {
  store?: string;
  json?: string;
  level?: string;
  adjust?: string;
  estimand?: string;
}

async function compareCommand(runA: string, runB: string, flags: CompareFlags): Promise<void> {
  const level = shareFlag('--level', flags.level, { open: true, hint: 'e.g. 0.95' }) ?? 0.95;
  const adjust = oneOfFlag<PAdjust>('--adjust', flags.adjust, ['none', 'holm']) ?? 'none';
  const estimand = oneOfFlag<Estimand>('--estimand', flags.estimand, ['inputs', 'population']);
  const location = storeLocation(flags.store);
  checkReportTargets({ json: flags.json }, { storeFile: storeFile(location) });
  await using store = await openStore(location, { readonly: true });
  const [idA, idB] = [await resolveRunId(store, runA, 'run A'), await resolveRunId(store, runB, 'run B')];
  const [a, b] = [await loadStoredRun(store, idA), await loadStoredRun(store, idB)];
  const result = compareRuns(a, b, { level, adjust, ...(estimand !== undefined ? { estimand } : {}) });
  if (flags.json === '-') {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else {
    process.stdout.write(formatComparison(result));
    if (flags.json) {
      try {
        await writeFile(flags.json, JSON.stringify(result, null, 2) + '\n', 'utf8');
      } catch (err) {
        throw new ReportWriteError(`--json: could not write ${flags.json} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, {
          cause: err,
        });
      }
    }
  }
  // A gate that compared nothing must not pass silently (e.g. two different experiments' ids).
  if (!result.validators.length) {
    throw new UsageError(
      `runs ${idA} (${a.run.name}) and ${idB} (${b.run.name}) have no validator in common: nothing to compare ` +
        `(A: ${a.run.validators.map((v) => v.name).join(', ') || 'none'}; B: ${b.run.validators.map((v) => v.name).join(', ') || 'none'})`,
    );
  }
  process.exitCode = result.regressions.length ? ExitCode.VERDICT_FAILED : ExitCode.OK;
}

/** `assay compare <runA> <runB>`: is B significantly worse than A? Exit 1 if any validator is (a CI regression gate). */
export function register(program: Command): void {
  program
    .command('compare')
    .description('compare two stored runs per validator and per input; exit 1 when any validator got significantly worse')
    .argument('<runA>', 'baseline run: its id, "latest", or the start of an id (see: assay runs)')
    .argument('<runB>', 'candidate run: its id, "latest", or the start of an id')
    .option(STORE_FLAG, STORE_HELP)
    .option('--json <file>', 'also write the comparison as JSON ("-" for stdout only)')
    .option('--level <p>', 'confidence level of the tests and intervals (default 0.95)')
    .option('--adjust <method>', 'multiple-comparison adjustment of the validator tests: none or holm (default none)')
    .option(
      '--estimand <claim>',
      'what the gate is about: inputs (cells as trials) or population (paired by input, the input as the unit); default population when both runs were decided on it, else inputs',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 no validator significantly worse; 1 at least one is (regression);\n2 unknown run id, bad flag, missing store, or no validator in common.',
    )
    .action(async (runA: string, runB: string, flags: CompareFlags) => compareCommand(runA, runB, flags));
}
