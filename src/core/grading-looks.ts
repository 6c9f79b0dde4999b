/**
 * Grading that may stop whenever it likes (issue 29, docs/judges.md#grading-that-stops-honestly).
 *
 * A corrected verdict (core/ppi.ts) is a fixed-n interval: it holds its level for a number of grades chosen before
 * grading. Grading, looking at the verdict, and grading more until it decides is a sequence of looks, and each
 * look is another chance of a wrong verdict: simulated, 4.4–8.3% wrong FAILs at the threshold for a nominal 2.5%.
 *
 * The fix is a group-sequential design with α spent over the looks: the verdict moves only at 20, 40, 80, 160, …
 * grades (look e at 20·2^(e−1)), and look e is decided at level 1 − α/2^e on the first 20·2^(e−1) grades in the
 * order they were given. Since Σ α/2^e = α, the chance that any look gives a wrong verdict is at most α (α/2 a side),
 * whatever rule decides when to stop grading — after a lucky look, or never. Between looks the verdict does not
 * change, so looking at it costs nothing. Fewer than 20 grades make no look: the judge's (rule's) rate decides, and
 * reports say how many grades the first look needs.
 *
 * Why 20 for the first look: below it a single grade moves the point estimate by 5% or more of a verdict's share
 * (one hand-picked FAIL among few turned a judge's 100/100 into 0%), and the corrected interval's coverage is
 * measured from 10 grades up only (bench:judges); 20 leaves a margin, and its coverage at the look's level is
 * tested (src/core/grading-looks.test.ts). What a look costs: the first look's interval is at 97.5% (about 14% wider
 * than at 95%), the second at 98.75%.
 */
import type { GradingDesign } from './grading-sample.js';
import { ArgumentError } from '../errors.js';

/** The design of a grading queue unless one is asked for (grades/queue.ts GRADING_DEFAULTS reads it): the plan of grades assumes it. */
export const DEFAULT_GRADING_DESIGN: GradingDesign = 'stratified';

/** The first look, in grades of outputs the rule decided. */
export const FIRST_LOOK = 20;

export interface GradingLook {
  /** 1 for the first look (20 grades), 2 for the second (40), … */
  index: number;
  /** Grades the look decides on: the first this many, in the order they were given. */
  grades: number;
  /** The look's level: 1 − α/2^index. */
  level: number;
  /** Grades of the next look. */
  next: number;
}

/** Grades at look `index` (1-based). */
export function lookGrades(index: number): number {
  return FIRST_LOOK * 2 ** (index - 1);
}

/** The level of look `index` for a nominal `level`: α/2^index spent on it. */
export function lookLevel(index: number, level: number): number {
  return 1 - (1 - level) / 2 ** index;
}

/** The last look reached with `grades` grades; null before the first. */
export function gradingLook(grades: number, level: number): GradingLook | null {
  if (!(Number.isInteger(grades) && grades >= 0)) throw new ArgumentError(`gradingLook: grades must be a whole number ≥ 0, got ${grades}`, { key: 'grades' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`gradingLook: level must be in (0, 1), got ${level}`, { key: 'level' });
  if (grades < FIRST_LOOK) return null;
  let index = 1;
  while (lookGrades(index + 1) <= grades) index++;
  return { index, grades: lookGrades(index), level: lookLevel(index, level), next: lookGrades(index + 1) };
}
