/**
 * Seeded simulation of a judged rule with known truth, for bench:judges and the coverage tests of
 * core/ppi.ts: N outputs, each truly good with probability p; a judge that passes a bad one with
 * probability fpr and fails a good one with probability fnr; `grades` of them graded by a person (who is
 * right), drawn by suggestGrading with the given design. Each run gives three intervals for p: the judge's
 * own (Clopper–Pearson on its PASS share, what assay reported before grades), the grades' own
 * (Clopper–Pearson on `grades` outputs drawn uniformly), and the corrected one (correctedRate); for the
 * uniform design also ppi_py's normal PPI++ interval (ppiMeanCI), for comparison.
 */
import { clopperPearson } from '../intervals.js';
import { correctedRate, ppiMeanCI } from '../ppi.js';
import { suggestGrading, type GradingDesign } from '../grading-sample.js';
import { mulberry32 } from '../prng.js';

export interface JudgeCell {
  p: number;
  /** P(judge PASS | truly bad). */
  fpr: number;
  /** P(judge FAIL | truly good). */
  fnr: number;
  grades: number;
  /** Judged outputs N. */
  judged: number;
  design: GradingDesign;
  runs: number;
  seed: number;
  level?: number;
}

export interface JudgeCellResult {
  coverage_corrected: number;
  coverage_judge_only: number;
  coverage_grades_only: number;
  /** ppi_py's normal PPI++ interval (uniform design only; null otherwise). */
  coverage_ppi_normal: number | null;
  /** Mean widths (high − low). */
  width_corrected: number;
  width_grades_only: number;
  /** width_corrected / width_grades_only. */
  width_ratio: number;
}

export function simulateJudgeCell(cell: JudgeCell): JudgeCellResult {
  const { p, fpr, fnr, grades, judged: N, design, runs } = cell;
  const level = cell.level ?? 0.95;
  const rand = mulberry32(cell.seed);
  const truth = new Uint8Array(N);
  const outputs = Array.from({ length: N }, (_, id) => ({ id, judge: false as boolean | null }));
  const hit = { corrected: 0, judge: 0, grades: 0, ppi: 0 };
  let wCorrected = 0;
  let wGrades = 0;
  const inside = (ci: { low: number; high: number } | null) => (ci !== null && ci.low <= p && p <= ci.high ? 1 : 0);
  for (let r = 0; r < runs; r++) {
    let pass = 0;
    for (let i = 0; i < N; i++) {
      const good = rand() < p;
      truth[i] = good ? 1 : 0;
      const verdict = good ? rand() >= fnr : rand() < fpr;
      outputs[i].judge = verdict;
      if (verdict) pass++;
    }
    const seed = Math.floor(rand() * 2 ** 31);
    const { picks } = suggestGrading(outputs, grades, { seed, design });
    const graded = picks.map((k) => ({ judge: outputs[k.id].judge as boolean, person: truth[k.id] === 1, probability: k.probability }));
    const corrected = correctedRate({ judged: { pass, n: N }, graded, level })!;
    hit.corrected += inside(corrected);
    wCorrected += corrected.high - corrected.low;
    hit.judge += inside(clopperPearson(pass, N, level));
    // The grades alone: the same number of outputs graded at random.
    const uniform = design === 'uniform' ? picks : suggestGrading(outputs, grades, { seed: seed + 1, design: 'uniform' }).picks;
    let good = 0;
    for (const k of uniform) good += truth[k.id];
    const cp = clopperPearson(good, uniform.length, level)!;
    hit.grades += inside(cp);
    wGrades += cp.high - cp.low;
    if (design === 'uniform') {
      const isGraded = new Uint8Array(N);
      for (const k of picks) isGraded[k.id] = 1;
      const unlabeled: number[] = [];
      for (let i = 0; i < N; i++) if (!isGraded[i]) unlabeled.push(outputs[i].judge ? 1 : 0);
      const ci = ppiMeanCI({
        Y: graded.map((g) => (g.person ? 1 : 0)),
        Yhat: graded.map((g) => (g.judge ? 1 : 0)),
        YhatUnlabeled: unlabeled,
        alpha: 1 - level,
      });
      hit.ppi += inside(ci);
    }
  }
  return {
    coverage_corrected: hit.corrected / runs,
    coverage_judge_only: hit.judge / runs,
    coverage_grades_only: hit.grades / runs,
    coverage_ppi_normal: design === 'uniform' ? hit.ppi / runs : null,
    width_corrected: wCorrected / runs,
    width_grades_only: wGrades / runs,
    width_ratio: wCorrected / wGrades,
  };
}
