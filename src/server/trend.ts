import { compareProportions } from '../core/significance.js';
import type { RunSummary } from '../core/summary-types.js';
import type { RunRecord } from '../store/types.js';

/** One validator's rate in one run, with the test of its change from the previous run that had it. */
export interface TrendEntry {
  runId: string;
  createdAt: string;
  status: string;
  rate: number | null;
  low: number | null;
  high: number | null;
  pass: number;
  n: number;
  error: number;
  /** Versus the previous run: B − A, its p-value and test; absent for the first run. */
  change?: { diff: number | null; pValue: number | null; test: 'fisher' | 'z' | null; significant: boolean; direction: 'better' | 'worse' | 'unchanged' };
}

export interface Trend {
  name: string;
  level: number;
  runs: { id: string; createdAt: string; status: string; verdict: string; shape: string }[];
  /** Each validator's series; minSuccess is the latest run's threshold for it. */
  validators: { name: string; minSuccess: number; entries: TrendEntry[] }[];
}

/** Runs of one experiment name, oldest first; each validator's series and its significant changes. */
export function buildTrend(name: string, runs: { run: RunRecord; summary: RunSummary }[], level = 0.95): Trend {
  const ordered = [...runs].sort((x, y) => x.run.createdAt.localeCompare(y.run.createdAt) || x.run.id.localeCompare(y.run.id));
  const series = new Map<string, TrendEntry[]>();
  const minSuccess = new Map<string, number>();
  for (const { run, summary } of ordered) {
    for (const v of summary.validators) {
      const entries = series.get(v.name) ?? [];
      series.set(v.name, entries);
      minSuccess.set(v.name, v.minSuccess);
      const cur = { pass: v.counts.pass, n: v.counts.pass + v.counts.fail };
      const entry: TrendEntry = {
        runId: run.id,
        createdAt: run.createdAt,
        status: run.status,
        rate: v.rate,
        low: v.ci?.low ?? null,
        high: v.ci?.high ?? null,
        ...cur,
        error: v.counts.error,
      };
      const prev = entries[entries.length - 1];
      if (prev) {
        const c = compareProportions({ pass: prev.pass, n: prev.n }, cur, level);
        entry.change = { diff: c.diff, pValue: c.pValue, test: c.test, significant: c.significant, direction: c.direction };
      }
      entries.push(entry);
    }
  }
  return {
    name,
    level,
    runs: ordered.map(({ run, summary }) => ({
      id: run.id,
      createdAt: run.createdAt,
      status: run.status,
      verdict: summary.verdict,
      shape: `${summary.N}×${summary.M}×${summary.K}`,
    })),
    validators: [...series].map(([vname, entries]) => ({ name: vname, minSuccess: minSuccess.get(vname)!, entries })),
  };
}
