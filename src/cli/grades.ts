import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { gradingRefusal } from '../grades/gradable.js';
import { graderName } from '../grades/grader.js';
import { formatGrades, formatOfFile, GRADE_FILE_FORMATS, parseGrades, type GradeFileFormat } from '../grades/io.js';
import { oneOfFlag } from './flags.js';
import { openStore, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import { GradeError } from '../store/errors.js';
import type { GradeRecord, NewGrade, Store } from '../store/types.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';

interface ImportFlags {
  run: string;
  format?: string;
  grader?: string;
  store?: string;
}

interface ExportFlags {
  run: string;
  format?: string;
  out?: string;
  rule?: string;
  ids?: boolean;
  store?: string;
}

/**
 * Two grades that say the same thing (an export imported again): the same output, rule, grader, grade and time.
 * A time that is no date is kept as written: the store refuses it, naming the line.
 */
const sameGrade = (g: NewGrade & { gradedAt?: string }) => {
  const t = g.gradedAt === undefined ? NaN : Date.parse(g.gradedAt);
  return JSON.stringify([g.i, g.j, g.rule, g.grader, g.grade, Number.isFinite(t) ? new Date(t).toISOString() : g.gradedAt]);
};

async function importGrades(file: string, flags: ImportFlags): Promise<void> {
  const format = oneOfFlag('--format', flags.format, GRADE_FILE_FORMATS, { ignoreCase: true }) ?? formatOfFile(file);
  if (!format) throw new UsageError(`${file}: expected a .jsonl or .csv file (or say which with --format jsonl|csv)`, { file, path: '--format' });
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (err as Error).message;
    throw new UsageError(`${file}: expected a readable grades file (${why})`, { file });
  }
  // Lines without a grader are the importer's: the name is looked up only when a line needs it.
  let grader: string | undefined;
  const lines = parseGrades(text, file, format, () => (grader ??= graderName(flags.grader)));
  const store = await openStore(storeLocation(flags.store), { existing: true });
  try {
    const runId = await resolveRunId(store, flags.run, '--run');
    const run = (await store.runs.get(runId))!;
    const refusal = gradingRefusal(run);
    if (refusal) throw new UsageError(`--run: ${refusal}`, { path: '--run' });
    // Importing the same file twice stores its grades once: a line equal to a stored grade is skipped.
    const stored = new Set((await store.grades.list(runId)).map(sameGrade));
    const fresh = lines.filter((l) => l.grade.gradedAt === undefined || !stored.has(sameGrade(l.grade)));
    try {
      await store.grades.recordMany(
        runId,
        fresh.map((l) => l.grade),
      );
    } catch (err) {
      if (GradeError.isInstance(err) && err.index !== undefined) {
        const line = fresh[err.index].line;
        throw new UsageError(`${file}: line ${line}${err.field ? `: field "${fieldName(err.field)}"` : ''}: ${err.message}; nothing was imported`, {
          file,
          line,
          ...(err.field ? { path: fieldName(err.field) } : {}),
        });
      }
      throw err;
    }
    const skipped = lines.length - fresh.length;
    const drawn = fresh.filter((l) => l.grade.probability !== undefined).length;
    process.stderr.write(
      `assay: imported ${fresh.length} grade(s) into run ${runId}${skipped ? ` (${skipped} already stored, skipped)` : ''}` +
        (fresh.length > drawn
          ? `; ${fresh.length - drawn} without a probability count as hand-picked: the corrected rate assumes they were drawn at random (docs/judges.md)`
          : '') +
        '\n',
    );
  } finally {
    await store.close();
  }
}

/** The file's name for a NewGrade field. */
function fieldName(field: string): string {
  return field === 'i' ? 'input' : field === 'j' ? 'sample' : field;
}

async function exportGrades(flags: ExportFlags): Promise<void> {
  const format: GradeFileFormat =
    oneOfFlag('--format', flags.format, GRADE_FILE_FORMATS, { ignoreCase: true }) ?? (flags.out ? formatOfFile(flags.out) : undefined) ?? 'jsonl';
  const store: Store = await openStore(storeLocation(flags.store), { readonly: true });
  let grades: GradeRecord[];
  let runId: string;
  try {
    runId = await resolveRunId(store, flags.run, '--run');
    const run = (await store.runs.get(runId))!;
    if (flags.rule !== undefined && !run.validators.some((v) => v.name === flags.rule))
      throw new UsageError(`--rule: run ${runId} has no rule ${JSON.stringify(flags.rule)} (its rules: ${run.validators.map((v) => v.name).join(', ')})`, {
        path: '--rule',
      });
    grades = await store.grades.list(runId, flags.rule !== undefined ? { rule: flags.rule } : {});
  } finally {
    await store.close();
  }
  const text = formatGrades(grades, format, { ids: flags.ids ?? false });
  if (!flags.out || flags.out === '-') process.stdout.write(text);
  else {
    try {
      await writeFile(flags.out, text, 'utf8');
    } catch (err) {
      throw new UsageError(`--out: could not write ${flags.out} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { path: '--out' });
    }
    process.stderr.write(`assay: wrote ${grades.length} grade(s) of run ${runId} to ${flags.out}\n`);
  }
}

/** `assay grades import|export`: people's grades in and out as JSONL or CSV (docs/judges.md). */
export function register(program: Command): void {
  const grades = program.command('grades').description("Import or export people's grades of a run's outputs (JSONL or CSV)");
  grades
    .command('import')
    .description('Store grades from a .jsonl or .csv file: {"input": i, "sample": j, "rule": "polite", "grade": "fail", "grader": "reviewer-1"}')
    .argument('<file>', 'grades file: JSONL (one object a line) or CSV (header: input,sample,rule,grade,grader[,gradedAt,probability,design])')
    .requiredOption('--run <runId>', 'the run graded: its id, "latest" or the start of its id')
    .option('--format <format>', 'jsonl or csv (default: from the file name)')
    .option('--grader <name>', 'grader of lines that name none (default: git config user.name, else $USER)')
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText(
      'after',
      "\ni and j are 0-based, as in the run's JSON. All lines are stored or none: the first bad line is named\n(file, line, field) and nothing is written. A line equal to a stored grade (same output, rule, grader,\ngrade and gradedAt) is skipped, so importing a file twice stores it once.\n\nExit codes: 0 imported; 2 a bad line, flag or run id, or a run with stopping: sequential; 3 the store cannot be used.",
    )
    .action(async (file: string, flags: ImportFlags) => importGrades(file, flags));
  grades
    .command('export')
    .description("Write a run's grades as JSONL or CSV (stdout unless --out)")
    .requiredOption('--run <runId>', 'the run: its id, "latest" or the start of its id')
    .option('--format <format>', "jsonl (default) or csv; default from --out's name")
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--rule <name>', "only this rule's grades")
    .option('--ids', "add each grade's id (what assay grade RUN --remove ID takes; an import reads past it)")
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText('after', '\nExit codes: 0 written; 2 a bad flag or run id; 3 the store cannot be read.')
    .action(async (flags: ExportFlags) => exportGrades(flags));
}
