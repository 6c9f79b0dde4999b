/**
 * `npm run -s bench:grading-stops -- [--json] [--runs R] [--seed S]`
 *
 * Grading until the verdict decides, simulated (issue 29, docs/judges.md#grading-that-stops-honestly). A rule whose
 * true rate sits exactly at its minSuccess is judged on 400 outputs (40 inputs × 10 samples) by a judge with known error rates; a person
 * grades outputs drawn by assay's stratified queue in batches, looks at the verdict after each batch and, while it
 * is inconclusive, grades on to what the report says would decide it (or 20 more when it names no number), up to
 * every output. Rates 0.80, 0.90 and 0.95; judges (fpr, fnr) (0.05, 0.05), (0.30, 0.10) and (0.15, 0.02). Any FAIL is wrong (the rate is ≥ minSuccess). Two policies:
 *
 * - `every_look_at_alpha`: what reports did before — every look decided on all grades so far at the nominal level,
 *   the plan "about N grades would decide it" at the nominal level;
 * - `grading_looks`: assay's now — the corrected verdict moves only at 20, 40, 80, … grades, look e at 1 − α/2^e
 *   (core/grading-looks.ts), the plan the next deciding look (core/summarize.ts).
 *
 * Beside them, `one_look`: grade the queue's default 50 once and stop. Nominal 95%: a wrong FAIL at most α/2 = 2.5%.
 * Prints one JSON object; nothing timed.
 */
import { parseArgs } from 'node:util';
import { combineGrades, type PersonGrade } from '../src/core/grades.js';
import { gradingSummary } from '../src/core/grading-summary.js';
import { lookGrades } from '../src/core/grading-looks.js';
import { gradesForWidth, suggestGrading } from '../src/core/grading-sample.js';
import { Outcome } from '../src/core/outcome.js';
import { mulberry32 } from '../src/core/prng.js';
import { summarize } from '../src/core/summarize.js';
import { ReliabilityTensor } from '../src/core/tensor.js';
import type { ValidatorMeta } from '../src/core/validator.js';
import { correctedVerdict } from '../src/core/verdict.js';

let values: { json?: boolean; runs?: string; seed?: string };
try {
  ({ values } = parseArgs({ options: { json: { type: 'boolean' }, runs: { type: 'string', default: '500' }, seed: { type: 'string', default: '29' } } }));
} catch (err) {
  process.stderr.write(`bench:grading-stops: ${(err as Error).message}\n`);
  process.exit(2);
}
const RUNS = Number(values.runs);
const SEED = Number(values.seed);
if (!(Number.isInteger(RUNS) && RUNS >= 10) || !Number.isInteger(SEED)) {
  process.stderr.write('bench:grading-stops: --runs must be a whole number ≥ 10 and --seed an integer\n');
  process.exit(2);
}
const LEVEL = 0.95;
const N = 40;
const M = 10;
const FIRST_BATCH = 20;
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
/** Grades at the first look after `grades` (core/grading-looks.ts). */
const nextLook = (grades: number): number => {
  let e = 1;
  while (lookGrades(e) <= grades) e++;
  return lookGrades(e);
};

type Policy = 'every_look_at_alpha' | 'grading_looks' | 'one_look';

/** One simulated grading: the final verdict under a policy. */
function gradeUntilDecided(rand: () => number, p: number, fpr: number, fnr: number, policy: Policy, seed: number): { verdict: string; grades: number } {
  const truth: boolean[] = [];
  const t = new ReliabilityTensor(N, M, 1);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < M; j++) {
      const good = rand() < p;
      truth.push(good);
      const judge = good ? rand() >= fnr : rand() < fpr;
      t.set(i, j, 0, judge ? Outcome.PASS : Outcome.FAIL);
    }
  const rule: ValidatorMeta[] = [{ name: 'r', message: 'r', minSuccess: p, weight: 1, kind: 'verifier' }];
  const outputs = truth.map((_, id) => ({ id, judge: t.get(Math.floor(id / M), id % M, 0) === Outcome.PASS }));
  const log: PersonGrade[] = [];
  const graded = new Set<number>();
  const grade = (count: number, batch: number) => {
    const { picks, design } = suggestGrading(outputs, count, { seed: seed * 131 + batch, design: 'stratified', exclude: graded });
    for (const pick of picks) {
      graded.add(pick.id);
      log.push({ i: Math.floor(pick.id / M), j: pick.id % M, k: 0, pass: truth[pick.id], grader: 'ada', probability: pick.probability, design });
    }
  };
  const counts = () => {
    let pass = 0;
    for (const o of outputs) if (o.judge) pass++;
    return { pass, fail: outputs.length - pass, error: 0, pending: 0 };
  };
  const c = counts();
  grade(policy === 'one_look' ? 50 : FIRST_BATCH, 0);
  for (let batch = 1; ; batch++) {
    const combined = combineGrades(log, 1)[0];
    let verdict: string;
    let next: number | null | undefined;
    if (policy === 'grading_looks' || policy === 'one_look') {
      const v = summarize(t, rule, {}, [combined]).validators[0];
      verdict = v.verdict;
      next = v.gradesToDecide;
      if (policy === 'one_look') return { verdict, grades: log.length };
    } else {
      const g = gradingSummary(t, 0, combined, c, LEVEL, true);
      const r = correctedVerdict(c, g.corrected!, p, { mode: 'confident', interval: 'clopper-pearson', level: LEVEL });
      verdict = r.verdict;
      const width = Math.min(1, 2 * Math.abs(g.corrected!.rate - p));
      const a = g.alignment;
      next =
        width >= 0.002
          ? gradesForWidth({
              judged: { pass: c.pass, n: c.pass + c.fail },
              ...(a.tpr && a.tnr ? { tpr: a.tpr.rate, tnr: a.tnr.rate } : {}),
              width,
              level: LEVEL,
            })
          : Infinity;
      if (!Number.isFinite(next)) next = null;
    }
    if (verdict !== 'inconclusive' || graded.size >= outputs.length) return { verdict, grades: log.length };
    // Grade on to what the report says decides it; when it says nothing would, 20 more (people keep looking). Under
    // grading looks the verdict cannot move before the next look, so grading straight to it changes nothing but time.
    let target = typeof next === 'number' && next > graded.size ? next : graded.size + FIRST_BATCH;
    if (policy === 'grading_looks') target = Math.max(target, nextLook(log.length));
    grade(Math.min(outputs.length, target) - graded.size, batch);
  }
}

const judges = [
  { fpr: 0.05, fnr: 0.05 },
  { fpr: 0.3, fnr: 0.1 },
  { fpr: 0.15, fnr: 0.02 },
];
const rates = [0.8, 0.9, 0.95];
const policies: Policy[] = ['every_look_at_alpha', 'grading_looks', 'one_look'];
const rand = mulberry32(SEED);
const cells: Record<string, unknown>[] = [];
const worst: Record<string, { wrong_fail: number; at: string }> = {};
let seed = SEED;
for (const p of rates)
  for (const j of judges) {
    const row: Record<string, unknown> = { p, min_success: p, fpr: j.fpr, fnr: j.fnr };
    for (const policy of policies) {
      let fails = 0;
      let grades = 0;
      for (let r = 0; r < RUNS; r++) {
        const out = gradeUntilDecided(rand, p, j.fpr, j.fnr, policy, seed++);
        if (out.verdict === 'fail') fails++;
        grades += out.grades;
      }
      const wrong = fails / RUNS;
      row[policy] = { wrong_fail: round(wrong), mean_grades: round(grades / RUNS, 1) };
      if (!worst[policy] || wrong > worst[policy].wrong_fail) worst[policy] = { wrong_fail: round(wrong), at: `p=${p} fpr=${j.fpr} fnr=${j.fnr}` };
    }
    cells.push(row);
  }
process.stdout.write(
  JSON.stringify(
    { bench: 'grading-stops', level: LEVEL, target_wrong_fail: (1 - LEVEL) / 2, runs_per_cell: RUNS, seed: SEED, worst, cells },
    null,
    values.json ? 0 : 2,
  ) + '\n',
);
