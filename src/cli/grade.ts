import type { Command } from 'commander';
import { ExitCode, UsageError } from '../errors.js';
import { gradingRefusal } from '../grades/gradable.js';
import { graderName } from '../grades/grader.js';
import { GRADING_DEFAULTS, GRADING_DESIGNS, gradingPlan, gradingQueue, MAX_SEED, queueSettings, ruleToGrade, type QueueSettings } from '../grades/queue.js';
import { GradingSession, parseKeys } from '../grades/session.js';
import { openStore, storeLocation } from '../store/open.js';
import { resolveRunId } from '../store/resolve.js';
import type { RunRecord } from '../store/types.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';
import { intFlag, oneOfFlag, shareFlag } from './flags.js';
import { formatLevel } from '../core/show.js';
import { gradeAuditsCommand, type AuditGradeFlags } from './grade-audits.js';
import { assayCommandLine } from '../invocation.js';

interface GradeFlags {
  rule?: string;
  grader?: string;
  suggest?: string;
  design?: string;
  seed?: string;
  width?: string;
  print?: boolean;
  remove?: string;
  store?: string;
}

/** The queue's settings the flags give (--suggest, --design, --seed, --width); queueSettings fills in the rest. */
function queueFlags(flags: GradeFlags): Partial<QueueSettings> {
  const given = {
    count: intFlag('--suggest', flags.suggest, { min: 1, max: 999_999 }),
    design: oneOfFlag('--design', flags.design, GRADING_DESIGNS),
    seed: intFlag('--seed', flags.seed, { min: 0, max: MAX_SEED }),
    width: shareFlag('--width', flags.width, { open: true, percent: true, what: 'an interval width' }),
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}

/** The rule graded (--rule, else the first verifier, else the first rule), or a UsageError naming the rules. */
function ruleOf(run: RunRecord, flag: string | undefined): number {
  const k = ruleToGrade(run, flag);
  if (k !== undefined) return k;
  if (!run.validators.length) throw new UsageError(`run ${run.id} has no rules to grade`);
  throw new UsageError(`--rule: run ${run.id} has no rule ${JSON.stringify(flag)} (its rules: ${run.validators.map((v) => v.name).join(', ')})`, {
    path: '--rule',
  });
}

/** `--remove ID`: delete one grade of the run (a mistaken one, or one whose probability is out of bounds). */
async function removeGrade(runArg: string, flags: GradeFlags): Promise<void> {
  const id = intFlag('--remove', flags.remove, { min: 1, max: Number.MAX_SAFE_INTEGER })!;
  const store = await openStore(storeLocation(flags.store), { existing: true });
  try {
    const runId = await resolveRunId(store, runArg, 'run');
    const g = (await store.grades.list(runId)).find((x) => x.id === id);
    if (!g || !(await store.grades.delete(runId, id)))
      throw new UsageError(`--remove: run ${runId} has no grade ${id} (see its grades with: ${assayCommandLine(`grades export --run ${runId} --ids`)})`, {
        path: '--remove',
      });
    process.stderr.write(
      `assay: removed grade ${id} of run ${runId}: output (${g.i}, ${g.j}), rule ${g.rule}, ${g.grade} by ${g.grader}` +
        `${g.probability !== undefined ? `, probability ${g.probability}` : ''}, given ${g.gradedAt}\n`,
    );
    process.exitCode = ExitCode.OK;
  } finally {
    await store.close();
  }
}

async function gradeCommand(runArg: string, flags: GradeFlags): Promise<void> {
  if (flags.remove !== undefined) {
    const other = (['suggest', 'design', 'seed', 'width', 'print', 'rule', 'grader'] as const).find((f) => flags[f] !== undefined);
    if (other) throw new UsageError(`--remove: removes one grade; it takes no --${other}`, { path: '--remove' });
    return removeGrade(runArg, flags);
  }
  const given = queueFlags(flags);
  const store = await openStore(storeLocation(flags.store), { existing: true });
  try {
    const runId = await resolveRunId(store, runArg, 'run');
    const run = (await store.runs.get(runId))!;
    const refusal = gradingRefusal(run);
    if (refusal) throw new UsageError(refusal, { path: 'run' });
    if (run.status !== 'complete')
      process.stderr.write(`assay: warning: run ${runId} is ${run.status}: the queue is drawn from the outputs decided so far, not from the finished run's\n`);
    const k = ruleOf(run, flags.rule);
    const rule = run.validators[k];
    const tensor = await store.samples.tensor(runId);
    const { count, design, seed, width } = queueSettings(runId, rule.name, given);
    const grades = await store.grades.list(runId, { rule: rule.name });
    // A new batch from the outputs nobody graded for this rule yet (docs/judges.md, "The queue").
    const queue = gradingQueue(tensor, k, { count, design, seed, graded: grades });
    if (!queue.items.length)
      throw new UsageError(
        `run ${runId}: rule ${rule.name} has no output left to grade (${grades.length ? 'every output it decided is graded' : 'it decided none: every cell an error or not run'})`,
        { path: '--rule' },
      );
    // The grades a target width needs, from the rule's verdicts and (once there are grades) its measured error rates.
    const plan = gradingPlan(run, tensor, k, grades, { width, design });
    const wide = `a corrected interval ${Math.round(width * 1000) / 10} points wide at ${formatLevel(plan.level)}`;
    const planText =
      plan.grades === null
        ? `${wide} would need more grades than the outputs ${rule.name} decided (${plan.graded} graded so far)`
        : `${wide} needs about ${plan.grades} grades of ${rule.name}, drawn ${design} (${plan.graded} so far)`;
    process.stderr.write(
      `assay: queue of ${queue.items.length} of the ${queue.population} outputs ${rule.name} decided that nobody graded yet, drawn ${queue.design} (--seed ${seed} draws it again); ${planText}\n`,
    );
    if (flags.print) {
      // The picks in the import format, to grade elsewhere: add "grade" and "grader", then assay grades import.
      for (const it of queue.items)
        process.stdout.write(`${JSON.stringify({ input: it.i, sample: it.j, rule: rule.name, probability: it.probability, design: it.design })}\n`);
      return;
    }
    const grader = graderName(flags.grader);
    const tty = Boolean(process.stdin.isTTY);
    const session = new GradingSession({
      store,
      run,
      tensor,
      k,
      grader,
      queue: queue.items,
      write: (t) => process.stdout.write(t),
      clear: tty && Boolean(process.stdout.isTTY),
    });
    await session.start();
    if (tty) process.stdin.setRawMode(true);
    try {
      process.stdin.setEncoding('utf8');
      outer: for await (const chunk of process.stdin as AsyncIterable<string>) {
        for (const key of parseKeys(chunk)) if (!(await session.press(key))) break outer;
      }
    } finally {
      if (tty) process.stdin.setRawMode(false);
      process.stdin.pause();
    }
    process.stderr.write(
      `assay: ${session.count} grade(s) stored by ${grader}; ${session.gradedInQueue} of the queue's ${queue.items.length} graded by ${grader}. See them with: ${assayCommandLine(`show ${runId}`)}\n`,
    );
    process.exitCode = ExitCode.OK;
  } finally {
    await store.close();
  }
}

/** `assay grade RUN`: grade a run's outputs in the terminal, from a random queue (docs/judges.md). */
export function register(program: Command): void {
  program
    .command('grade')
    .description(
      "Grade a run's outputs by hand (p pass, f fail, s skip, u undo, ←/→ or j/k move, q quit): the judge is checked against you and its rate corrected",
    )
    .argument('[runId]', 'run id, "latest" or the start of an id (or --audits instead)')
    .option(
      '--audits <file|id>',
      "grade the claims of grounding audits instead: the JSON of assay analyze --answers … --json, or a stored batch by its id (assay audits import, --run for a run's grounded rule)",
    )
    .option('--grades <file>', 'with --audits: the JSON Lines file the claim grades are kept in (appended to; created if missing)')
    .option('--summary', 'with --audits: only print the detector against the grades so far')
    .option('--json [file]', 'with --audits: the summary as JSON (to stdout, or to the file)')
    .option('--rule <name>', 'the rule to grade (default: the first verifier, else the first rule)')
    .option('--grader <name>', 'who grades (default: git config user.name, else $USER)')
    .option('--suggest <n>', `outputs in the queue, drawn at random with known probabilities (default ${GRADING_DEFAULTS.count})`)
    .option('--design <design>', "stratified by the rule's verdict (default; square-root allocation, weights kept) or uniform")
    .option('--seed <n>', 'seed of the draw (default: one fixed by the run and the rule, so the queue is the same until someone grades)')
    .option('--width <w>', `target width of the corrected interval for the grades-needed estimate, e.g. 0.1 or 10% (default ${GRADING_DEFAULTS.width})`)
    .option('--print', 'print the queue as JSONL in the import format instead of grading (to grade elsewhere)')
    .option('--remove <id>', 'remove one grade of the run by its id (assay grades export --ids lists them) instead of grading')
    .option(STORE_FLAG, STORE_HELP)
    .addHelpText(
      'after',
      `
Keys are read from the terminal, or from a pipe (printf 'pfsq' | assay grade latest): each grade is stored
at once. The rule's verdict and reasons are shown only once you have graded an output. A grade from the
queue keeps the probability it was drawn with, which keeps the corrected rate unbiased: grade the queue in
order, and skip only outputs you cannot judge (docs/judges.md).

With --audits, the claims of grounding audits are graded instead (p supported, f not supported, s skip, q quit),
each grade appended to --grades at once (or, for a stored batch's id, stored against it in --store), in a random
order fixed by --seed; then the detector is compared with
the grades (TPR, TNR, κ) and the share of unsupported claims is corrected by them (docs/grounding.md).

Exit codes: 0 done, quit or removed; 2 a bad flag, run id, rule or grade id, audits or grades file, or a run with stopping: sequential; 3 the store cannot be used.`,
    )
    .action(async (runId: string | undefined, flags: GradeFlags & AuditGradeFlags) => {
      if (flags.audits !== undefined) {
        if (runId !== undefined)
          throw new UsageError(`--audits: grades audits, not a run; found the run id ${JSON.stringify(runId)} too`, { path: '--audits' });
        const other = (['rule', 'suggest', 'design', 'width', 'print', 'remove'] as const).find((f) => flags[f] !== undefined);
        if (other) throw new UsageError(`--audits: takes no --${other} (a run's option)`, { path: '--audits' });
        return gradeAuditsCommand(flags);
      }
      const audit = (['grades', 'summary', 'json'] as const).find((f) => flags[f] !== undefined);
      if (audit) throw new UsageError(`--${audit}: goes with --audits`, { path: `--${audit}` });
      if (runId === undefined) throw new UsageError('grade: expected a run id (or "latest"), or --audits <file> to grade grounding audits', { path: 'run' });
      return gradeCommand(runId, flags);
    });
}
