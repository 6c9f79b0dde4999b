import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { ExitCode, UsageError } from '../errors.js';
import { assayCommandLine } from '../invocation.js';
import { maxOf } from '../core/arrays.js';
import { formatRate, NO_VALUE } from '../core/show.js';
import type { RateInterval } from '../core/alignment.js';
import {
  auditedClaims,
  gradingOrder,
  groundingGrading,
  readClaimGrades,
  type AuditedClaim,
  type ClaimGrade,
  type GroundingGrading,
} from '../ground/grading.js';
import { graderName } from '../grades/grader.js';
import { parseKeys } from '../grades/session.js';
import { intFlag } from './flags.js';
import { openStore, storeLocation } from '../store/open.js';

/**
 * `assay grade --audits batch.json --grades grades.jsonl`: people grade the claims of grounding audits (the JSON of
 * `assay analyze --answers … --json`) in the terminal, supported or not, in a seeded random order; each grade is
 * appended to the grades file at once. Then (or with --summary alone) the detector's agreement with them and the
 * unsupported rate corrected by the grades are printed, or written as JSON with --json.
 */
export interface AuditGradeFlags {
  audits?: string;
  grades?: string;
  grader?: string;
  seed?: string;
  summary?: boolean;
  json?: string | boolean;
  /** With a stored batch's id as --audits: the store it is in. */
  store?: string;
}

const interval = (r: RateInterval | null) => (r ? `${formatRate(r.rate)} [${formatRate(r.low)}, ${formatRate(r.high)}]` : NO_VALUE);

/** The summary in words: the confusion matrix, TPR/TNR, κ, and the detector's and the corrected unsupported rate. */
export function gradingText(g: GroundingGrading): string {
  const a = g.alignment;
  const c = g.corrected_unsupported_rate;
  const rows = [
    ['', 'people: supported', 'not supported'],
    ['detector STRONG or WEAK', String(a.tp), String(a.fp)],
    ['detector UNSUPPORTED or CONTRADICTED', String(a.fn), String(a.tn)],
  ];
  const w = [0, 1, 2].map((k) => maxOf(rows.map((r) => r[k].length)));
  return [
    '',
    `${g.graded} of ${g.claims} audited claims graded by people (positive: supported)`,
    ...rows.map((r) => `  ${r[0].padEnd(w[0])}  ${r[1].padStart(w[1])}  ${r[2].padStart(w[2])}`),
    `TPR ${interval(a.tpr)} · TNR ${interval(a.tnr)} · agreement ${a.agreement ? formatRate(a.agreement.rate) : NO_VALUE} · κ ${a.kappa === null ? NO_VALUE : a.kappa.toFixed(2)}`,
    `unsupported claims: detector ${formatRate(g.unsupported_rate)}; corrected by the grades ${c ? `${formatRate(c.rate)} [${formatRate(c.low)}, ${formatRate(c.high)}]` : `${NO_VALUE} (no grades yet)`}`,
  ].join('\n');
}

async function readJsonFile(file: string, flag: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${flag} ${file}: cannot be read (${err.code ?? err.message})`, { file, path: flag });
  });
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new UsageError(`${flag} ${file}: not valid JSON (${(err as Error).message})`, { file, path: flag });
  }
}

async function readGrades(file: string): Promise<ClaimGrade[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // a new grades file
    throw new UsageError(`--grades ${file}: cannot be read (${(err as Error).message})`, { file, path: '--grades' });
  }
  return readClaimGrades(text, file);
}

function show(c: AuditedClaim, k: number, left: number): string {
  return [
    '',
    `claim ${k} of ${left} to grade — answer ${c.answer}, claim ${c.claim}`,
    `  ${c.text}`,
    `  evidence: ${c.evidence ?? '(none retrieved)'}`,
    'p supported · f not supported · s skip · q quit',
  ].join('\n');
}

/** Where claims come from and grades go: a batch file and its grades file, or a batch in the store (`assay audits import`). */
interface GradingTarget {
  claims: AuditedClaim[];
  grades: ClaimGrade[];
  keep(g: ClaimGrade & { grader: string; graded_at: string }): Promise<void>;
  /** Where the grades went, for the closing line. */
  where: string;
  close(): Promise<void>;
}

const AUDIT_ID = /^a-\d{8}-\d{6}-[0-9a-f]{4}$/;

async function fileTarget(file: string, gradesFile: string | undefined): Promise<GradingTarget> {
  if (gradesFile === undefined)
    throw new UsageError('--audits: needs --grades <file>, the JSON Lines file the grades are kept in (created if missing)', { path: '--grades' });
  const claims = auditedClaims(await readJsonFile(file, '--audits'), file);
  return {
    claims,
    grades: await readGrades(gradesFile),
    keep: (g) => appendFile(gradesFile, JSON.stringify(g) + '\n'),
    where: `added to ${gradesFile}`,
    close: async () => undefined,
  };
}

/** A stored batch (a run's grounded rule, or an imported file): its stored grades, each new one stored at once. */
async function storeTarget(id: string, location: string | undefined): Promise<GradingTarget> {
  const store = await openStore(storeLocation(location), { existing: true });
  try {
    const audit = await store.audits.get(id);
    if (!audit)
      throw new UsageError(`--audits: no audit batch with id "${id}" in the store (list them with: ${assayCommandLine('audits list')})`, { path: '--audits' });
    const stored = await store.audits.listGrades(id);
    return {
      claims: audit.claims,
      grades: stored.map((g) => ({ answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader })),
      keep: async (g) =>
        void (await store.audits.recordGrades(id, [{ answer: g.answer, claim: g.claim, supported: g.supported, grader: g.grader, gradedAt: g.graded_at }])),
      where: `stored in audit batch ${id}`,
      close: () => store.close(),
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

export async function gradeAuditsCommand(flags: AuditGradeFlags): Promise<void> {
  const file = flags.audits!;
  const seed = intFlag('--seed', flags.seed, { min: 0, max: 2 ** 31 - 1 }) ?? 1;
  // An audit batch id names a stored batch, unless a file of that name is there.
  const stored = AUDIT_ID.test(file) && !(await stat(file).catch(() => undefined));
  if (stored && flags.grades !== undefined)
    throw new UsageError(`--grades: the grades of stored batch ${file} are kept in the store; --grades goes with a batch file`, { path: '--grades' });
  if (!stored && flags.store !== undefined)
    throw new UsageError(`--store: goes with a stored batch's id (assay audits import prints it), not with the batch file ${file}`, { path: '--store' });
  const target = stored ? await storeTarget(file, flags.store) : await fileTarget(file, flags.grades);
  try {
    await gradeTarget(target, file, seed, flags);
  } finally {
    await target.close();
  }
  process.exitCode = ExitCode.OK;
}

async function gradeTarget(target: GradingTarget, file: string, seed: number, flags: AuditGradeFlags): Promise<void> {
  const { claims, grades } = target;
  if (claims.length === 0) throw new UsageError(`--audits ${file}: no claim to grade (no answer was analysed)`, { file, path: '--audits' });
  // checked now: a grades file of other audits is refused before anyone grades
  groundingGrading(claims, grades);
  if (!flags.summary) {
    const grader = graderName(flags.grader);
    const queue = gradingOrder(claims, grades, seed);
    const tty = Boolean(process.stdin.isTTY);
    let at = 0;
    let graded = 0;
    if (queue.length) process.stdout.write(show(queue[0], 1, queue.length) + '\n');
    if (tty) process.stdin.setRawMode(true);
    try {
      process.stdin.setEncoding('utf8');
      outer: for await (const chunk of process.stdin as AsyncIterable<string>) {
        for (const key of parseKeys(chunk)) {
          if (at >= queue.length || key === 'quit') break outer;
          if (key !== 'pass' && key !== 'fail' && key !== 'skip') continue;
          const c = queue[at];
          if (key !== 'skip') {
            const g = { answer: c.answer, claim: c.claim, supported: key === 'pass', text: c.text, grader, graded_at: new Date().toISOString() };
            await target.keep(g);
            grades.push(g);
            graded++;
            process.stdout.write(`  graded ${key === 'pass' ? 'supported' : 'not supported'}; the detector said ${c.status}\n`);
          }
          at++;
          if (at >= queue.length) break outer;
          process.stdout.write(show(queue[at], at + 1, queue.length) + '\n');
        }
      }
    } finally {
      if (tty) process.stdin.setRawMode(false);
      process.stdin.pause();
    }
    process.stderr.write(`assay: ${graded} grade(s) by ${grader} ${target.where}\n`);
  }
  const summary = groundingGrading(claims, grades);
  if (flags.json !== undefined && flags.json !== false) {
    const json = JSON.stringify(summary, null, 2) + '\n';
    if (typeof flags.json === 'string' && flags.json !== '-') await writeFile(flags.json, json);
    else process.stdout.write(json);
  }
  if (flags.json === undefined || flags.json === false || (typeof flags.json === 'string' && flags.json !== '-'))
    process.stdout.write(gradingText(summary) + '\n');
}
