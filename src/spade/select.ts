/**
 * Selecting a minimal set of assertions (SPADE §3.2–3.3) with a real MIP solver (HiGHS).
 *
 *  base: every assertion whose own FFR ≤ τ (no program).
 *  cov:  min |S|  s.t. coverage(S) ≥ α, FFR(S) ≤ τ.
 *  sub:  the same constraints plus subsumption variables; objective `paper` = |S| + #(excluded and not
 *        subsumed by S), as the paper states it; objective `code` = #(excluded and not subsumed) only,
 *        which is what the authors' code minimised (its second `problem += …` replaced the objective).
 *
 * Ties are broken lexicographically by a small secondary term (documented in docs/spade.md):
 * `paper` prefers fewer excluded-not-subsumed, `code` prefers fewer selected. `tieBreak: false` solves the bare objective.
 */
import { solveBinaryProgram, type BinaryProgram, type Constraint, type Term } from './ilp.js';
import { assertionStats, failView, setMetrics, type FailView } from './metrics.js';
import type { EvaluationMatrix, SubsumptionPair } from './types.js';

export type Method = 'base' | 'cov' | 'sub';
export type SubObjective = 'paper' | 'code';

export interface SelectOptions {
  method: Method;
  /** Minimum coverage of bad examples (0..1). */
  alpha: number;
  /** Maximum false failure rate on good examples (0..1). */
  tau: number;
  objective?: SubObjective;
  /** Subsumption pairs (K); used by `sub` and to count excluded-not-subsumed for every method. */
  subsumes?: SubsumptionPair[];
  tieBreak?: boolean;
}

export interface Infeasibility {
  /** `coverage`: no set at all reaches α; `coverage+ffr`: α is reachable only above τ. */
  constraint: 'coverage' | 'coverage+ffr';
  message: string;
  /** Coverage of all candidates together: the most any set can reach. */
  maxCoverage: number | null;
  /** Best coverage of a set with FFR ≤ τ. */
  bestCoverageUnderFfr: number | null;
  /** Lowest FFR of a set with coverage ≥ α (null when α is unreachable). */
  bestFfrUnderCoverage: number | null;
}

export interface SelectionResult {
  method: Method;
  objective?: SubObjective;
  status: 'ok' | 'infeasible';
  selected: string[];
  ffr: number | null;
  coverage: number | null;
  nExcludedNotSubsumed: number;
  meetsFfr: boolean;
  meetsCoverage: boolean;
  solveMs: number;
  /** CPU time of the solve (see IlpSolution.solveCpuMs). */
  solveCpuMs: number;
  infeasibility?: Infeasibility;
}

const EPS = 1e-9;

/** Integer bounds of the two constraints: at least `need` bad examples caught, at most `cap` good ones flagged. */
function bounds(v: FailView, alpha: number, tau: number) {
  return { need: Math.ceil(alpha * v.bad.length - EPS), cap: Math.floor(tau * v.good.length + EPS) };
}

/** Subsumption pairs as index lists: subsumers[j] = assertions i with K[i][j] = 1 (i ≠ j). */
function subsumerIndex(ids: string[], pairs: SubsumptionPair[] = []): number[][] {
  const at = new Map(ids.map((id, k) => [id, k]));
  const out: number[][] = ids.map(() => []);
  for (const p of pairs) {
    const i = at.get(p.subsumer);
    const j = at.get(p.subsumed);
    if (i !== undefined && j !== undefined && i !== j && !out[j].includes(i)) out[j].push(i);
  }
  return out;
}

/**
 * Assertions that carry a penalty when excluded and not subsumed: those whose own FFR ≤ τ. One with
 * FFR > τ can never be in S (a set's FFR is at least each member's), nor be subsumed by a member (a
 * subsumer fails wherever it fails, so its FFR is at least as high): its penalty would be a constant.
 * This is the paper's FFR-based skip; the counts of its Table 4 are taken over these assertions too.
 */
export function eligibleForPenalty(m: EvaluationMatrix, tau: number): boolean[] {
  return assertionStats(m).map((s) => s.ffr === null || s.ffr <= tau + EPS);
}

/** Assertions with own FFR ≤ τ that are neither in `selected` nor subsumed by a member of it. */
export function countExcludedNotSubsumed(m: EvaluationMatrix, selected: string[], tau: number, pairs: SubsumptionPair[] = []): number {
  const ids = m.assertions;
  const subs = subsumerIndex(ids, pairs);
  const eligible = eligibleForPenalty(m, tau);
  const inS = new Set(selected.map((s) => ids.indexOf(s)));
  return ids.filter((_, j) => eligible[j] && !inS.has(j) && !subs[j].some((i) => inS.has(i))).length;
}

interface CoreProgram extends BinaryProgram {
  /** Σ over these = number of bad examples caught (weighted by identical rows). */
  zTerms: Term[];
  /** Σ over these = number of good examples flagged. */
  wTerms: Term[];
}

/**
 * Columns that can be left out without changing any optimum. An assertion whose own false failures
 * exceed the cap can never be in S. With `dropDominated` (not for `sub`, where every assertion has its
 * own penalty), an assertion is also left out when another catches every bad example it catches and
 * flags no good example it does not (the other is at least as good in coverage, FFR and |S|).
 */
function allowedColumns(v: FailView, cap: number | undefined, dropDominated: boolean): boolean[] {
  const A = v.nAssertions;
  const goodFails = (a: number) => v.good.filter((e) => v.fails[e][a]);
  const badFails = (a: number) => v.bad.filter((e) => v.fails[e][a]);
  const allowed = Array.from({ length: A }, (_, a) => cap === undefined || goodFails(a).length <= cap);
  if (!dropDominated) return allowed;
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
function coreProgram(v: FailView, opts: { need?: number; cap?: number; dropDominated?: boolean }): CoreProgram {
  const A = v.nAssertions;
  const x = (a: number) => `x${a}`;
  const allowed = allowedColumns(v, opts.cap, opts.dropDominated ?? false);
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
      for (const a of g.cols) constraints.push({ name: `ff${k}_${a}`, terms: [[`w${k}`, 1], [x(a), -1]], op: '>=', rhs: 0 });
      variables.push(`w${k}`);
      wTerms.push([`w${k}`, g.count]);
    });
    if (wTerms.length) constraints.push({ name: 'ffr', terms: wTerms, op: '<=', rhs: opts.cap });
  }
  return { sense: 'minimize', objective: [], constraints, variables, zTerms, wTerms };
}

function selectedFrom(values: Record<string, number>, ids: string[]): string[] {
  return ids.filter((_, a) => values[`x${a}`] === 1);
}

function result(
  m: EvaluationMatrix,
  v: FailView,
  method: Method,
  selected: string[],
  opts: SelectOptions,
  solveMs: number,
  solveCpuMs = solveMs,
): SelectionResult {
  const idx = selected.map((s) => m.assertions.indexOf(s));
  const sm = setMetrics(v, idx);
  return {
    method,
    ...(method === 'sub' ? { objective: opts.objective ?? 'paper' } : {}),
    status: 'ok',
    selected,
    ffr: sm.ffr,
    coverage: sm.coverage,
    nExcludedNotSubsumed: countExcludedNotSubsumed(m, selected, opts.tau, opts.subsumes),
    meetsFfr: sm.ffr === null || sm.ffr <= opts.tau + EPS,
    meetsCoverage: sm.coverage === null || sm.coverage >= opts.alpha - EPS,
    solveMs,
    solveCpuMs,
  };
}

function checkOptions(opts: SelectOptions): void {
  for (const k of ['alpha', 'tau'] as const) {
    const x = opts[k];
    if (!(typeof x === 'number' && x >= 0 && x <= 1)) throw new RangeError(`${k} must be a number in [0, 1], got ${x}`);
  }
}

export async function select(m: EvaluationMatrix, opts: SelectOptions): Promise<SelectionResult> {
  checkOptions(opts);
  const v = failView(m);
  if (opts.method === 'base') {
    const t0 = performance.now();
    const selected = assertionStats(m)
      .filter((s) => s.ffr === null || s.ffr <= opts.tau + EPS)
      .map((s) => s.id);
    return result(m, v, 'base', selected, opts, performance.now() - t0);
  }
  const { need, cap } = bounds(v, opts.alpha, opts.tau);
  const p = coreProgram(v, { need, cap, dropDominated: opts.method === 'cov' });
  const A = v.nAssertions;
  const tie = opts.tieBreak ?? true;
  const W = tie ? A + 1 : 1;
  // primary: the method's objective, as integer-weighted terms
  const has = new Set(p.variables);
  const X = (a: number): Term[] => (has.has(`x${a}`) ? [[`x${a}`, 1]] : []);
  let primary: Term[] = m.assertions.flatMap((_, a) => X(a));
  if (opts.method === 'sub') {
    const eligible = eligibleForPenalty(m, opts.tau);
    const subs = subsumerIndex(m.assertions, opts.subsumes);
    const xs: Term[] = [];
    const ps: Term[] = [];
    for (let j = 0; j < A; j++) {
      xs.push(...X(j));
      if (!eligible[j]) continue;
      const s = `s${j}`;
      const pen = `p${j}`;
      p.variables.push(s, pen);
      // s_j ≤ Σ_i K[i][j] x_i: j is subsumed only if a selected assertion subsumes it.
      p.constraints.push({ name: `sub${j}`, terms: [[s, 1], ...subs[j].flatMap((i) => X(i).map(([n]) => [n, -1] as Term))], op: '<=', rhs: 0 });
      // p_j ≤ 1 − x_j, p_j ≤ 1 − s_j, p_j ≥ 1 − x_j − s_j: penalty iff neither selected nor subsumed.
      p.constraints.push({ name: `pa${j}`, terms: [[pen, 1], ...X(j)], op: '<=', rhs: 1 });
      p.constraints.push({ name: `pb${j}`, terms: [[pen, 1], [s, 1]], op: '<=', rhs: 1 });
      p.constraints.push({ name: `pc${j}`, terms: [[pen, 1], ...X(j), [s, 1]], op: '>=', rhs: 1 });
      ps.push([pen, 1]);
    }
    primary =
      (opts.objective ?? 'paper') === 'paper'
        ? [...xs.map(([n]) => [n, W] as Term), ...ps.map(([n]) => [n, tie ? W + 1 : 1] as Term)]
        : [...ps.map(([n]) => [n, W] as Term), ...(tie ? xs : [])];
  }
  if (tie) {
    // Among optima, prefer the highest coverage, then the lowest FFR: B·primary − (nGood+1)·Σz + Σw,
    // with B larger than the whole secondary range so the primary objective is never traded away.
    const B = (v.bad.length + 1) * (v.good.length + 1);
    const secondary: Term[] = [
      ...p.zTerms.map(([n, c]) => [n, -c * (v.good.length + 1)] as Term),
      ...p.wTerms,
    ];
    p.objective = [...primary.map(([n, c]) => [n, c * B] as Term), ...secondary];
  } else p.objective = primary;
  const sol = await solveBinaryProgram(p);
  if (sol.status === 'optimal') return result(m, v, opts.method, selectedFrom(sol.values, m.assertions), opts, sol.solveMs, sol.solveCpuMs);
  if (sol.status !== 'infeasible') throw new Error(`HiGHS ended with status "${sol.solverStatus}"`);
  const infeasibility = await diagnose(m, v, opts);
  return {
    method: opts.method,
    ...(opts.method === 'sub' ? { objective: opts.objective ?? 'paper' } : {}),
    status: 'infeasible',
    selected: [],
    ffr: null,
    coverage: null,
    nExcludedNotSubsumed: eligibleForPenalty(m, opts.tau).filter(Boolean).length,
    meetsFfr: false,
    meetsCoverage: false,
    solveMs: sol.solveMs,
    solveCpuMs: sol.solveCpuMs,
    infeasibility,
  };
}

const pct = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** Which constraint cannot be met, and the best achievable coverage and FFR. */
export async function diagnose(m: EvaluationMatrix, v: FailView, opts: SelectOptions): Promise<Infeasibility> {
  const { need, cap } = bounds(v, opts.alpha, opts.tau);
  const all = setMetrics(v, m.assertions.map((_, a) => a));
  // Best coverage with FFR ≤ τ: maximise Σ z under the FFR constraint only.
  const pc = coreProgram(v, { need: 0, cap, dropDominated: true });
  pc.sense = 'maximize';
  pc.objective = pc.zTerms;
  const sc = await solveBinaryProgram(pc);
  const bestCoverageUnderFfr = v.bad.length && sc.status === 'optimal' ? sc.objective / v.bad.length : null;
  if (all.caught < need) {
    return {
      constraint: 'coverage',
      message: `coverage ≥ ${opts.alpha} cannot be met by any set: all ${m.assertions.length} candidates together catch ${all.caught} of ${v.bad.length} bad examples (coverage ${pct(all.coverage)}); with FFR ≤ ${opts.tau} the best coverage is ${pct(bestCoverageUnderFfr)}`,
      maxCoverage: all.coverage,
      bestCoverageUnderFfr,
      bestFfrUnderCoverage: null,
    };
  }
  // Lowest FFR with coverage ≥ α: minimise Σ w under the coverage constraint only.
  const pf = coreProgram(v, { need, cap: v.good.length, dropDominated: true });
  pf.objective = pf.wTerms;
  const sf = await solveBinaryProgram(pf);
  const bestFfrUnderCoverage = v.good.length && sf.status === 'optimal' ? sf.objective / v.good.length : null;
  return {
    constraint: 'coverage+ffr',
    message: `coverage ≥ ${opts.alpha} and FFR ≤ ${opts.tau} cannot both be met: with FFR ≤ ${opts.tau} the best coverage is ${pct(bestCoverageUnderFfr)}; reaching coverage ${opts.alpha} needs FFR ≥ ${pct(bestFfrUnderCoverage)}`,
    maxCoverage: all.coverage,
    bestCoverageUnderFfr,
    bestFfrUnderCoverage,
  };
}
