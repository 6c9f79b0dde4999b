/**
 * STAND-IN (engineer j2-grades) for the module engineer j1-judge-stats writes at this same path: the minimal
 * interface the grading reports are coded against (classic PPI, λ = 1, normal interval). Replaced by theirs
 * at merge; not the project's statistics.
 */
import { zCritical } from './intervals.js';

export interface CorrectedRate {
  rate: number;
  low: number;
  high: number;
  grades: number;
  method: string;
}

export function correctedRate(args: {
  judged: { pass: number; n: number };
  graded: readonly { judge: boolean; person: boolean; probability?: number }[];
  level: number;
}): CorrectedRate | null {
  const { judged, graded, level } = args;
  const n = graded.length;
  if (n < 2 || judged.n === 0) return null;
  const judgeMean = judged.pass / judged.n;
  const d = graded.map((g) => Number(g.person) - Number(g.judge));
  const dMean = d.reduce((a, b) => a + b, 0) / n;
  const dVar = d.reduce((a, b) => a + (b - dMean) ** 2, 0) / (n - 1);
  const rate = judgeMean + dMean;
  const se = Math.sqrt(dVar / n + (judgeMean * (1 - judgeMean)) / judged.n);
  const half = zCritical(level) * se;
  const clip = (v: number) => Math.min(1, Math.max(0, v));
  return { rate: clip(rate), low: clip(rate - half), high: clip(rate + half), grades: n, method: 'stand-in ppi' };
}
