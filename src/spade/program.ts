/**
 * The 0-1 programs of SPADE's selection (§3.2–3.3), built over a fail view of the matrix. Nothing here
 * solves anything: `select.ts` and `infeasible.ts` hand these programs to HiGHS.
 */
import type { BinaryProgram, Constraint, Term } from './ilp.js';
import type { FailView } from './metrics.js';
import type { SubsumptionPair } from './types.js';
import { pushAll } from '../core/arrays.js';

export const EPS = 1e-9;

/** Integer bounds of the two constraints: at least `need` bad examples caught, at most `cap` good ones flagged. */
export function bounds(v: FailView, alpha: number, tau: number): { need: number; cap: number } {
  return { need: Math.ceil(alpha * v.bad.length - EPS), cap: Math.floor(tau * v.good.length + EPS) };
}

/** Subsumption pairs as index lists: subsumers[j] = assertions i with K[i][j] = 1 (i ≠ j). */
export function subsumerIndex(ids: string[], pairs: SubsumptionPair[] = []): number[][] {
  const at = new Map(ids.map((id, k) => [id, k]));
  const out: number[][] = ids.map(() => []);
  for (const p of pairs) {
    const i = at.get(p.subsumer);
    const j = at.get(p.subsumed);
    if (i !== undefined && j !== undefined && i !== j && !out[j].includes(i)) out[j].push(i);
  }
  return out;
}

export interface CoreProgram extends BinaryProgram {
  /** Σ over these = number of bad examples caught (weighted by identical rows). */
  zTerms: Term[];
  /** Σ over these = number of good examples flagged. */
  wTerms: Term[];
}

export interface CoreOptions {
  need?: number;
  cap?: number;
  /** Leave out assertions dominated by another (not for `sub`, where every assertion has its own penalty). */
  dropDominated?: boolean;
  /** Columns that may never be selected (for example assertions that never ran). */
  exclude?: boolean[];
}

/**
 * Columns that can be left out without changing any optimum. An assertion whose own false failures
 * exceed the cap can never be in S. With `dropDominated`, an assertion is also left out when another
 * catches every bad example it catches and flags no good example it does not (the other is at least as
 * good in coverage, FFR and |S|).
 */
function allowedColumns(v: FailView, o: CoreOptions): boolean[] {
  const A = v.nAssertions;
  const goodFails = (a: number) => v.good.filter((e) => v.fails[e][a]);
  const badFails = (a: number) => v.bad.filter((e) => v.fails[e][a]);
  const allowed = Array.from({ length: A }, (_, a) => !o.exclude?.[a] && (o.cap === undefined || goodFails(a).length <= o.cap));
  if (!o.dropDominated) return allowed;
  const bads = Array.from({ length: A }, (_, a) => new Set(badFails(a)));
  const goods = Array.from({ length: A }, (_, a) => new Set(goodFails(a)));
  const subset = (x: Set<number>, y: Set<number>) => [...x].every((e) => y.has(e));
  for (let a = 0; a < A; a++) {
    if (!allowed[a]) continue;
    for (let b = 0; b < A; b++) {
      if (b === a || !allowed[b]) continue;
      const dominates = subset(bads[a], bads[b]) && subset(goods[b], goods[a]);
      const same = dominates && subset(bads[b], bads[a]) && subset(goods[a], goods[b]);
      // among identical columns keep the first
      if (dominates && (!same || b < a)) {
        allowed[a] = false;
        break;
      }
    }
  }
  return allowed;
}

/**
 * The coverage/FFR part shared by every program: variables x_a, z_g (bad examples of group g caught),
 * w_g (good examples of group g flagged). Examples with the same label and the same failing
 * assertions form one group, counted with its size: a smaller program with the same optima.
 */
export function coreProgram(v: FailView, opts: CoreOptions): CoreProgram {
  const A = v.nAssertions;
  const x = (a: number) => `x${a}`;
  const allowed = allowedColumns(v, opts);
  const variables: string[] = [];
  for (let a = 0; a < A; a++) if (allowed[a]) variables.push(x(a));
  const constraints: Constraint[] = [];
  const groups = (rows: number[]) => {
    const out = new Map<string, { cols: number[]; count: number }>();
    for (const e of rows) {
      const cols: number[] = [];
      for (let a = 0; a < A; a++) if (v.fails[e][a] && allowed[a]) cols.push(a);
      const key = cols.join(',');
      const g = out.get(key);
      if (g) g.count++;
      else out.set(key, { cols, count: 1 });
    }
    return [...out.values()].filter((g) => g.cols.length > 0);
  };
  const zTerms: Term[] = [];
  const wTerms: Term[] = [];
  if (opts.need !== undefined && v.bad.length) {
    groups(v.bad).forEach((g, k) => {
      // z_g ≤ Σ_{a fails g} x_a: bad examples count as caught only if a selected assertion fails them.
      constraints.push({ name: `catch${k}`, terms: [[`z${k}`, 1], ...g.cols.map((a) => [x(a), -1] as Term)], op: '<=', rhs: 0 });
      variables.push(`z${k}`);
      zTerms.push([`z${k}`, g.count]);
    });
    constraints.push({ name: 'coverage', terms: zTerms, op: '>=', rhs: opts.need });
  }
  if (opts.cap !== undefined && v.good.length) {
    groups(v.good).forEach((g, k) => {
      // w_g ≥ x_a for every a failing the group's good examples: any selected such a flags them falsely.
      for (const a of g.cols)
        constraints.push({
          name: `ff${k}_${a}`,
          terms: [
            [`w${k}`, 1],
            [x(a), -1],
          ],
          op: '>=',
          rhs: 0,
        });
      variables.push(`w${k}`);
      wTerms.push([`w${k}`, g.count]);
    });
    if (wTerms.length) constraints.push({ name: 'ffr', terms: wTerms, op: '<=', rhs: opts.cap });
  }
  return { sense: 'minimize', objective: [], constraints, variables, zTerms, wTerms };
}

/**
 * The paper's subsumption variables (§3.3.1), added to `p` for every assertion j with `penalised[j]`:
 * s_j ≤ Σ_i K[i][j]·x_i (subsumed only by a selected subsumer), and the penalty p_j = 1 exactly when
 * j is neither selected nor subsumed (p_j ≤ 1 − x_j, p_j ≤ 1 − s_j, p_j ≥ 1 − x_j − s_j).
 * Returns the Σx and Σp terms of the objective.
 */
export function addSubsumption(p: CoreProgram, ids: string[], pairs: SubsumptionPair[] | undefined, penalised: boolean[]): { xs: Term[]; ps: Term[] } {
  const has = new Set(p.variables);
  const X = (a: number): Term[] => (has.has(`x${a}`) ? [[`x${a}`, 1]] : []);
  const subs = subsumerIndex(ids, pairs);
  const xs: Term[] = [];
  const ps: Term[] = [];
  for (let j = 0; j < ids.length; j++) {
    pushAll(xs, X(j));
    if (!penalised[j]) continue;
    const s = `s${j}`;
    const pen = `p${j}`;
    p.variables.push(s, pen);
    p.constraints.push({ name: `sub${j}`, terms: [[s, 1], ...subs[j].flatMap((i) => X(i).map(([n]) => [n, -1] as Term))], op: '<=', rhs: 0 });
    p.constraints.push({ name: `pa${j}`, terms: [[pen, 1], ...X(j)], op: '<=', rhs: 1 });
    p.constraints.push({
      name: `pb${j}`,
      terms: [
        [pen, 1],
        [s, 1],
      ],
      op: '<=',
      rhs: 1,
    });
    p.constraints.push({ name: `pc${j}`, terms: [[pen, 1], ...X(j), [s, 1]], op: '>=', rhs: 1 });
    ps.push([pen, 1]);
  }
  return { xs, ps };
}
