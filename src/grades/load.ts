import { MIN_PROBABILITY, probabilityProblem } from '../core/limits.js';
import { GradeCombiner, type GradedOutput, type PersonGrade } from '../core/grades.js';
import type { GradeRecord, RunRecord, SampleRecord, Store } from '../store/types.js';
import { assayCommandLine } from '../invocation.js';

/** Above this many graded outputs, their samples are read in one listing rather than one by one. */
const ONE_BY_ONE = 200;
/** Grades combined between two turns of the event loop. */
const COMBINE_PART = 20_000;

/** A run's grades as summarize() reads them (PersonGrade, oldest first), rules named by their column k. */
export function personGrades(run: RunRecord, grades: readonly GradeRecord[]): PersonGrade[] {
  const k = new Map(run.validators.map((v, idx) => [v.name, idx]));
  return grades.flatMap((g) => {
    const col = k.get(g.rule);
    if (col === undefined) return [];
    // A probability stored before it was bounded (or by hand) is set aside, never computed with: the grade counts as hand-picked.
    const bad = g.probability !== undefined && probabilityProblem(g.probability) !== undefined;
    const probability = bad ? undefined : g.probability;
    return [
      {
        i: g.i,
        j: g.j,
        k: col,
        pass: g.grade === 'pass',
        grader: g.grader,
        at: g.id,
        ...(probability !== undefined ? { probability } : {}),
        ...(probability !== undefined && g.design !== undefined ? { design: g.design } : {}),
        ...(bad
          ? {
              note:
                `grade ${g.id} (output (${g.i}, ${g.j}), ${g.grader}) has probability ${String(g.probability)}, outside [${MIN_PROBABILITY}, 1]: ` +
                `counted as not drawn at random; remove it with: ${assayCommandLine(`grade ${run.id} --remove ${g.id}`)}`,
            }
          : {}),
      },
    ];
  });
}

/**
 * combineGrades over a run's grades, a part at a time: millions of grades never hold a server's thread at
 * once (its other requests run between parts). Given the store's pages (GradeStore.pages), each is combined as
 * it is read, so the grades are never all held at once either.
 */
export async function combineInParts(run: RunRecord, grades: readonly GradeRecord[] | AsyncIterable<readonly GradeRecord[]>): Promise<GradedOutput[][]> {
  const combiner = new GradeCombiner(run.K);
  if (Symbol.asyncIterator in grades) {
    for await (const page of grades) combiner.add(personGrades(run, page));
    return combiner.result();
  }
  for (let at = 0; at < grades.length; at += COMBINE_PART) {
    if (at) await new Promise((resolve) => setImmediate(resolve));
    combiner.add(personGrades(run, grades.slice(at, at + COMBINE_PART)));
  }
  return combiner.result();
}

/**
 * The run's grades combined per output and rule (core/grades.ts), each with the rule's reasons for its verdict
 * on that output (shown beside a disagreement); undefined when the run has no grade.
 */
export async function loadGrading(store: Store, run: RunRecord, grades?: readonly GradeRecord[]): Promise<GradedOutput[][] | undefined> {
  let seen = grades?.length ?? 0;
  const counted = async function* () {
    // Only the grades that decide (a few per output however many were given): combining them gives the same.
    for await (const page of store.grades.decisive(run.id)) {
      seen += page.length;
      yield page;
    }
  };
  const perRule = await combineInParts(run, grades ?? counted());
  return seen ? withReasons(store, run, perRule) : undefined;
}

/**
 * A run's grades combined so far, kept by a server so that the grades recorded since are added to it, not all
 * read again (a log only grows, but for an undo): `count` grades up to id `lastId`.
 */
export interface KeptGrading {
  combiner: GradeCombiner;
  count: number;
  lastId: number;
}

/**
 * loadGrading for a server that keeps `kept` between reads: when the run's grades are `kept`'s and those
 * recorded since (`version`, GradeStore.version(runId), is `count:max id` of exactly those), only the new ones
 * are read and added; after an undo (or anything else), all are read again. The result equals loadGrading's.
 */
export async function loadGradingKept(
  store: Store,
  run: RunRecord,
  version: string,
  kept?: KeptGrading,
): Promise<{ grading: GradedOutput[][] | undefined; kept: KeptGrading }> {
  let next: KeptGrading | undefined;
  if (kept) {
    const added = await store.grades.list(run.id, { after: kept.lastId });
    const lastId = added.length ? added[added.length - 1].id : kept.lastId;
    if (`${kept.count + added.length}:${lastId}` === version) {
      kept.combiner.add(personGrades(run, added));
      next = { combiner: kept.combiner, count: kept.count + added.length, lastId };
    }
  }
  if (!next) {
    // Only the grades that decide are read (combining them gives the same); the grades they stand for are
    // `version`'s, read before them: one recorded between the two is added again next time, which changes nothing
    // (a grade's place is its id; a note is kept once).
    const [count, lastId] = version.split(':').map(Number);
    next = { combiner: new GradeCombiner(run.K), count, lastId };
    for await (const page of store.grades.decisive(run.id)) next.combiner.add(personGrades(run, page));
  }
  return { grading: next.count ? await withReasons(store, run, next.combiner.result()) : undefined, kept: next };
}

/** Each graded output with the rule's reasons for its verdict on it (shown beside a disagreement). */
async function withReasons(store: Store, run: RunRecord, perRule: GradedOutput[][]): Promise<GradedOutput[][]> {
  const cells = new Set(perRule.flatMap((outs) => outs.map((o) => `${o.i},${o.j}`)));
  const samples = new Map<string, SampleRecord>();
  if (cells.size > ONE_BY_ONE) for (const s of await store.samples.list(run.id)) samples.set(`${s.i},${s.j}`, s);
  else
    for (const key of cells) {
      const [i, j] = key.split(',').map(Number);
      const s = await store.samples.get(run.id, i, j);
      if (s) samples.set(key, s);
    }
  perRule.forEach((outs, k) => {
    for (const o of outs) {
      const reasons = samples.get(`${o.i},${o.j}`)?.reasons?.[k];
      if (reasons?.length) o.reasons = reasons;
    }
  });
  return perRule;
}
