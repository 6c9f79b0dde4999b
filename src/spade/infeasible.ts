/**
 * Why a selection program has no solution: which constraint cannot be met, and the best coverage
 * and FFR that can be reached instead (each from its own small program).
 */
import { solveBinaryProgram } from './ilp.js';
import { setMetrics, type FailView } from './metrics.js';
import { bounds, coreProgram } from './program.js';
import { orNoValue } from '../core/show.js';

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

const fmt = (x: number | null) => orNoValue(x, (v) => v.toFixed(3));

/** Diagnose an infeasible selection; every figure is over the assertions not in `exclude`, as the program saw them. */
export async function diagnose(v: FailView, opts: { alpha: number; tau: number; exclude?: boolean[] }): Promise<Infeasibility> {
  const { need, cap } = bounds(v, opts.alpha, opts.tau);
  const usable = [...Array(v.nAssertions).keys()].filter((a) => !opts.exclude?.[a]);
  const all = setMetrics(v, usable);
  // Best coverage with FFR ≤ τ: maximise Σ z under the FFR constraint only.
  const pc = coreProgram(v, { need: 0, cap, dropDominated: true, exclude: opts.exclude });
  pc.sense = 'maximize';
  pc.objective = pc.zTerms;
  const sc = await solveBinaryProgram(pc);
  const bestCoverageUnderFfr = v.bad.length && sc.status === 'optimal' ? sc.objective / v.bad.length : null;
  if (all.caught < need) {
    return {
      constraint: 'coverage',
      message:
        `coverage ≥ ${opts.alpha} cannot be met by any set: all ${usable.length} usable candidates together catch ${all.caught} of ${v.bad.length} bad examples ` +
        `(best achievable coverage ${fmt(all.coverage)}); with FFR ≤ ${opts.tau} the best coverage is ${fmt(bestCoverageUnderFfr)}`,
      maxCoverage: all.coverage,
      bestCoverageUnderFfr,
      bestFfrUnderCoverage: null,
    };
  }
  // Lowest FFR with coverage ≥ α: minimise Σ w under the coverage constraint only.
  const pf = coreProgram(v, { need, cap: v.good.length, dropDominated: true, exclude: opts.exclude });
  pf.objective = pf.wTerms;
  const sf = await solveBinaryProgram(pf);
  const bestFfrUnderCoverage = v.good.length && sf.status === 'optimal' ? sf.objective / v.good.length : null;
  return {
    constraint: 'coverage+ffr',
    message:
      `coverage ≥ ${opts.alpha} and FFR ≤ ${opts.tau} cannot both be met: with FFR ≤ ${opts.tau} the best achievable coverage is ${fmt(bestCoverageUnderFfr)}; ` +
      `reaching coverage ${opts.alpha} needs FFR ≥ ${fmt(bestFfrUnderCoverage)}`,
    maxCoverage: all.coverage,
    bestCoverageUnderFfr,
    bestFfrUnderCoverage,
  };
}
