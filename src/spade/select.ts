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

/** The coverage/FFR part shared by every program: variables x_a, z_e (bad caught), w_e (good flagged). */
function coreProgram(v: FailView, opts: { need?: number; cap?: number }): BinaryProgram {
  const A = v.nAssertions;
  const x = (a: number) => `x${a}`;
  // An assertion whose own false failures exceed the cap can never be in S: leave it out of the
  // program (HiGHS would find the same optimum, more slowly); x_a is then 0 in every solution.
  const allowed = (a: number) => opts.cap === undefined || v.good.reduce((n, e) => n + v.fails[e][a], 0) <= opts.cap;
  const variables: string[] = [];
  for (let a = 0; a < A; a++) if (allowed(a)) variables.push(x(a));
  const constraints: Constraint[] = [];
  if (opts.need !== undefined && v.bad.length) {
    for (const e of v.bad) {
      // z_e ≤ Σ_{a fails e} x_a: a bad example counts as caught only if a selected assertion fails it.
      const terms: Term[] = [[`z${e}`, 1]];
      for (let a = 0; a < A; a++) if (v.fails[e][a] && allowed(a)) terms.push([x(a), -1]);
      constraints.push({ name: `catch${e}`, terms, op: '<=', rhs: 0 });
      variables.push(`z${e}`);
    }
    constraints.push({ name: 'coverage', terms: v.bad.map((e) => [`z${e}`, 1] as Term), op: '>=', rhs: opts.need });
  }
  if (opts.cap !== undefined && v.good.length) {
    for (const e of v.good) {
      // w_e ≥ x_a for every a failing good example e: any selected such a flags it falsely.
      let any = false;
      for (let a = 0; a < A; a++) {
        if (v.fails[e][a] && allowed(a)) {
          constraints.push({ name: `ff${e}_${a}`, terms: [[`w${e}`, 1], [x(a), -1]], op: '>=', rhs: 0 });
          any = true;
        }
      }
      if (any) variables.push(`w${e}`);
    }
    const ws = variables.filter((n) => n.startsWith('w')).map((n) => [n, 1] as Term);
    if (ws.length) constraints.push({ name: 'ffr', terms: ws, op: '<=', rhs: opts.cap });
  }
  return { sense: 'minimize', objective: [], constraints, variables };
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
  const p = coreProgram(v, { need, cap });
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
      ...v.bad.map((e) => [`z${e}`, -(v.good.length + 1)] as Term),
      ...p.variables.filter((n) => n.startsWith('w')).map((n) => [n, 1] as Term),
    ];
    p.objective = [...primary.map(([n, c]) => [n, c * B] as Term), ...secondary];
  } else p.objective = primary;
  const sol = await solveBinaryProgram(p);
  if (sol.status === 'optimal') return result(m, v, opts.method, selectedFrom(sol.values, m.assertions), opts, sol.solveMs);
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
    infeasibility,
  };
}

const pct = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** Which constraint cannot be met, and the best achievable coverage and FFR. */
export async function diagnose(m: EvaluationMatrix, v: FailView, opts: SelectOptions): Promise<Infeasibility> {
  const { need, cap } = bounds(v, opts.alpha, opts.tau);
  const all = setMetrics(v, m.assertions.map((_, a) => a));
  // Best coverage with FFR ≤ τ: maximise Σ z under the FFR constraint only.
  const pc = coreProgram(v, { need: 0, cap });
  pc.sense = 'maximize';
  pc.objective = v.bad.map((e) => [`z${e}`, 1] as Term);
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
  const pf = coreProgram(v, { need, cap: v.good.length });
  pf.objective = v.good.filter((e) => v.fails[e].some((f) => f === 1)).map((e) => [`w${e}`, 1] as Term);
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
