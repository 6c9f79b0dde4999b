/**
 * Selecting a minimal set of assertions (SPADE §3.2–3.3) with a real MIP solver (HiGHS).
 *
 *  base: every assertion whose own FFR ≤ τ (no program).
 *  cov:  min |S|  s.t. coverage(S) ≥ α, FFR(S) ≤ τ.
 *  sub:  the same constraints plus subsumption variables; objective `paper` = |S| + #(excluded and not
 *        subsumed by S), as the paper states it; objective `code` = #(excluded and not subsumed) only,
 *        which is what the authors' code minimised (its second `problem += …` replaced the objective).
 *
 * Ties are broken lexicographically, each criterion solved as its own stage with the ones before held
 * at their optimum (documented in docs/spade.md): `paper` then prefers fewer excluded-not-subsumed,
 * `code` fewer selected; every method then prefers higher coverage, then lower FFR.
 * `tieBreak: false` solves the bare objective.
 *
 * An assertion with no PASS or FAIL cell at all (every cell ERROR) has no evidence: it is never
 * selected, carries no penalty, and is reported in `unevaluated`.
 */
import { Outcome } from '../core/outcome.js';
import { solveLexicographic, type Term } from './ilp.js';
import { diagnose, type Infeasibility } from './infeasible.js';
import { assertionStats, failView, setMetrics, type FailView } from './metrics.js';
import { addSubsumption, bounds, coreProgram, EPS, subsumerIndex } from './program.js';
import type { EvaluationMatrix, SubsumptionPair } from './types.js';
import { ArgumentError } from '../errors.js';

export type { Infeasibility } from './infeasible.js';
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
  /** Assertions whose every cell is ERROR: never selected, counted nowhere. */
  unevaluated: string[];
  solveMs: number;
  /** CPU time of the solve (see IlpSolution.solveCpuMs). */
  solveCpuMs: number;
  infeasibility?: Infeasibility;
}

/** Assertions with at least one example but no PASS or FAIL cell. */
export function unevaluatedColumns(m: EvaluationMatrix): boolean[] {
  const A = m.assertions.length;
  return m.assertions.map((_, a) => {
    if (!m.examples.length) return false;
    for (let e = 0; e < m.examples.length; e++) {
      const c = m.cells[e * A + a];
      if (c === Outcome.PASS || c === Outcome.FAIL) return false;
    }
    return true;
  });
}

/**
 * Assertions that carry a penalty when excluded and not subsumed: those that ran and whose own
 * FFR ≤ τ. One with FFR > τ can never be in S (a set's FFR is at least each member's); the paper
 * skips evaluating its subsumption pairs (§3.3.2), so its penalty would be a constant. The counts of
 * Table 4 are taken over these assertions too.
 */
export function eligibleForPenalty(m: EvaluationMatrix, tau: number): boolean[] {
  const unevaluated = unevaluatedColumns(m);
  return assertionStats(m).map((s, a) => !unevaluated[a] && (s.ffr === null || s.ffr <= tau + EPS));
}

/** Assertions with own FFR ≤ τ that are neither in `selected` nor subsumed by a member of it. */
export function countExcludedNotSubsumed(m: EvaluationMatrix, selected: string[], tau: number, pairs: SubsumptionPair[] = []): number {
  const ids = m.assertions;
  const subs = subsumerIndex(ids, pairs);
  const eligible = eligibleForPenalty(m, tau);
  const inS = new Set(selected.map((s) => ids.indexOf(s)));
  return ids.filter((_, j) => eligible[j] && !inS.has(j) && !subs[j].some((i) => inS.has(i))).length;
}

function result(
  m: EvaluationMatrix,
  v: FailView,
  selected: string[],
  opts: SelectOptions,
  unevaluated: boolean[],
  ms: { solveMs: number; solveCpuMs: number },
): SelectionResult {
  const sm = setMetrics(
    v,
    selected.map((s) => m.assertions.indexOf(s)),
  );
  return {
    method: opts.method,
    ...(opts.method === 'sub' ? { objective: opts.objective ?? 'paper' } : {}),
    status: 'ok',
    selected,
    ffr: sm.ffr,
    coverage: sm.coverage,
    nExcludedNotSubsumed: countExcludedNotSubsumed(m, selected, opts.tau, opts.subsumes),
    meetsFfr: sm.ffr === null || sm.ffr <= opts.tau + EPS,
    meetsCoverage: sm.coverage === null || sm.coverage >= opts.alpha - EPS,
    unevaluated: m.assertions.filter((_, a) => unevaluated[a]),
    ...ms,
  };
}

function checkOptions(opts: SelectOptions): void {
  for (const k of ['alpha', 'tau'] as const) {
    const x = opts[k];
    if (!(typeof x === 'number' && x >= 0 && x <= 1)) throw new ArgumentError(`${k} must be a number in [0, 1], got ${x}`, { key: k });
  }
}

export async function select(m: EvaluationMatrix, opts: SelectOptions): Promise<SelectionResult> {
  checkOptions(opts);
  const v = failView(m);
  const unevaluated = unevaluatedColumns(m);
  if (opts.method === 'base') {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const selected = assertionStats(m)
      .filter((s, a) => !unevaluated[a] && (s.ffr === null || s.ffr <= opts.tau + EPS))
      .map((s) => s.id);
    const cpu = process.cpuUsage(c0);
    return result(m, v, selected, opts, unevaluated, { solveMs: performance.now() - t0, solveCpuMs: (cpu.user + cpu.system) / 1000 });
  }
  const { need, cap } = bounds(v, opts.alpha, opts.tau);
  const p = coreProgram(v, { need, cap, dropDominated: opts.method === 'cov', exclude: unevaluated });
  const has = new Set(p.variables);
  let stages: Term[][];
  if (opts.method === 'cov') {
    stages = [m.assertions.flatMap((_, a): Term[] => (has.has(`x${a}`) ? [[`x${a}`, 1]] : []))];
  } else {
    const { xs, ps } = addSubsumption(p, m.assertions, opts.subsumes, eligibleForPenalty(m, opts.tau));
    stages = (opts.objective ?? 'paper') === 'paper' ? [[...xs, ...ps], ps] : [ps, xs];
  }
  const tie = opts.tieBreak ?? true;
  if (tie) {
    // Last stage: the highest coverage, then the lowest FFR: −(nGood+1)·Σz + Σw.
    stages.push([...p.zTerms.map(([n, c]): Term => [n, -c * (v.good.length + 1)]), ...p.wTerms]);
  } else stages = stages.slice(0, 1);
  const sol = await solveLexicographic(p, stages);
  const ms = { solveMs: sol.solveMs, solveCpuMs: sol.solveCpuMs };
  if (sol.status === 'optimal')
    return result(
      m,
      v,
      m.assertions.filter((_, a) => sol.values[`x${a}`] === 1),
      opts,
      unevaluated,
      ms,
    );
  if (sol.status !== 'infeasible') throw new Error(`HiGHS ended with status "${sol.solverStatus}"`);
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
    unevaluated: m.assertions.filter((_, a) => unevaluated[a]),
    ...ms,
    infeasibility: await diagnose(v, { alpha: opts.alpha, tau: opts.tau, exclude: unevaluated }),
  };
}
