import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { auditedClaims, groundingGrading, readClaimGrades, type GroundingGrading } from '../ground/grading.js';
import { graderName } from '../grades/grader.js';
import { openStore, storeLocation } from '../store/open.js';
import type { AuditRecord, ClaimGradeRecord, NewClaimGrade, Store } from '../store/types.js';
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

/** The grading summary of a stored batch, from its stored grades (the latest grade of a claim counts). */
export function auditSummary(audit: AuditRecord, grades: readonly ClaimGradeRecord[]): { id: string; name: string; created_at: string } & GroundingGrading {
  return { id: audit.id, name: audit.name, created_at: audit.createdAt, ...groundingGrading(audit.claims, grades) };
}

async function importAudit(file: string, flags: { name?: string; grades?: string; grader?: string; store?: string }): Promise<void> {
  const text = await readText(file, 'audits import');
  let batch: unknown;
  try {
    batch = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`, { file });
  }
  const claims = auditedClaims(batch, file);
  let grades: NewClaimGrade[] = [];
  if (flags.grades !== undefined) {
    const gtext = await readText(flags.grades, '--grades');
    const parsed = readClaimGrades(gtext, flags.grades);
    const lines = gtext
      .split('\n')
      .map((l, i) => (l.trim() ? i + 1 : 0))
      .filter(Boolean);
    // Checked against the batch before anything is stored, naming the line: a grade never lands on another claim.
    parsed.forEach((g, k) => {
      try {
        groundingGrading(claims, [g]);
      } catch (err) {
        if (!UsageError.isInstance(err)) throw err;
        throw new UsageError(`${flags.grades} line ${lines[k]}: ${err.message.replace(/^grades: /, '')}; nothing was imported`, {
          file: flags.grades!,
          line: lines[k],
        });
      }
    });
    let grader: string | undefined;
    grades = parsed.map((g) => ({ answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader ?? (grader ??= graderName(flags.grader)) }));
  }
  const store = await openStore(storeLocation(flags.store));
  try {
    const audit = await store.audits.create({ name: flags.name ?? basename(file), claims });
    await store.audits.recordGrades(audit.id, grades);
    process.stdout.write(`${audit.id}\n`);
    process.stderr.write(
      `assay: stored audit batch ${audit.id} (${claims.length} claims${grades.length ? `, ${grades.length} grade(s)` : ''}); grade it with assay serve --grading at /audits/${audit.id}/grade\n`,
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
  if (typeof json === 'string' && json !== '-') {
    await writeFile(json, JSON.stringify(summary, null, 2) + '\n');
    process.stderr.write(`assay: wrote ${json}\n`);
  }
  if (json === true || json === '-') process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  else process.stdout.write(`${summary.id} ${summary.name}` + gradingText(summary) + '\n');
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
    .description('Store a batch of grounding audits (the JSON of assay analyze --answers … --json); prints its id')
    .argument('<file>', 'the batch JSON')
    .option('--name <name>', "a name for people (default: the file's name)")
    .option('--grades <file>', 'claim grades to store with it: JSON Lines as assay grade --audits writes them')
    .option('--grader <name>', 'who graded the lines that name no grader (default: git user.name, else $USER)')
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText('after', '\nExit codes: 0 stored; 2 a bad batch or grades file (nothing is stored); 3 the store cannot be used.')
    .action(async (file: string, o) => {
      await importAudit(file, o);
      process.exitCode = ExitCode.OK;
    });
  audits
    .command('list')
    .description('The stored audit batches, newest first')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (o) => {
      const list = await withStore(o.store, (s) => s.audits.list());
      process.stdout.write(list.map((a) => `${a.id}  ${a.createdAt}  ${a.claims} claims  ${a.name}\n`).join(''));
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
