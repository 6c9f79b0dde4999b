/**
 * Which outputs a person should grade, and how many (docs/judges.md, "Which outputs to grade").
 *
 * suggestGrading draws without replacement with known inclusion probabilities, seeded (same seed, same
 * picks on every machine):
 *  - uniform: every candidate output equally likely, k/C;
 *  - stratified by the judge's verdict: the grades split between the judge's PASS and FAIL verdicts by
 *    square-root allocation (`allocate` below), so the rarer verdict — where a judge's errors weigh most
 *    when rates are near 1 — is oversampled; each pick records its verdict's probability k_s/C_s.
 * Candidates are the outputs with a judge verdict (errors have none) that are not in `exclude` (already
 * graded). Within one verdict every design here draws a simple random sample, and so does any sequence of
 * batches drawn with `exclude` — which is what keeps correctedRate (core/ppi.ts) unbiased; the recorded
 * probabilities are those of the batch, given the outputs left.
 *
 * gradesForWidth is the power analysis of PPI (ppi_py's ppi_mean_power idea: grades needed at a given
 * judge quality): the judge's TPR/TNR and its PASS share give each verdict's expected person-PASS share
 * (Rogan–Gladen for the rate), and the corrected interval itself (core/ppi.ts) is evaluated at the expected
 * counts of k grades; the answer is the smallest k whose width is at most the target. Without TPR/TNR it
 * assumes the worst case (every verdict's share ½): a conservative figure.
 */
import { mulberry32 } from './prng.js';
import { stratifiedRate } from './ppi.js';
import { ArgumentError } from '../errors.js';

export type GradingDesign = 'uniform' | 'stratified';

export interface GradingPick {
  id: number;
  /** Inclusion probability of this output in this batch, given the outputs left. */
  probability: number;
  /** The judge's verdict it was drawn from (stratified design). */
  stratum?: 'pass' | 'fail';
}

export interface GradingOptions {
  seed: number;
  design: GradingDesign;
  /** Outputs already graded: never suggested again. */
  exclude?: ReadonlySet<number>;
}

/**
 * Square-root allocation of k grades to the judge's PASS and FAIL verdicts (sizes a and b): k·√a/(√a + √b)
 * to PASS, the rest to FAIL — between proportional (what uniform grading gives on average) and equal.
 * Measured (bench:judges) it gives the corrected interval narrower than either: the common verdict needs
 * many grades because its rate near 1 can only be bounded by many, the rare one holds the judge's errors.
 * Every verdict with outputs gets at least one grade when k ≥ 2; a verdict short of its share gives the rest
 * to the other.
 */
export function allocate(k: number, a: number, b: number): [number, number] {
  if (a + b === 0) return [0, 0];
  let ka = Math.round((k * Math.sqrt(a)) / (Math.sqrt(a) + Math.sqrt(b)));
  if (k >= 2 && a > 0 && b > 0) ka = Math.min(k - 1, Math.max(1, ka));
  ka = Math.min(a, ka);
  const kb = Math.min(b, k - ka);
  return [Math.min(a, k - kb), kb];
}

/** Draws k of the items without replacement (partial Fisher–Yates on a copy). */
function draw<T>(items: readonly T[], k: number, rand: () => number): T[] {
  const a = items.slice();
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
}

export function suggestGrading(
  outputs: readonly { id: number; judge: boolean | null }[],
  count: number,
  opts: GradingOptions,
): { picks: GradingPick[]; design: string } {
  if (!(Number.isInteger(count) && count >= 0)) throw new ArgumentError(`suggestGrading: count must be a whole number ≥ 0, got ${count}`, { key: 'count' });
  if (!Number.isInteger(opts.seed)) throw new ArgumentError(`suggestGrading: seed must be an integer, got ${opts.seed}`, { key: 'seed' });
  if (opts.design !== 'uniform' && opts.design !== 'stratified')
    throw new ArgumentError(`suggestGrading: design must be "uniform" or "stratified", got ${JSON.stringify(opts.design)}`, { key: 'design' });
  const seen = new Set<number>();
  for (const [i, o] of outputs.entries()) {
    if (!Number.isFinite(o.id)) throw new ArgumentError(`suggestGrading: outputs[${i}].id must be a number, got ${String(o.id)}`, { key: 'outputs' });
    if (o.judge !== null && typeof o.judge !== 'boolean')
      throw new ArgumentError(`suggestGrading: outputs[${i}].judge must be true, false or null`, { key: 'outputs' });
    if (seen.has(o.id)) throw new ArgumentError(`suggestGrading: output id ${o.id} appears twice`, { key: 'outputs' });
    seen.add(o.id);
  }
  // Candidates in id order, so the picks do not depend on the order the outputs came in.
  let candidates = outputs.filter((o) => o.judge !== null && !opts.exclude?.has(o.id));
  if (candidates.some((o, i) => i > 0 && o.id < candidates[i - 1].id)) candidates = candidates.slice().sort((a, b) => a.id - b.id);
  const rand = mulberry32(opts.seed);
  if (opts.design === 'uniform') {
    const k = Math.min(count, candidates.length);
    const probability = candidates.length ? k / candidates.length : 0;
    return { picks: draw(candidates, k, rand).map((o) => ({ id: o.id, probability })), design: 'uniform' };
  }
  const pass = candidates.filter((o) => o.judge === true);
  const fail = candidates.filter((o) => o.judge === false);
  const [kPass, kFail] = allocate(count, pass.length, fail.length);
  const picks: GradingPick[] = [];
  for (const [items, k] of [
    [pass, kPass],
    [fail, kFail],
  ] as const) {
    const stratum = items === pass ? 'pass' : 'fail';
    for (const o of draw(items, k, rand)) picks.push({ id: o.id, probability: k / items.length, stratum });
  }
  // One queue in random order, so a grader does not see all of one verdict first.
  return { picks: draw(picks, picks.length, rand), design: 'stratified' };
}

export interface GradesForWidthArgs {
  judged: { pass: number; n: number };
  /** The judge's estimated true-positive and true-negative rates (core/alignment.ts); both or neither. */
  tpr?: number;
  tnr?: number;
  /** Target width high − low of the corrected interval. */
  width: number;
  level: number;
  /** The grading design (default uniform). */
  design?: GradingDesign;
  /**
   * People's PASS share among the judge's PASS and FAIL verdicts, when the grades so far measure them: used where
   * tpr and tnr cannot give them (a judge that passes everything has no TNR to speak of). Each in [0, 1].
   */
  shares?: readonly [number, number];
}

/**
 * Grades needed for a corrected interval of at most `width` (PPI power analysis, see above). Infinity when
 * even grading every judged output would not reach it.
 */
export function gradesForWidth(args: GradesForWidthArgs): number {
  const { judged, tpr, tnr, width, level } = args;
  const design = args.design ?? 'uniform';
  if (!(Number.isInteger(judged?.n) && judged.n > 0 && Number.isInteger(judged.pass) && judged.pass >= 0 && judged.pass <= judged.n))
    throw new ArgumentError(`gradesForWidth: judged must be whole numbers with 0 ≤ pass ≤ n and n > 0, got ${JSON.stringify(judged)}`, { key: 'judged' });
  if (!(width > 0 && width <= 1)) throw new ArgumentError(`gradesForWidth: width must be in (0, 1], got ${width}`, { key: 'width' });
  if (!(level > 0 && level < 1)) throw new ArgumentError(`gradesForWidth: level must be in (0, 1), got ${level}`, { key: 'level' });
  if ((tpr === undefined) !== (tnr === undefined))
    throw new ArgumentError('gradesForWidth: give both tpr and tnr, or neither', { key: tpr === undefined ? 'tpr' : 'tnr' });
  for (const [name, v] of [
    ['tpr', tpr],
    ['tnr', tnr],
  ] as const)
    if (v !== undefined && !(v >= 0 && v <= 1)) throw new ArgumentError(`gradesForWidth: ${name} must be in [0, 1], got ${v}`, { key: name });
  if (design !== 'uniform' && design !== 'stratified')
    throw new ArgumentError(`gradesForWidth: design must be "uniform" or "stratified", got ${JSON.stringify(design)}`, { key: 'design' });
  const q = judged.pass / judged.n;
  const sizes = [judged.pass, judged.n - judged.pass];
  // Each verdict's person-PASS share: from the judge's error rates, or the worst case ½.
  let shares: readonly number[] = args.shares && args.shares.every((x) => x >= 0 && x <= 1) ? args.shares : [0.5, 0.5];
  if (tpr !== undefined && tnr !== undefined && tpr + tnr > 1) {
    const p = Math.min(1, Math.max(0, (q + tnr - 1) / (tpr + tnr - 1)));
    const clip = (v: number) => Math.min(1, Math.max(0, v));
    shares = [q > 0 ? clip((p * tpr) / q) : 0, q < 1 ? clip((p * (1 - tpr)) / (1 - q)) : 0];
  }
  const widthAt = (k: number): number => {
    let m: number[];
    if (design === 'uniform') m = [k * q, k * (1 - q)];
    else m = allocate(k, sizes[0], sizes[1]);
    const r = stratifiedRate(
      judged,
      [
        { share: q, x: m[0] * shares[0], m: m[0] },
        { share: 1 - q, x: m[1] * shares[1], m: m[1] },
      ],
      level,
    );
    return r.high - r.low;
  };
  if (widthAt(judged.n) > width) return Infinity;
  let lo = 1;
  let hi = judged.n;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (widthAt(mid) <= width) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
