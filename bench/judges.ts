/**
 * `npm run -s bench:judges -- [--json] [--runs N] [--seed S] [--design stratified|uniform|both]`
 *
 * Corrected rates (core/ppi.ts) against the truth, by seeded simulation with known truth
 * (core/testing/judges.ts): true rates p ∈ {0.80, 0.90, 0.95, 0.99}; judges (fpr, fnr) ∈ {(0, 0),
 * (0.05, 0.05), (0.15, 0.05), (0.30, 0.10)} with fpr = P(judge PASS | truly bad), fnr = P(judge FAIL |
 * truly good); grades ∈ {30, 100, 300}; 2,000 judged outputs; `--runs` seeded runs per cell (default 1,000);
 * nominal level 0.95. Grades are drawn by suggestGrading: the design stratified by the judge's verdict (the
 * one docs/judges.md recommends) and the uniform one, each over the whole grid (`--design` for one).
 *
 * Each cell: `coverage_corrected` (correctedRate's interval), `coverage_judge_only` (Clopper–Pearson on the
 * judge's PASS share: what a report showed before grades), `coverage_grades_only` (Clopper–Pearson on the
 * same number of grades drawn at random, the judge ignored), `coverage_ppi_normal` (ppi_py's normal PPI++
 * interval, uniform design only), `width_ratio` = mean corrected width / mean grades-only width.
 * Summary: `min_coverage_corrected` and `min_coverage_judge_only` over every cell of every design run;
 * `median_width_ratio` over the cells where the judge is right ≥ 90% of the time (p(1−fnr) + (1−p)(1−fpr)
 * ≥ 0.9), for the recommended (stratified) design when it ran; `by_design` has the same per design.
 * Targets at nominal 95%: min_coverage_corrected ≥ 0.94, median_width_ratio ≤ 0.8.
 *
 * `--wide` checks the corrected interval's coverage beyond the grid instead: rates {0.5 … 0.999},
 * nine judges (including one that fails almost nothing bad and one no better than chance), grades
 * {10, 30, 100, 300}, 500 and 5,000 judged outputs, both designs — 200 runs per cell, then the 20 worst
 * cells again with 2,000 fresh runs each (so the minimum is not the luckiest draw of many); it prints
 * those 20 and their minimum.
 *
 * Prints one JSON object with --json, else a table. Nothing here is timed.
 */
import { parseArgs } from 'node:util';
import type { GradingDesign } from '../src/core/grading-sample.js';
import { simulateJudgeCell, type JudgeCellResult } from '../src/core/testing/judges.js';

function fail(message: string): never {
  process.stderr.write(`bench:judges: ${message}\n`);
  process.exit(2);
}

let values: { json?: boolean; runs?: string; seed?: string; design?: string; wide?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      runs: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '16' },
      design: { type: 'string', default: 'both' },
      wide: { type: 'boolean' },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 1)) fail(`--runs must be a whole number ≥ 1, got "${values.runs}"`);
if (!Number.isInteger(SEED)) fail(`--seed must be an integer, got "${values.seed}"`);
if (!['stratified', 'uniform', 'both'].includes(values.design!)) fail(`--design must be stratified, uniform or both, got "${values.design}"`);
const DESIGNS: GradingDesign[] = values.design === 'both' ? ['stratified', 'uniform'] : [values.design as GradingDesign];

const LEVEL = 0.95;
const JUDGED = 2000;
const RATES = [0.8, 0.9, 0.95, 0.99];
const JUDGES = [
  [0, 0],
  [0.05, 0.05],
  [0.15, 0.05],
  [0.3, 0.1],
] as const;
const GRADES = [30, 100, 300];
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

interface Cell extends JudgeCellResult {
  design: GradingDesign;
  p: number;
  fpr: number;
  fnr: number;
  grades: number;
  judge_accuracy: number;
}

if (values.wide) {
  const wide: { design: GradingDesign; p: number; fpr: number; fnr: number; grades: number; judged: number; coverage: number }[] = [];
  let k = 0;
  for (const design of DESIGNS)
    for (const [fpr, fnr] of [...JUDGES, [0.02, 0], [0, 0.02], [0.5, 0.02], [0.02, 0.3], [0.4, 0.4]])
      for (const p of [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999])
        for (const grades of [10, 30, 100, 300])
          for (const judged of [500, 5000]) {
            const r = simulateJudgeCell({ p, fpr, fnr, grades, judged, design, runs: 200, seed: SEED * 7 + k++ * 104729, level: LEVEL });
            wide.push({ design, p, fpr, fnr, grades, judged, coverage: r.coverage_corrected });
          }
  const worst = wide
    .sort((a, b) => a.coverage - b.coverage)
    .slice(0, 20)
    .map((c, i) => ({
      ...c,
      coverage_200_runs: c.coverage,
      coverage: simulateJudgeCell({ ...c, runs: 2000, seed: SEED * 13 + i * 7919, level: LEVEL }).coverage_corrected,
    }));
  const out = {
    level: LEVEL,
    cells_checked: wide.length,
    worst: worst.map((c) => ({ ...c, coverage: round(c.coverage) })),
    min_coverage_corrected: round(Math.min(...worst.map((c) => c.coverage))),
  };
  process.stdout.write(
    values.json
      ? JSON.stringify(out, null, 2) + '\n'
      : worst.map((c) => JSON.stringify(c)).join('\n') + `\nmin coverage (2,000 runs each) ${out.min_coverage_corrected}\n`,
  );
  process.exit(0);
}

const cells: Cell[] = [];
let index = 0;
for (const design of DESIGNS)
  for (const [fpr, fnr] of JUDGES)
    for (const p of RATES)
      for (const grades of GRADES) {
        // One seed per (judge, rate, grades), the same for both designs: they see the same judged outputs.
        const seed = SEED * 1_000_003 + (index++ % (JUDGES.length * RATES.length * GRADES.length)) * 7919;
        const r = simulateJudgeCell({ p, fpr, fnr, grades, judged: JUDGED, design, runs: RUNS, seed, level: LEVEL });
        cells.push({ design, p, fpr, fnr, grades, judge_accuracy: round(p * (1 - fnr) + (1 - p) * (1 - fpr)), ...r });
      }

function summary(cs: Cell[]) {
  const ppi = cs.map((c) => c.coverage_ppi_normal).filter((c): c is number => c !== null);
  return {
    min_coverage_corrected: round(Math.min(...cs.map((c) => c.coverage_corrected))),
    min_coverage_judge_only: round(Math.min(...cs.map((c) => c.coverage_judge_only))),
    min_coverage_grades_only: round(Math.min(...cs.map((c) => c.coverage_grades_only))),
    ...(ppi.length ? { min_coverage_ppi_normal: round(Math.min(...ppi)) } : {}),
    median_width_ratio: round(median(cs.filter((c) => c.judge_accuracy >= 0.9).map((c) => c.width_ratio))),
  };
}

const byDesign = Object.fromEntries(DESIGNS.map((d) => [d, summary(cells.filter((c) => c.design === d))]));
const all = summary(cells);
const result = {
  level: LEVEL,
  judged: JUDGED,
  runs: RUNS,
  seed: SEED,
  cells: cells.map((c) => ({
    design: c.design,
    p: c.p,
    fpr: c.fpr,
    fnr: c.fnr,
    grades: c.grades,
    coverage_corrected: round(c.coverage_corrected),
    coverage_judge_only: round(c.coverage_judge_only),
    coverage_grades_only: round(c.coverage_grades_only),
    ...(c.coverage_ppi_normal !== null ? { coverage_ppi_normal: round(c.coverage_ppi_normal) } : {}),
    width_ratio: round(c.width_ratio),
    width_corrected: round(c.width_corrected),
    width_grades_only: round(c.width_grades_only),
  })),
  min_coverage_corrected: all.min_coverage_corrected,
  min_coverage_judge_only: all.min_coverage_judge_only,
  median_width_ratio: byDesign[DESIGNS[0]].median_width_ratio,
  median_width_ratio_design: DESIGNS[0],
  by_design: byDesign,
};

if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
else {
  const pct = (x: number | undefined) => (x === undefined ? '     ' : (100 * x).toFixed(1).padStart(5));
  for (const design of DESIGNS) {
    process.stdout.write(`\n${design} grading (coverage % at nominal 95, ${RUNS} runs per cell, ${JUDGED} judged outputs)\n`);
    process.stdout.write('   p   fpr  fnr  grades  corrected  judge-only  grades-only  ppi-normal  width ratio\n');
    for (const c of result.cells.filter((x) => x.design === design))
      process.stdout.write(
        `${c.p.toFixed(2)}  ${c.fpr.toFixed(2)} ${c.fnr.toFixed(2)}  ${String(c.grades).padStart(6)}  ${pct(c.coverage_corrected).padStart(9)}  ${pct(c.coverage_judge_only).padStart(10)}  ${pct(c.coverage_grades_only).padStart(11)}  ${pct(c.coverage_ppi_normal).padStart(10)}  ${c.width_ratio.toFixed(3).padStart(11)}\n`,
      );
    const s = byDesign[design];
    process.stdout.write(
      `min coverage corrected ${pct(s.min_coverage_corrected)}%, judge-only ${pct(s.min_coverage_judge_only)}%; median width ratio (judge right ≥ 90%) ${s.median_width_ratio}\n`,
    );
  }
}
