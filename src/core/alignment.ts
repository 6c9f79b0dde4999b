/**
 * STAND-IN (engineer j2-grades) for the module engineer j1-judge-stats writes at this same path: the minimal
 * interface the grading reports are coded against. Replaced by theirs at merge; not the project's statistics.
 */
import { clopperPearson } from './intervals.js';

export interface RateInterval {
  rate: number;
  low: number;
  high: number;
}
export interface Alignment {
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  tpr: RateInterval | null;
  tnr: RateInterval | null;
  agreement: RateInterval | null;
  kappa: number | null;
}

const ri = (x: number, n: number, level: number): RateInterval | null => {
  const c = clopperPearson(x, n, level);
  return c ? { rate: x / n, low: c.low, high: c.high } : null;
};

/** Positive = PASS. tp: judge PASS & person PASS; fp: judge PASS & person FAIL; fn: judge FAIL & person PASS; tn: both FAIL. */
export function alignment(pairs: readonly { judge: boolean; person: boolean }[], level: number): Alignment {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const p of pairs) {
    if (p.judge && p.person) tp++;
    else if (p.judge) fp++;
    else if (p.person) fn++;
    else tn++;
  }
  const n = tp + fp + fn + tn;
  const po = n ? (tp + tn) / n : 0;
  const pe = n ? ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n) : 0;
  return {
    n,
    tp,
    fp,
    fn,
    tn,
    tpr: ri(tp, tp + fn, level),
    tnr: ri(tn, tn + fp, level),
    agreement: ri(tp + tn, n, level),
    kappa: n && pe < 1 ? (po - pe) / (1 - pe) : null,
  };
}
