/**
 * A rule checked against people's grades: its alignment, its corrected rate and the sentence every report
 * shows to say which figure a verdict rests on (docs/judges.md). Pure; summarize() calls it per rule.
 */
import { alignment } from './alignment.js';
import type { GradedOutput } from './grades.js';
import { Outcome } from './outcome.js';
import { FIRST_LOOK, gradingLook } from './grading-looks.js';
import { correctedRate } from './ppi.js';
import type { Counts } from './rate-types.js';
import type { Disagreement, GradingSummary } from './summary-types.js';
import type { ReliabilityTensor } from './tensor.js';
import { maxOf, minOf, pushAll } from './arrays.js';
import { formatLevel } from './show.js';

/** What a verifier without grades says in every report: its rate is its judge's, never checked against a person. */
export const NOT_CHECKED = 'judge not checked against people';

type Pair = { judge: boolean; person: boolean; probability?: number };

/** The designs of assay's own queues (grades/queue.ts): within each of the rule's verdicts, a random sample of what was left. */
const OWN_DESIGNS = new Set(['uniform', 'stratified']);

/**
 * The rule's verdicts paired with people's grades of the outputs it decided (PASS or FAIL); the others are
 * counted as `undecided`. The probabilities the pairs carry, for alignment and correctedRate:
 *
 * - Several of assay's queues, one after another (each records the probability of its own draw, so they differ
 *   within a verdict): their union is a random sample within each verdict, whose probability is the verdict's
 *   grades over its outputs, m_s/C_s (post-stratification, docs/judges.md). A batch's own probability is not
 *   the union's: weighting by it would overweight the verdict graded in more batches.
 * - A grade given without a draw (hand-picked, or imported without a probability) is used as if drawn at random:
 *   where other grades of its verdict were drawn, it takes their probability (the harmonic mean, i.e. their mean
 *   weight), so that it weighs as one of them; where none of its verdict were drawn there is nothing to borrow,
 *   and every grade counts plainly.
 * - Otherwise the recorded probabilities, as they are.
 */
export function gradedPairs(t: ReliabilityTensor, k: number, outputs: readonly GradedOutput[]): { pairs: Pair[]; undecided: number; notRandom: number } {
  const pairs: (Pair & { design?: string })[] = [];
  let undecided = 0;
  for (const o of outputs) {
    const cell = t.get(o.i, o.j, k);
    if (cell !== Outcome.PASS && cell !== Outcome.FAIL) undecided++;
    else
      pairs.push({ judge: cell === Outcome.PASS, person: o.person, ...(o.probability !== undefined ? { probability: o.probability, design: o.design } : {}) });
  }
  const plain = (p: Pair): Pair => ({ judge: p.judge, person: p.person });
  const drawn = pairs.filter((p) => p.probability !== undefined);
  const notRandom = pairs.length - drawn.length;
  if (drawn.length === 0) return { pairs: pairs.map(plain), undecided, notRandom };
  const batches = [true, false].some((verdict) => new Set(drawn.filter((p) => p.judge === verdict).map((p) => p.probability)).size > 1);
  if (batches && drawn.every((p) => OWN_DESIGNS.has(p.design ?? ''))) {
    const judged = [0, 0]; // the rule's PASS and FAIL verdicts, C_s
    const graded = [0, 0]; // graded outputs of each, m_s
    for (let i = 0; i < t.N; i++)
      for (let j = 0; j < t.M; j++) {
        const c = t.get(i, j, k);
        if (c === Outcome.PASS || c === Outcome.FAIL) judged[c === Outcome.PASS ? 0 : 1]++;
      }
    for (const p of pairs) graded[p.judge ? 0 : 1]++;
    return { pairs: pairs.map((p) => ({ ...plain(p), probability: graded[p.judge ? 0 : 1] / judged[p.judge ? 0 : 1] })), undecided, notRandom };
  }
  if (notRandom === 0) return { pairs: pairs.map((p) => ({ ...plain(p), probability: p.probability })), undecided, notRandom };
  const borrowed = new Map<boolean, number>();
  for (const verdict of [true, false]) {
    const own = drawn.filter((p) => p.judge === verdict).map((p) => p.probability!);
    if (!own.length) continue;
    // Their harmonic mean, with weights scaled by the smallest probability (no 1/p overflows).
    const least = own.reduce((a, b) => Math.min(a, b));
    borrowed.set(verdict, (least * own.length) / own.reduce((a, p) => a + least / p, 0));
  }
  const filled = pairs.every((p) => p.probability !== undefined || borrowed.has(p.judge))
    ? pairs.map((p) => ({ ...plain(p), probability: p.probability ?? borrowed.get(p.judge)! }))
    : pairs.map(plain);
  return { pairs: filled, undecided, notRandom };
}

/** The rule's verdicts paired with people's grades, its alignment and, unless `correct` is false, its corrected rate. */
export function gradingSummary(
  t: ReliabilityTensor,
  k: number,
  outputs: readonly GradedOutput[],
  counts: Counts,
  level: number,
  correct: boolean,
): GradingSummary {
  const { pairs, undecided, notRandom } = gradedPairs(t, k, outputs);
  const disagreements: Disagreement[] = [];
  let disputed = 0;
  for (const o of outputs) {
    const cell = t.get(o.i, o.j, k);
    if (cell !== Outcome.PASS && cell !== Outcome.FAIL) continue;
    const judge = cell === Outcome.PASS;
    if (o.disputed) disputed++;
    if (judge !== o.person) disagreements.push({ i: o.i, j: o.j, judge, person: o.person, disputed: o.disputed, ...(o.reasons ? { reasons: o.reasons } : {}) });
  }
  const corrected = correct && pairs.length > 0 ? correctedRate({ judged: { pass: counts.pass, n: counts.pass + counts.fail }, graded: pairs, level }) : null;
  const caveats: string[] = [];
  if (notRandom)
    caveats.push(
      `${notRandom} of ${pairs.length} grades were not drawn at random (hand-picked, or imported without a probability): the correction is unbiased only for random draws and assumes these were`,
    );
  if (disputed) caveats.push(`${disputed} graded output(s) were graded differently by different people: their majority, or on a tie the latest grade, counts`);
  for (const o of outputs) if (o.notes) pushAll(caveats, o.notes);
  if (undecided) caveats.push(`${undecided} graded output(s) have no verdict of the rule (an error, or not checked): left out`);
  return { grades: pairs.length, notRandom, disputed, undecided, alignment: alignment(pairs, level), corrected, disagreements, caveats };
}

/**
 * The rule's grades as a run's report uses them (core/grading-looks.ts): its summary over every grade, with the
 * corrected rate replaced by the one decided at the last grading look — the first 20·2^(e−1) grades given, at level
 * 1 − α/2^e — or by null before the first look (too few grades: the judge's rate stands). `correct` false: none.
 */
export function gradingAtLook(
  t: ReliabilityTensor,
  k: number,
  outputs: readonly GradedOutput[],
  counts: Counts,
  level: number,
  correct: boolean,
): GradingSummary {
  const all = gradingSummary(t, k, outputs, counts, level, false);
  if (!correct || all.grades === 0) return all;
  const look = gradingLook(all.grades, level);
  if (!look) return all;
  // The decided outputs in the order their first grade was given; the look uses the first look.grades of them.
  const decided = outputs
    .map((o, idx) => ({ o, idx }))
    .filter(({ o }) => {
      const c = t.get(o.i, o.j, k);
      return c === Outcome.PASS || c === Outcome.FAIL;
    })
    .sort((a, b) => (a.o.first ?? a.idx) - (b.o.first ?? b.idx) || a.idx - b.idx)
    .slice(0, look.grades)
    .map(({ o }) => o);
  // A draw whose probabilities differ within a verdict (a design other than assay's queues) weighs its grades
  // unequally: they count as Kish's effective number, and below a look's worth of them the weighted interval is
  // not trusted (the audit measured 0.865 coverage at nominal 0.95 with ~30 such grades). Refused, saying why.
  const thin = thinWeightedVerdict(gradedPairs(t, k, decided).pairs);
  if (thin)
    return {
      ...all,
      corrected: null,
      refused: `its grades were drawn with probabilities that differ within the judge's ${thin.verdict} verdicts (weighted, they count as ${thin.effective.toFixed(1)} grades, Kish): a weighted correction needs ${FIRST_LOOK} effective grades in each verdict`,
    };
  const atLook = gradingSummary(t, k, decided, counts, look.level, true).corrected;
  return { ...all, corrected: atLook ? { ...atLook, look: { index: look.index, level: look.level, of: all.grades, next: look.next } } : null };
}

/** The verdict whose unequal inclusion weights leave fewer than FIRST_LOOK effective grades, if any. */
function thinWeightedVerdict(pairs: readonly Pair[]): { verdict: 'PASS' | 'FAIL'; effective: number } | undefined {
  for (const verdict of [true, false]) {
    const own = pairs.filter((p) => p.judge === verdict);
    if (!own.length || own.some((p) => p.probability === undefined)) continue;
    // Weights 1/p scaled by the smallest p (Kish's size is scale-free): no square overflows, whatever is stored.
    const least = minOf(own.map((p) => p.probability!));
    const w = own.map((p) => least / p.probability!);
    if (maxOf(w) <= minOf(w) * (1 + 1e-9)) continue;
    const sw = w.reduce((a, x) => a + x, 0);
    const effective = (sw * sw) / w.reduce((a, x) => a + x * x, 0);
    if (effective < FIRST_LOOK) return { verdict: verdict ? 'PASS' : 'FAIL', effective };
  }
  return undefined;
}

/**
 * Which figure a rule's verdict rests on, in the words every report uses; undefined for a code validator
 * without grades (its rate is simply the rule's).
 */
export function figureOf(kind: 'validator' | 'verifier', grading: GradingSummary | undefined, sequential: boolean): string | undefined {
  const whose = kind === 'verifier' ? "judge's rate" : "rule's rate";
  if (!grading || grading.grades === 0) {
    if (kind !== 'verifier') return undefined;
    return grading?.undecided ? `${whose} · ${NOT_CHECKED} (its ${grading.undecided} graded output(s) have no verdict of it)` : `${whose} · ${NOT_CHECKED}`;
  }
  const c = grading.corrected;
  if (c?.look)
    return `corrected by ${c.grades === c.look.of ? c.grades : `the first ${c.grades} of ${c.look.of}`} grades (grading look ${c.look.index} at ${formatLevel(c.look.level)}; the next at ${c.look.next} grades)`;
  if (c) return `corrected by ${c.grades} grades`;
  if (grading.refused) return `${whose} · ${grading.grades} grade(s) not used: ${grading.refused}`;
  if (sequential)
    return `${whose} · its ${grading.grades} grades are not used: a sequential run's verdict rests on its confidence sequence, which grades cannot correct with a valid bound`;
  return grading.grades < FIRST_LOOK
    ? `${whose} · ${grading.grades} grade(s): too few to correct it (the first grading look is at ${FIRST_LOOK} grades: ${FIRST_LOOK - grading.grades} more)`
    : `${whose} · ${grading.grades} grade(s): too few to correct it`;
}
