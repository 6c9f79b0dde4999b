import { matchInputs } from '../core/compare.js';
import { populationDifference } from '../core/population.js';
import { compareProportions } from '../core/significance.js';
import type { Counts, Estimand, RunSummary } from '../core/summary-types.js';
import type { RunRecord } from '../store/types.js';

/** One validator's rate in one run, with the test of its change from the previous run that had it. */
export interface TrendEntry {
  runId: string;
  createdAt: string;
  status: string;
  /** The rate and interval of the claim the run's verdicts are about: the inputs run, or the input population. */
  rate: number | null;
  low: number | null;
  high: number | null;
  /** Which claim `rate`, `low`, `high` and `change` are about (the run's estimand). */
  estimand: Estimand;
  /** The input-population figure beside the inputs-run one, whatever the estimand (null with fewer than 2 inputs). */
  population: { rate: number; low: number; high: number } | null;
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
  // Each validator's per-input counts in the previous run that had it: a population change is paired by input.
  const prevInputs = new Map<string, { inputs: RunRecord['inputs']; counts: Counts[] }>();
  for (const { run, summary } of ordered) {
    const estimand = summary.options.estimand ?? 'inputs';
    for (const [k, v] of summary.validators.entries()) {
      const entries = series.get(v.name) ?? [];
      series.set(v.name, entries);
      minSuccess.set(v.name, v.minSuccess);
      const cur = { pass: v.counts.pass, n: v.counts.pass + v.counts.fail };
      const entry: TrendEntry = {
        runId: run.id,
        createdAt: run.createdAt,
        status: run.status,
        ...(estimand === 'population' && v.population
          ? { rate: v.population.rate, low: v.population.low, high: v.population.high }
          : { rate: v.rate, low: v.ci?.low ?? null, high: v.ci?.high ?? null }),
        estimand,
        population: v.population ? { rate: v.population.rate, low: v.population.low, high: v.population.high } : null,
        ...cur,
        error: v.counts.error,
      };
      const prev = entries[entries.length - 1];
      const counts = summary.inputs.map((x) => x.perValidator[k].counts);
      const before = prevInputs.get(v.name);
      if (prev && estimand === 'population' && prev.estimand === 'population' && before) {
        // Both runs decided on the population: the change is paired by input (core/population.ts populationDifference).
        const d = populationDifference(
          matchInputs(before.inputs, run.inputs).map(([a, b]) => [before.counts[a], counts[b]] as const),
          level,
        );
        entry.change = d
          ? { diff: d.diff, pValue: null, test: null, significant: d.direction !== 'unchanged', direction: d.direction }
          : { diff: null, pValue: null, test: null, significant: false, direction: 'unchanged' };
      } else if (prev) {
        const c = compareProportions({ pass: prev.pass, n: prev.n }, cur, level);
        entry.change = { diff: c.diff, pValue: c.pValue, test: c.test, significant: c.significant, direction: c.direction };
      }
      prevInputs.set(v.name, { inputs: run.inputs, counts });
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
