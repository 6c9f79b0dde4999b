/**
 * People's grades of a stored run as SPADE's labelled examples (EvalGen, Shankar et al. 2024: the assertions
 * are chosen against what people graded). A graded output is an example with its own input: FAIL is a bad
 * output the assertions should catch, PASS a good one they must not fail. Grades combine as everywhere
 * (core/grades.ts: each grader's latest grade, then the majority, a tie going to the most recent).
 */
import { combineGrades, type GradedOutput } from '../core/grades.js';
import { UsageError } from '../errors.js';
import { personGrades } from '../grades/load.js';
import type { RunRecord, SampleRecord, Store } from '../store/types.js';
import type { LabelledExample } from './types.js';
import { assayCommandLine } from '../invocation.js';

export interface GradedExamples {
  /** One per graded output (input i, sample j), id `i<i>/j<j>`, in (i, j) order. */
  examples: LabelledExample[];
  /** The rules whose grades gave the labels, with how many outputs each graded PASS and FAIL. */
  rules: { rule: string; pass: number; fail: number }[];
  /** Outputs whose graders disagreed on some rule (the majority decided). */
  disputed: number;
  /** Outputs graded on several rules with different grades: FAIL on any one makes the output bad. */
  mixed: number;
}

const ONE_BY_ONE = 200;

/** The example id of output (i, j): the indexes as in the run's JSON. */
export const exampleId = (i: number, j: number) => `i${i}/j${j}`;

/**
 * The label of each graded output: with one rule, its grade; over several, bad when any rule's grade is FAIL
 * and good when every graded rule passed it. Pure.
 */
export function labelGradedOutputs(
  perRule: readonly GradedOutput[][],
): Map<string, { i: number; j: number; good: boolean; disputed: boolean; mixed: boolean }> {
  const out = new Map<string, { i: number; j: number; good: boolean; disputed: boolean; mixed: boolean }>();
  for (const outputs of perRule)
    for (const o of outputs) {
      const key = `${o.i},${o.j}`;
      const seen = out.get(key);
      if (!seen) out.set(key, { i: o.i, j: o.j, good: o.person, disputed: o.disputed, mixed: false });
      else {
        if (seen.good !== o.person) seen.mixed = true;
        seen.good &&= o.person;
        seen.disputed ||= o.disputed;
      }
    }
  return out;
}

/** The run's graded outputs as labelled examples (of one rule's grades, or of every rule's); a UsageError when there are none. */
export async function gradedExamples(store: Store, run: RunRecord, opts: { rule?: string } = {}): Promise<GradedExamples> {
  const names = run.validators.map((v) => v.name);
  if (opts.rule !== undefined && !names.includes(opts.rule))
    throw new UsageError(`--rule: run ${run.id} has no rule ${JSON.stringify(opts.rule)} (its rules: ${names.join(', ')})`, { path: '--rule' });
  const grades = await store.grades.list(run.id, opts.rule !== undefined ? { rule: opts.rule } : {});
  if (!grades.length)
    throw new UsageError(
      `--run: run ${run.id} has no grades${opts.rule !== undefined ? ` of rule ${opts.rule}` : ''} to take as labelled examples; grade some of its outputs first (${assayCommandLine(`grade ${run.id}`)}${opts.rule !== undefined ? ` --rule ${opts.rule}` : ''}, or ${assayCommandLine('grades import')}), see docs/judges.md`,
      { path: '--run' },
    );
  const perRule = combineGrades(personGrades(run, grades), run.K);
  const labels = labelGradedOutputs(perRule);
  // Few graded outputs are read one by one, many in one listing (as loadGrading does).
  const samples = new Map<string, SampleRecord>();
  if (labels.size > ONE_BY_ONE) for (const s of await store.samples.list(run.id)) samples.set(`${s.i},${s.j}`, s);
  else
    for (const l of labels.values()) {
      const s = await store.samples.get(run.id, l.i, l.j);
      if (s) samples.set(`${l.i},${l.j}`, s);
    }
  const examples: LabelledExample[] = [];
  let disputed = 0;
  let mixed = 0;
  for (const l of [...labels.values()].sort((a, b) => a.i - b.i || a.j - b.j)) {
    // The store takes grades only of stored outputs; one without text (never the case there) has nothing to check.
    const output = samples.get(`${l.i},${l.j}`)?.output;
    if (output === undefined) continue;
    examples.push({ id: exampleId(l.i, l.j), output, input: run.inputs[l.i], label: l.good ? 'good' : 'bad' });
    if (l.disputed) disputed++;
    if (l.mixed) mixed++;
  }
  const rules = perRule.flatMap((outs, k) =>
    outs.length ? [{ rule: names[k], pass: outs.filter((o) => o.person).length, fail: outs.filter((o) => !o.person).length }] : [],
  );
  return { examples, rules, disputed, mixed };
}
