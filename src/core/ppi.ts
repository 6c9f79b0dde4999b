/**
 * A rule's rate corrected for its judge's errors: prediction-powered inference (PPI, Angelopoulos et al.,
 * Science 2023; PPI++ with power-tuned λ, Angelopoulos, Duchi & Zrnic 2024). docs/judges.md, "Corrected
 * rates (PPI)", has the formulas, the reasoning and the measured coverage (npm run bench:judges).
 *
 * Data: the judge's verdict Ŷ on all N judged outputs (`judged`: pass of n), and a person's grade Y on a
 * subset of them (`graded`). The rate is p = P(Y = PASS).
 *
 * Estimate. PPI++ is θ̂_λ = λ·mean_N(Ŷ) + mean_n(Y − λŶ). When the graded outputs are part of the judged
 * ones, the variance-optimal λ is the slope of Y on Ŷ; estimated on the graded sample it is â − b̂ for a
 * binary judge, and θ̂ with it is exactly the estimate post-stratified on the judge's verdict:
 *   p̂ = q̂·â + (1 − q̂)·b̂,   q̂ = judged PASS share (all N), â = person-PASS share of the graded judge-PASS
 *   outputs, b̂ = the same among the graded judge-FAIL outputs.
 * It is unbiased whenever the graded outputs of each judge verdict are a random sample of that verdict's
 * outputs — true for the uniform design, for the design stratified by the judge's verdict (any allocation),
 * and for any sequence of such batches drawn with `exclude` (core/grading-sample.ts). So the inclusion
 * probabilities are not needed for the estimate (post-stratification rather than inverse-probability
 * weighting, which would be exact only within one batch and noisier); they are used only when they differ
 * within one verdict (a design other than ours): then the verdict's grades are weighted by 1/probability.
 * A verdict without grades borrows the graded share of the other verdict (strata collapsed, PPI++'s λ = 0).
 *
 * Interval ("ppi++-stratified-beta"). The plain normal PPI++ interval (ppiMeanCI below) fails at the grade
 * counts people have: at 30 grades and p = 0.99, a judge right 95% of the time agrees with all 30 graders
 * a fifth of the time, the rectifier's variance reads 0 and the interval shrinks to the judge's own rate
 * (measured coverage 0.21). Instead, exact pieces:
 *  - each verdict's grade share is a binomial proportion with its Clopper–Pearson confidence distribution
 *    (Beta(x, m−x+1) below, Beta(x+1, m−x) above); as in Fay & Feuer's interval for weighted sums (1997)
 *    only one verdict takes the whole extra observation — the one with the largest weight per grade
 *    among those it can move — the others keep Beta(x, m−x), and a verdict whose grades all sit at the
 *    bound (none pass for the upper bound, all pass for the lower) takes half an extra observation so it is
 *    never treated as known; with a single verdict this is exactly Clopper–Pearson;
 *  - their weighted sum is matched (mean and variance) by a Beta on the range the non-degenerate pieces
 *    span, and its α/2 and 1 − α/2 quantiles are the bounds at the judged share q̂;
 *  - the uncertainty of q̂ (N judged outputs) is added by MOVER (Zou & Donner 2008) from its own
 *    Clopper–Pearson interval, scaled by â − b̂;
 *  - a verdict without grades counts as anything in [0, 1].
 * Measured: coverage ≥ 0.95 at nominal 0.95 in every cell of bench:judges and of its wider grid (--wide:
 * grades 10–300, rates 0.5–0.999, N 500 and 5,000, both designs); see docs/judges.md.
 */
import { betaQuantile, normalQuantile } from './distributions.js';
import { clopperPearson } from './intervals.js';
import { inclusionWeights } from './alignment.js';
import { ArgumentError } from '../errors.js';

export interface CorrectedRate {
  rate: number;
  low: number;
  high: number;
  /** Grades used. */
  grades: number;
  /** The interval's construction: "ppi++-stratified-beta", with "-weighted" when inclusion probabilities differed within a verdict. */
  method: string;
  /**
   * In a run's report: the grading look it was decided at (core/grading-looks.ts) — the first `grades` grades given,
   * at `level` (1 − α/2^index), of `of` graded; the next look at `next` grades.
   */
  look?: { index: number; level: number; of: number; next: number };
  /** In a run's report: the same correction over the input population (core/population-corrected.ts), at the look's level. */
  population?: CorrectedPopulation;
  /** In a run's report: why the correction has no input-population form (fewer than 2 inputs, a weighted draw). */
  populationRefused?: string;
}

/** The corrected rate's input-population form (core/population-corrected.ts). */
export const CORRECTED_POPULATION_METHOD = 'ppi-cluster-cp';

/** The corrected rate over the input population (core/population-corrected.ts). */
export interface CorrectedPopulation {
  rate: number;
  low: number;
  high: number;
  method: typeof CORRECTED_POPULATION_METHOD;
  level: number;
  /** Inputs with a decided output: the units. */
  inputs: number;
  /** Grades used, and the inputs they fall on. */
  grades: number;
  gradedInputs: number;
}

export interface CorrectedRateArgs {
  /** All judge verdicts of the rule (pass/fail cells; errors excluded). */
  judged: { pass: number; n: number };
  /** The graded outputs (a subset of the judged ones): the judge's verdict, the person's grade, and the inclusion probability when drawn by a known design. */
  graded: readonly { judge: boolean; person: boolean; probability?: number }[];
  level: number;
}

/** One judge verdict's grades: its share of the judged outputs, its (effective) number of grades m and person-PASS count x ≤ m. */
export interface VerdictStratum {
  share: number;
  x: number;
  m: number;
}

export const CORRECTED_METHOD = 'ppi++-stratified-beta';

const EPS = 1e-9;

/** A piece of the weighted sum: a point mass (value) or a Beta(α, β) scaled by its verdict's share. */
interface Piece {
  share: number;
  mean: number;
  variance: number;
}

/** The confidence distribution of one verdict's grade share for the lower (side = -1) or upper (+1) bound. */
function piece(s: VerdictStratum, side: -1 | 1, extra: number): Piece {
  if (s.m <= 0) return { share: s.share, mean: side < 0 ? 0 : 1, variance: 0 }; // no grades: anything in [0, 1]
  const a = s.x + (side > 0 ? extra : 0);
  const b = s.m - s.x + (side < 0 ? extra : 0);
  if (a <= EPS) return { share: s.share, mean: 0, variance: 0 };
  if (b <= EPS) return { share: s.share, mean: 1, variance: 0 };
  const t = a + b;
  return { share: s.share, mean: a / t, variance: (a * b) / (t * t * (t + 1)) };
}

/** Quantile `prob` of Σ share·piece, by a Beta matched to its mean and variance on the span of the non-degenerate pieces. */
function sumQuantile(pieces: Piece[], prob: number): number {
  let c = 0;
  let span = 0;
  let mean = 0;
  let variance = 0;
  for (const p of pieces) {
    if (p.variance > 0) {
      span += p.share;
      mean += p.share * p.mean;
      variance += p.share * p.share * p.variance;
    } else c += p.share * p.mean;
  }
  if (span <= 0 || variance <= 0) return c + mean;
  const m = Math.min(1 - EPS, Math.max(EPS, mean / span));
  const v = Math.min(variance / (span * span), m * (1 - m) * (1 - 1e-9));
  const k = (m * (1 - m)) / v - 1;
  return c + span * betaQuantile(prob, m * k, (1 - m) * k);
}

/**
 * The corrected rate and its interval from the judged counts and each verdict's grades (pass verdict
 * first). Exported for the power analysis (core/grading-sample.ts), which calls it at expected counts.
 */
export function stratifiedRate(
  judged: { pass: number; n: number },
  strata: readonly [VerdictStratum, VerdictStratum],
  level: number,
): { rate: number; low: number; high: number } {
  const q = judged.pass / judged.n;
  const graded = strata.filter((s) => s.m > 0);
  const pooled = graded.reduce((t, s) => t + s.x, 0) / graded.reduce((t, s) => t + s.m, 0);
  const mean = (s: VerdictStratum) => (s.m > 0 ? s.x / s.m : pooled);
  const rate = strata[0].share * mean(strata[0]) + strata[1].share * mean(strata[1]);
  const alpha = 1 - level;
  const qci = clopperPearson(judged.pass, judged.n, level)!;
  const bound = (side: -1 | 1): number => {
    // The verdict that takes the whole extra observation: largest weight per grade among those it moves.
    let heaviest = -1;
    let best = -Infinity;
    strata.forEach((s, i) => {
      const moves = s.m > 0 && (side > 0 ? s.x < s.m - EPS : s.x > EPS);
      if (moves && s.share / s.m > best) {
        best = s.share / s.m;
        heaviest = i;
      }
    });
    const pieces = strata.map((s, i) => {
      const atBound = s.m > 0 && (side > 0 ? s.x <= EPS : s.x >= s.m - EPS);
      return piece(s, side, i === heaviest ? 1 : atBound ? 0.5 : 0);
    });
    const ab = sumQuantile(pieces, side < 0 ? alpha / 2 : 1 - alpha / 2);
    // MOVER for the judged share: p moves with q by (mean of PASS piece − mean of FAIL piece).
    const d = pieces[0].mean - pieces[1].mean;
    const dq = (d * side >= 0 ? qci.high - q : q - qci.low) * Math.abs(d);
    const dab = Math.max(0, side * (ab - rate));
    return rate + side * Math.sqrt(dab * dab + dq * dq);
  };
  return { rate, low: Math.max(0, bound(-1)), high: Math.min(1, bound(1)) };
}

function checkJudged(judged: { pass: number; n: number }, what: string): void {
  const { pass, n } = judged ?? ({} as { pass: number; n: number });
  if (!(Number.isInteger(n) && n > 0)) throw new ArgumentError(`${what}: judged.n must be a whole number > 0, got ${String(n)}`, { key: 'judged' });
  if (!(Number.isInteger(pass) && pass >= 0 && pass <= n))
    throw new ArgumentError(`${what}: judged.pass must be a whole number in [0, ${n}], got ${String(pass)}`, { key: 'judged' });
}

export function correctedRate(args: CorrectedRateArgs): CorrectedRate | null {
  const { judged, graded, level } = args;
  if (!(level > 0 && level < 1)) throw new ArgumentError(`correctedRate: level must be in (0, 1), got ${level}`, { key: 'level' });
  checkJudged(judged, 'correctedRate');
  graded.forEach((g, i) => {
    if (typeof g.judge !== 'boolean' || typeof g.person !== 'boolean')
      throw new ArgumentError(`correctedRate: graded[${i}] must have boolean judge and person, got ${JSON.stringify(g)}`, { key: 'graded' });
  });
  if (graded.length === 0) return null;
  const q = judged.pass / judged.n;
  let weighted = false;
  const strata = ([true, false] as const).map((verdict): VerdictStratum => {
    const own = graded.filter((g) => g.judge === verdict);
    const size = verdict ? judged.pass : judged.n - judged.pass;
    if (own.length > size)
      throw new ArgumentError(
        `correctedRate: ${own.length} graded outputs have judge verdict ${verdict ? 'PASS' : 'FAIL'} but only ${size} judged ones do; the graded outputs must be a subset of the judged ones`,
        { key: 'graded' },
      );
    const share = verdict ? q : 1 - q;
    const w = inclusionWeights(own, 'correctedRate');
    if (!w) return { share, x: own.filter((g) => g.person).length, m: own.length };
    // Unequal probabilities within one verdict: Hájek mean at Kish's effective number of grades.
    weighted = true;
    let sw = 0;
    let sw2 = 0;
    let hit = 0;
    own.forEach((g, i) => {
      sw += w[i];
      sw2 += w[i] * w[i];
      if (g.person) hit += w[i];
    });
    const m = (sw * sw) / sw2;
    return { share, x: (hit / sw) * m, m };
  }) as [VerdictStratum, VerdictStratum];
  const r = stratifiedRate(judged, strata, level);
  return { ...r, grades: graded.length, method: weighted ? `${CORRECTED_METHOD}-weighted` : CORRECTED_METHOD };
}

export interface PpiMeanArgs {
  /** Gold-standard labels (people's grades) of the labelled outputs. */
  Y: ArrayLike<number>;
  /** Predictions (the judge) on the labelled outputs. */
  Yhat: ArrayLike<number>;
  /** Predictions on the unlabelled outputs. */
  YhatUnlabeled: ArrayLike<number>;
  /** Error level: the interval targets 1 − alpha (ppi_py's default 0.1). */
  alpha?: number;
  /** Power-tuning parameter; undefined estimates it (PPI++), 1 is plain PPI, 0 the classical interval. */
  lambda?: number;
  /** Sample weights of the labelled and unlabelled data (normalised to sum to their counts, as ppi_py does). */
  w?: ArrayLike<number>;
  wUnlabeled?: ArrayLike<number>;
}

const mean = (a: ArrayLike<number>, f: (i: number) => number): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += f(i);
  return s / a.length;
};

/** Population standard deviation (ddof = 0, numpy's default). */
function std(n: number, f: (i: number) => number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += f(i);
  const m = s / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (f(i) - m) ** 2;
  return Math.sqrt(ss / n);
}

function normalisedWeights(w: ArrayLike<number> | undefined, n: number, what: string): Float64Array {
  if (w === undefined) return new Float64Array(n).fill(1);
  if (w.length !== n) throw new ArgumentError(`ppiMeanCI: ${what} has ${w.length} weights for ${n} outputs`, { key: what });
  let s = 0;
  for (let i = 0; i < n; i++) s += w[i];
  if (!(s > 0)) throw new ArgumentError(`ppiMeanCI: ${what} must sum to a positive number`, { key: what });
  return Float64Array.from({ length: n }, (_, i) => (w[i] / s) * n);
}

/**
 * ppi_py's `ppi_mean_ci` (one-dimensional, two-sided) for reference: the prediction-powered normal
 * interval for a mean, with λ power-tuned as its `_calc_lam_glm` does (clipped to [0, 1]) when `lambda`
 * is undefined. Not what assay reports (correctedRate is): this interval under-covers at small n and rates
 * near 1. One deviation: where ppi_py divides 0 by 0 for λ (every prediction equal) and returns NaN, λ is 0.
 */
export function ppiMeanCI(args: PpiMeanArgs): { estimate: number; low: number; high: number; lambda: number } {
  const { Y, Yhat, YhatUnlabeled } = args;
  const alpha = args.alpha ?? 0.1;
  const n = Y.length;
  const N = YhatUnlabeled.length;
  if (!(alpha > 0 && alpha < 1)) throw new ArgumentError(`ppiMeanCI: alpha must be in (0, 1), got ${alpha}`, { key: 'alpha' });
  if (n === 0 || N === 0) throw new ArgumentError('ppiMeanCI: needs at least one labelled and one unlabelled output', { key: n === 0 ? 'Y' : 'YhatUnlabeled' });
  if (Yhat.length !== n) throw new ArgumentError(`ppiMeanCI: Y has ${n} values but Yhat ${Yhat.length}`, { key: 'Yhat' });
  const w = normalisedWeights(args.w, n, 'w');
  const wu = normalisedWeights(args.wUnlabeled, N, 'wUnlabeled');
  const estimateAt = (lam: number) => mean(YhatUnlabeled, (i) => wu[i] * lam * YhatUnlabeled[i]) + mean(Y, (i) => w[i] * (Y[i] - lam * Yhat[i]));
  let lam = args.lambda;
  if (lam === undefined) {
    const theta = estimateAt(1);
    const g = (i: number) => w[i] * (Y[i] - theta);
    const gh = (i: number) => w[i] * (Yhat[i] - theta);
    const ghu = (i: number) => wu[i] * (YhatUnlabeled[i] - theta);
    const mg = mean(Y, g);
    const mgh = mean(Y, gh);
    // cov_grads = (1/n)·(g_c·gh_c + gh_c·g_c): twice the population covariance.
    const cov = 2 * mean(Y, (i) => (g(i) - mg) * (gh(i) - mgh));
    // var_grads_hat: np.cov over the labelled and unlabelled gradients together (ddof = 1).
    let s = 0;
    for (let i = 0; i < n; i++) s += gh(i);
    for (let i = 0; i < N; i++) s += ghu(i);
    const m = s / (n + N);
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (gh(i) - m) ** 2;
    for (let i = 0; i < N; i++) ss += (ghu(i) - m) ** 2;
    const varHat = ss / (n + N - 1);
    const raw = varHat > 0 ? cov / (2 * (1 + n / N) * varHat) : 0;
    lam = Math.min(1, Math.max(0, raw));
  }
  const estimate = estimateAt(lam);
  const imputedStd = std(N, (i) => wu[i] * lam * YhatUnlabeled[i]) / Math.sqrt(N);
  const rectifierStd = std(n, (i) => w[i] * (Y[i] - lam * Yhat[i])) / Math.sqrt(n);
  const half = normalQuantile(1 - alpha / 2) * Math.sqrt(imputedStd ** 2 + rectifierStd ** 2);
  return { estimate, low: estimate - half, high: estimate + half, lambda: lam };
}
