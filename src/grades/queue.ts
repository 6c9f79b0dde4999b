/**
 * Which outputs to grade: a queue drawn at random with known probabilities (core/grading-sample.ts), so that
 * the corrected rate stays unbiased. One queue for `assay grade` and the dashboard's grading page.
 *
 * The population is the outputs the rule decided (PASS or FAIL) that nobody has graded for it yet: each
 * queue is a batch drawn from what is left, and the union of batches stays a random sample within each of
 * the rule's verdicts, which is what the correction needs (core/ppi.ts). The draw is seeded; without a seed
 * it is seeded by the run and the rule, so the same command (or page) gives the same queue until someone
 * grades. The queue is shuffled (with the same seed) so that a part of it graded in order is a random part.
 */
import { alignment } from '../core/alignment.js';
import { combineGrades, type GradedOutput } from '../core/grades.js';
import { gradesForWidth, suggestGrading, type GradingDesign } from '../core/grading-sample.js';
import { gradedPairs } from '../core/grading-summary.js';
import { DEFAULT_GRADING_DESIGN } from '../core/grading-looks.js';
import { Outcome } from '../core/outcome.js';
import { mulberry32 } from '../core/prng.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { decisionOfRun } from '../core/decision.js';
import type { GradeRecord, RunRecord } from '../store/types.js';
import { personGrades } from './load.js';

export type { GradingDesign };

/** One output to grade, with the probability and design it was drawn with. */
export interface QueueItem {
  i: number;
  j: number;
  probability: number;
  design: string;
  /** The stratum it was drawn from (stratified design). */
  stratum?: string;
}

export interface GradingQueue {
  items: QueueItem[];
  design: string;
  seed: number;
  /** Outputs the rule decided and nobody graded yet: the population drawn from. */
  population: number;
}

/** The grading designs: uniform, or stratified by the rule's verdict (square-root allocation, weights kept). */
export const GRADING_DESIGNS: readonly GradingDesign[] = ['uniform', 'stratified'];

/** The largest seed of a draw (nine digits). */
export const MAX_SEED = 999_999_999;

/**
 * How a queue is drawn and planned unless the grader says otherwise, the same for `assay grade` and the
 * dashboard: 50 outputs, stratified by the rule's verdict (the recommended design, docs/judges.md), a
 * grades-needed estimate for a corrected interval 0.1 wide; the seed comes from the run and the rule.
 */
export const GRADING_DEFAULTS = { count: 50, design: DEFAULT_GRADING_DESIGN, width: 0.1 } as const satisfies {
  count: number;
  design: GradingDesign;
  width: number;
};

/** A queue's settings as asked for. */
export interface QueueSettings {
  count: number;
  design: GradingDesign;
  seed: number;
  width: number;
}

/** The settings of rule `rule`'s queue in run `runId`: what was given, the defaults for the rest (the one place they are decided). */
export function queueSettings(runId: string, rule: string, given: Partial<QueueSettings> = {}): QueueSettings {
  return {
    count: given.count ?? GRADING_DEFAULTS.count,
    design: given.design ?? GRADING_DEFAULTS.design,
    seed: given.seed ?? defaultSeed(runId, rule),
    width: given.width ?? GRADING_DEFAULTS.width,
  };
}

/** A default seed from the run and the rule (FNV-1a): the same queue every time unless a seed is given. */
export function defaultSeed(runId: string, rule: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${runId}\0${rule}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % 1_000_000;
}

/** Draw `count` outputs of rule k to grade, none of those in `graded` (outputs (i, j) graded for the rule already). */
export function gradingQueue(
  t: ReliabilityTensor,
  k: number,
  opts: { count: number; design: GradingDesign; seed: number; graded?: readonly { i: number; j: number }[] },
): GradingQueue {
  const outputs: { id: number; judge: boolean }[] = [];
  for (let i = 0; i < t.N; i++)
    for (let j = 0; j < t.M; j++) {
      const c = t.get(i, j, k);
      if (c === Outcome.PASS || c === Outcome.FAIL) outputs.push({ id: i * t.M + j, judge: c === Outcome.PASS });
    }
  const exclude = new Set((opts.graded ?? []).map((g) => g.i * t.M + g.j));
  const { picks, design } = suggestGrading(outputs, opts.count, { seed: opts.seed, design: opts.design, exclude });
  const items = picks.map((p) => ({
    i: Math.floor(p.id / t.M),
    j: p.id % t.M,
    probability: p.probability,
    design,
    ...(p.stratum !== undefined ? { stratum: p.stratum } : {}),
  }));
  // Seeded shuffle (Fisher–Yates) so that a prefix of the queue is a random part of it, whatever order the draw returned.
  const rnd = mulberry32(opts.seed ^ 0x9e3779b9);
  for (let a = items.length - 1; a > 0; a--) {
    const b = Math.floor(rnd() * (a + 1));
    [items[a], items[b]] = [items[b], items[a]];
  }
  return { items, design, seed: opts.seed, population: outputs.filter((o) => !exclude.has(o.id)).length };
}

/**
 * About how many grades a corrected interval `width` wide needs (PPI's power analysis, core/grading-sample.ts),
 * from the rule's measured TPR and TNR when both are known; Infinity when grading every output would not do;
 * undefined when the rule decided no output.
 */
export function gradesNeeded(
  t: ReliabilityTensor,
  k: number,
  width: number,
  level: number,
  opts: { tpr?: number | null; tnr?: number | null; design?: GradingDesign } = {},
): number | undefined {
  let pass = 0;
  let n = 0;
  for (let i = 0; i < t.N; i++)
    for (let j = 0; j < t.M; j++) {
      const c = t.get(i, j, k);
      if (c === Outcome.PASS) pass++;
      if (c === Outcome.PASS || c === Outcome.FAIL) n++;
    }
  if (n === 0) return undefined;
  const rates = opts.tpr != null && opts.tnr != null ? { tpr: opts.tpr, tnr: opts.tnr } : {};
  return gradesForWidth({ judged: { pass, n }, ...rates, width, level, ...(opts.design ? { design: opts.design } : {}) });
}

/**
 * The rule graded, as its column k: the one named, else the run's first verifier (a judge is what most needs
 * checking), else its first rule; undefined when the run has no rule of that name (or none at all).
 */
export function ruleToGrade(run: Pick<RunRecord, 'validators'>, name: string | undefined): number | undefined {
  if (name !== undefined && name !== '') {
    const k = run.validators.findIndex((v) => v.name === name);
    return k < 0 ? undefined : k;
  }
  const verifier = run.validators.findIndex((v) => v.kind === 'verifier');
  return verifier >= 0 ? verifier : run.validators.length ? 0 : undefined;
}

/** What `assay grade` prints and the grading page shows about how many grades a target width needs. */
export interface GradingPlan {
  width: number;
  level: number;
  design: GradingDesign;
  /** Grades of outputs the rule decided, so far. */
  graded: number;
  /** About how many grades in all; null when grading every output the rule decided would not do (or it decided none). */
  grades: number | null;
}

/**
 * The one estimate of how many grades a corrected interval `width` wide needs for rule k of a run: from its
 * verdicts and, once people graded some of them, its TPR and TNR measured on those grades (gradesNeeded).
 * `grades` are the run's grades (of any rule: the rule's are picked out).
 */
export function gradingPlan(
  run: RunRecord,
  t: ReliabilityTensor,
  k: number,
  grades: readonly GradeRecord[],
  opts: { width: number; design: GradingDesign; combined?: readonly GradedOutput[] },
): GradingPlan {
  const level = decisionOfRun(run).confidence;
  // `combined`: rule k's grades already combined (load.ts combineInParts), so a server does not do it again at once.
  const { pairs } = gradedPairs(t, k, opts.combined ?? combineGrades(personGrades(run, grades), run.K)[k]);
  const a = alignment(pairs, level);
  const need = gradesNeeded(t, k, opts.width, level, { tpr: a.tpr?.rate, tnr: a.tnr?.rate, design: opts.design });
  return { width: opts.width, level, design: opts.design, graded: pairs.length, grades: need === undefined || !Number.isFinite(need) ? null : need };
}
