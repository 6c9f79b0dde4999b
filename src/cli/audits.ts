import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { auditedClaims, groundingGrading, readClaimGrades, type AuditedClaim } from '../ground/grading.js';
import { auditSummary, carriedGrades, runAuditBatch } from '../grades/audits.js';
import { graderName } from '../grades/grader.js';
import { openStore, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import type { ClaimGradeRecord, NewAudit, NewClaimGrade, Store } from '../store/types.js';
import { gradingText } from './grade-audits.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { assayCommandLine } from '../invocation.js';

/**
 * `assay audits import batch.json [--grades grades.jsonl]`, `assay audits list`, `assay audits show ID [--json]`:
 * a batch of grounding audits kept in the store with an id, people's grades of its claims stored against it,
 * and the detector's alignment with them and the corrected unsupported rate read back from the store (issue 27).
 */

async function readText(file: string, flag: string): Promise<string> {
  return readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${flag} ${file}: cannot be read (${err.code ?? err.message})`, { file, path: flag });
  });
}

/** Grades of a file already stored against the batch (the same claim, verdict and grader) are not stored again. */
function newGrades(grades: readonly NewClaimGrade[], stored: readonly ClaimGradeRecord[]): NewClaimGrade[] {
  const key = (g: NewClaimGrade) => JSON.stringify([g.answer, g.claim, g.supported, g.grader.trim()]);
  const have = new Set(stored.map(key));
  return grades.filter((g) => !have.has(key(g)));
}

/** The batch a file holds (the JSON of assay analyze --answers … --json). */
async function fileBatch(file: string, name: string | undefined): Promise<NewAudit> {
  const text = await readText(file, 'audits import');
  let batch: unknown;
  try {
    batch = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`, { file });
  }
  return { name: name ?? basename(file), claims: auditedClaims(batch, file) };
}

/** The batch of a stored run's grounded rule: the claims its outputs' audits decided (kept with the samples). */
async function runBatch(store: Store, ref: string, flags: { name?: string; rule?: string }): Promise<NewAudit> {
  const id = await resolveRunId(store, ref);
  const run = (await store.runs.get(id))!;
  const batch = runAuditBatch(run, await store.samples.list(id), flags.rule);
  if (run.status === 'running')
    process.stderr.write(`assay: run ${id} is still running: the batch holds the claims of the outputs stored so far (import it again when it is done)\n`);
  return flags.name !== undefined ? { ...batch, name: flags.name } : batch;
}

/** The grades of a --grades file, each checked against the batch's claims before anything is stored (naming its line). */
async function gradesOf(claims: readonly AuditedClaim[], flags: { grades?: string; grader?: string }): Promise<NewClaimGrade[]> {
  const gradesFile = flags.grades;
  if (gradesFile === undefined) return [];
  const gtext = await readText(gradesFile, '--grades');
  const parsed = readClaimGrades(gtext, gradesFile);
  const lines = gtext
    .split('\n')
    .map((l, i) => (l.trim() ? i + 1 : 0))
    .filter(Boolean);
  // A grade never lands on another claim.
  parsed.forEach((g, k) => {
    try {
      groundingGrading(claims, [g]);
    } catch (err) {
      if (!UsageError.isInstance(err)) throw err;
      throw new UsageError(`${gradesFile} line ${lines[k]}: ${err.message.replace(/^grades: /, '')}; nothing was imported`, {
        file: gradesFile,
        line: lines[k],
      });
    }
  });
  let grader: string | undefined;
  return parsed.map((g) => ({ answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader ?? (grader ??= graderName(flags.grader)) }));
}

async function importAudit(
  file: string | undefined,
  flags: { name?: string; grades?: string; grader?: string; store?: string; run?: string; rule?: string },
): Promise<void> {
  if ((file === undefined) === (flags.run === undefined))
    throw new UsageError(
      file === undefined
        ? 'audits import: give the batch file (the JSON of assay analyze --answers … --json) or --run <runId>'
        : `audits import: give the batch file or --run, not both (found ${file} and --run ${flags.run})`,
      { path: '--run' },
    );
  if (flags.rule !== undefined && flags.run === undefined)
    throw new UsageError('--rule: names the grounded rule of --run <runId>; give --run too', { path: '--rule' });
  // A file is read before the store is opened (a bad one leaves no store behind), and may start a store; a run
  // must be in the store already: opened, never created.
  const fromFile = file !== undefined ? await fileBatch(file, flags.name) : undefined;
  const fileGrades = fromFile ? await gradesOf(fromFile.claims, flags) : undefined;
  const store = await openStore(storeLocation(flags.store), fromFile ? {} : { existing: true });
  try {
    const batch = fromFile ?? (await runBatch(store, flags.run!, flags));
    const claims = batch.claims;
    const gradesFile = flags.grades;
    const grades = fileGrades ?? (await gradesOf(claims, flags));
    const { audit, created } = await store.audits.create(batch);
    // A new batch of a run's rule keeps the grading done on its earlier batches (one taken before the run finished).
    const carried = created ? await carriedGrades(store, audit) : [];
    await store.audits.recordGrades(audit.id, carried);
    const fresh = newGrades(grades, await store.audits.listGrades(audit.id));
    await store.audits.recordGrades(audit.id, fresh);
    process.stdout.write(`${audit.id}\n`);
    const of = audit.run ? `: the ${audit.run.rule} rule of run ${audit.run.id}` : '';
    const kept = carried.length ? `, ${carried.length} grade(s) carried over from the run's earlier batches` : '';
    process.stderr.write(
      created
        ? `assay: stored audit batch ${audit.id} (${claims.length} claims${fresh.length ? `, ${fresh.length} grade(s)` : ''}${of}${kept}); grade it with ${assayCommandLine('serve --grading')} at /audits/${audit.id}/grade\n`
        : `assay: these claims are already stored as ${audit.id} (${JSON.stringify(audit.name)}${of}), kept as they are${gradesFile !== undefined ? `; ${fresh.length} new grade(s) added` : ''}\n`,
    );
  } finally {
    await store.close();
  }
}

/** Print a stored batch's summary: as JSON to `json` (a file, or "-"/true for stdout), else in words. */
export async function showAudit(store: Store, id: string, json: string | boolean | undefined): Promise<void> {
  const audit = await store.audits.get(id);
  if (!audit) throw new UsageError(`no audit batch with id "${id}" in the store (list them with: ${assayCommandLine('audits list')})`, { path: 'auditId' });
  const summary = auditSummary(audit, await store.audits.listGrades(id));
  const of = summary.run ? ` (the ${summary.run.rule} rule of run ${summary.run.id})` : '';
  if (typeof json === 'string' && json !== '-') {
    await writeFile(json, JSON.stringify(summary, null, 2) + '\n');
    process.stderr.write(`assay: wrote ${json}\n`);
  }
  if (json === true || json === '-') process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  else process.stdout.write(`${summary.id} ${summary.name}${of}` + gradingText(summary) + '\n');
}

async function withStore<T>(location: string | undefined, f: (store: Store) => Promise<T>): Promise<T> {
  // Opened for writing (migrated), never created: a store from before audits gets its tables.
  const store = await openStore(storeLocation(location), { existing: true });
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

export function register(program: Command): void {
  const audits = program.command('audits').description('Grounding audit batches kept in the store, and people’s grades of their claims');
  audits
    .command('import')
    .description(
      "Store a batch of grounding audits (the JSON of assay analyze --answers … --json, or a run's grounded rule with --run); prints its id. The same claims again give the stored batch back",
    )
    .argument('[file]', 'the batch JSON')
    .option('--run <runId>', 'instead of a file: the claims a stored run\'s grounded rule decided (run id, "latest" or the start of an id)')
    .option('--rule <name>', 'with --run: which grounded rule, when the run has more than one')
    .option('--name <name>', "a name for people (default: the file's name, or the run's experiment)")
    .option('--grades <file>', 'claim grades to store with it: JSON Lines as assay grade --audits writes them')
    .option('--grader <name>', 'who graded the lines that name no grader (default: git user.name, else $USER)')
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText(
      'after',
      '\nExit codes: 0 stored (or already stored); 2 a bad batch or grades file, an unknown run, a run without claims (nothing is stored); 3 the store cannot be used.',
    )
    .action(async (file: string | undefined, o) => {
      await importAudit(file, o);
      process.exitCode = ExitCode.OK;
    });
  audits
    .command('list')
    .description('The stored audit batches, newest first')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (o) => {
      const list = await withStore(o.store, (s) => s.audits.list());
      process.stdout.write(
        list.map((a) => `${a.id}  ${a.createdAt}  ${a.claims} claims  ${a.name}${a.run ? `  (run ${a.run.id} ${a.run.rule})` : ''}\n`).join(''),
      );
    });
  audits
    .command('show')
    .description("A stored batch: the detector's agreement with people's grades and the unsupported rate corrected by them")
    .argument('<auditId>', 'the id assay audits import printed')
    .option('--json', 'print the summary as JSON')
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText('after', '\nExit codes: 0 shown; 2 no such batch; 3 the store cannot be used.')
    .action(async (id: string, o) => {
      await withStore(o.store, (s) => showAudit(s, id, o.json));
    });
}
