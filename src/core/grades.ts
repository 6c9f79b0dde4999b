import { ArgumentError } from '../errors.js';
/**
 * People's grades of outputs, as the statistics read them (docs/judges.md).
 *
 * How several grades of one output combine: each grader's latest grade counts once (a second grade by the
 * same person corrects the first); the output's grade is the majority of its graders, and a tie goes to the
 * most recent of their grades. An output whose graders disagree is `disputed` (counted in the reports).
 *
 * How they were chosen: an output drawn at random for grading (a suggestion queue) carries the inclusion
 * probability of the draw that first brought it to grading; one graded without a draw (hand-picked on the
 * page, imported without a probability) carries none. The correction is unbiased only for random draws: the
 * reports say how many grades were not drawn, never silently.
 */

/** One person's grade of output (i, j) for rule k, in the order grades were given (oldest first). */
export interface PersonGrade {
  i: number;
  j: number;
  k: number;
  pass: boolean;
  grader: string;
  /** The output's inclusion probability when it was drawn at random for grading. */
  probability?: number;
  /** The design of that draw ("uniform" and "stratified" are assay's own queues). */
  design?: string;
  /** Why part of it was set aside (a stored probability outside the bounds): said beside the rule's figures. */
  note?: string;
  /**
   * Its place in the log (a store's id, which grows as grades are recorded), so that combining only the grades
   * that decide (GradeStore.decisive) gives what combining all gives; the order given when absent.
   */
  at?: number;
}

/** One graded output of one rule: the people's grade of it once its graders are combined. */
export interface GradedOutput {
  i: number;
  j: number;
  /** The people's grade: true for PASS. */
  person: boolean;
  /** Graders whose latest grade counts. */
  graders: number;
  /** Its graders disagree (the majority, else the most recent grade, decided). */
  disputed: boolean;
  /** Inclusion probability of the draw that first brought it to grading; absent when it was not drawn at random. */
  probability?: number;
  /** The design of that draw. */
  design?: string;
  /** The judge's reasons for its verdict on this output, when known (listed beside a disagreement). */
  reasons?: string[];
  /** What was set aside from its grades (PersonGrade.note), said in the rule's caveats. */
  notes?: string[];
  /**
   * Where its first grade stands in the log (its PersonGrade.at, else 0 for the first grade given): the order grading looks count grades in
   * (core/grading-looks.ts). Absent for grades built by hand: they count in the order listed.
   */
  first?: number;
}

/** Combine people's grades (oldest first) into one grade per output and rule: `K` lists, one per rule k. */
export function combineGrades(grades: readonly PersonGrade[], K: number): GradedOutput[][] {
  const c = new GradeCombiner(K);
  c.add(grades);
  return c.result();
}

type Combined = {
  i: number;
  j: number;
  k: number;
  first: number;
  latest: Map<string, { pass: boolean; at: number }>;
  probability?: number;
  design?: string;
  notes?: string[];
};

/**
 * combineGrades a part at a time: `add` the grades in the order given (oldest first), in as many parts as
 * suit the caller (a server lets other requests run between parts of millions), then `result`.
 */
export class GradeCombiner {
  // Per output: each grader's latest grade and when it came (its position), and the first draw's probability.
  private outputs = new Map<string, Combined>();
  private at = 0;

  constructor(private readonly K: number) {}

  add(grades: readonly PersonGrade[]): void {
    const K = this.K;
    for (const g of grades) {
      const at = g.at ?? this.at++;
      if (!(Number.isInteger(g.k) && g.k >= 0 && g.k < K)) throw new ArgumentError(`combineGrades: rule index k=${g.k} outside 0..${K - 1}`, { key: 'grades' });
      const key = `${g.k},${g.i},${g.j}`;
      let o = this.outputs.get(key);
      if (!o) this.outputs.set(key, (o = { i: g.i, j: g.j, k: g.k, first: at, latest: new Map() }));
      o.latest.set(g.grader, { pass: g.pass, at });
      if (g.note !== undefined && !o.notes?.includes(g.note)) (o.notes ??= []).push(g.note);
      if (o.probability === undefined && g.probability !== undefined) {
        o.probability = g.probability;
        if (g.design !== undefined) o.design = g.design;
      }
    }
  }

  result(): GradedOutput[][] {
    const perRule: GradedOutput[][] = Array.from({ length: this.K }, () => []);
    for (const o of this.outputs.values()) {
      let passes = 0;
      let fails = 0;
      let newest: { pass: boolean; at: number } | undefined;
      for (const x of o.latest.values()) {
        if (x.pass) passes++;
        else fails++;
        if (!newest || x.at > newest.at) newest = x;
      }
      const person = passes === fails ? newest!.pass : passes > fails;
      perRule[o.k].push({
        i: o.i,
        j: o.j,
        person,
        graders: passes + fails,
        disputed: passes > 0 && fails > 0,
        ...(o.probability !== undefined ? { probability: o.probability } : {}),
        ...(o.design !== undefined ? { design: o.design } : {}),
        ...(o.notes ? { notes: [...o.notes] } : {}), // a copy: grades added later must not change a result given
        first: o.first,
      });
    }
    for (const list of perRule) list.sort((a, b) => a.i - b.i || a.j - b.j);
    return perRule;
  }
}
