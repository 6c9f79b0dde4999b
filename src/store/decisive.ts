import { probabilityProblem } from '../core/limits.js';
import type { GradeRecord } from './types.js';

/**
 * GradeStore.decisive over grades already read (the memory store's, and the SQL stores' reference in the
 * contract suite): the grades, in the order given (recorded), that decide what combining them gives.
 */
export function decisiveGrades(grades: readonly GradeRecord[]): GradeRecord[] {
  const keep = new Set<number>();
  const latest = new Map<string, number>();
  const firsts = new Set<string>();
  const drawn = new Set<string>();
  for (const g of grades) {
    const output = JSON.stringify([g.rule, g.i, g.j]);
    latest.set(JSON.stringify([g.rule, g.i, g.j, g.grader]), g.id);
    if (!firsts.has(output)) {
      firsts.add(output);
      keep.add(g.id);
    }
    if (g.probability === undefined) continue;
    if (probabilityProblem(g.probability) !== undefined) keep.add(g.id);
    else if (!drawn.has(output)) {
      drawn.add(output);
      keep.add(g.id);
    }
  }
  for (const id of latest.values()) keep.add(id);
  return grades.filter((g) => keep.has(g.id));
}
