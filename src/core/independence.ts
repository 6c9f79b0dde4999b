import { logChoose } from './distributions.js';
import { convolve, intersectionDistribution, twoSidedPValue, type CountDistribution } from './intersection.js';
import { Outcome } from './outcome.js';
import { fisherExact } from './significance.js';
import type { ReliabilityTensor } from './tensor.js';

/**
 * Does P_pass = Π_k p_k (white paper §4.2.2, "assuming independent validators") predict the joint pass
 * rate a run really shows (§4.2.5, "correlation between validators")? Pure: no I/O.
 *
 * The marginals p_k are estimated from the same samples as the joint count, so comparing the count with
 * n·Π p̂_k as if Π p̂_k were known (a binomial test) is far too lenient: on independent tensors it rejects
 * almost never, and at a real correlation it still rarely does. The tests here are exact conditional
 * (permutation) tests instead: given each validator's number of passes, independence means each column's
 * passes fall on the samples uniformly at random, independently of the other columns, and the number of
 * samples passing all of them then has an exact distribution — intersect the columns one at a time, each
 * step hypergeometric (|A ∩ B| = t given |A| = y, |B| = b of n: C(y, t)·C(n − y, b − t)/C(n, b)). The p-value
 * is two-sided: the probability of a count no likelier than the observed one (as Fisher's test).
 * The within-input test conditions on each input's own margins and adds the inputs' counts (a convolution),
 * so inputs of unequal difficulty do not look like validators failing together.
 */

/**
 * How error cells count. 'exclude' (default): a sample with an ERROR cell and no FAIL cell is left out of
 * P_pass,i (its verdict is unknown; a FAIL anywhere already makes Π_k R = 0). 'fail': an ERROR cell counts as
 * not passing, as in the guard, which never accepts an output it could not check.
 */
export type ErrorPolicy = 'exclude' | 'fail';

export interface PairAssociation {
  a: number;
  b: number;
  names: [string, string];
  n: number;
  /** [both pass, a passes only, b passes only, both fail] */
  table: [number, number, number, number];
  phi: number;
  p_value: number;
  /** Holm-adjusted over all pairs. */
  p_adjusted: number;
  flagged: boolean;
}

export interface IndependenceCheck {
  test: 'exact-conditional';
  /** Samples with every cell decided (the same samples for the joint rate and the marginals). */
  samples: number;
  observed_all_pass: number;
  observed_rate: number | null;
  /** Π_k p_k over the same samples. */
  product_rate: number | null;
  /** The all-pass count expected under independence given the margins (n·Π_k p_k). */
  expected_all_pass: number | null;
  /** observed_rate / product_rate. */
  ratio: number | null;
  p_value: number;
  alpha: number;
  /** false: the product of marginals mispredicts the joint pass rate. */
  independent: boolean;
  /** The same test within each input (separates validator correlation from input heterogeneity), exact. */
  within_input: { expected_all_pass: number; p_value: number; independent: boolean } | null;
  pairs: PairAssociation[];
  flagged_validators: string[];
}

/** Two-sided exact binomial test of x successes in n against p0 (sum of outcomes no likelier than x, as R's binom.test). */
export function binomialTest(x: number, n: number, p0: number): number {
  if (n === 0) return 1;
  if (p0 <= 0) return x === 0 ? 1 : 0;
  if (p0 >= 1) return x === n ? 1 : 0;
  const lp = (y: number) => logChoose(n, y) + y * Math.log(p0) + (n - y) * Math.log1p(-p0);
  const cut = lp(x) + 1e-7; // R's relative tolerance
  let sum = 0;
  for (let y = 0; y <= n; y++) {
    const l = lp(y);
    if (l <= cut) sum += Math.exp(l);
  }
  return Math.min(1, sum);
}

/** Fisher's exact test (two-sided) of the 2×2 table [[a, b], [c, d]]; 1 when a margin is empty. */
function fisher2x2(a: number, b: number, c: number, d: number): number {
  if (a + b === 0 || c + d === 0 || a + c === 0 || b + d === 0) return 1;
  return fisherExact({ pass: a, n: a + b }, { pass: c, n: c + d });
}

/** Phi coefficient of a 2×2 table; 0 when a margin is empty (no association can be seen). */
export function phiCoefficient(a: number, b: number, c: number, d: number): number {
  const den = Math.sqrt((a + b) * (c + d) * (a + c) * (b + d));
  return den > 0 ? (a * d - b * c) / den : 0;
}

interface Tallies {
  /** Decided samples, all-pass samples, per-validator passes, per-pair joint passes; per input too. */
  n: number;
  x: number;
  pass: number[];
  both: number[][];
  perInput: { n: number; x: number; pass: number[] }[];
}

function tally(t: ReliabilityTensor, errors: ErrorPolicy): Tallies {
  const K = t.K;
  const out: Tallies = { n: 0, x: 0, pass: new Array<number>(K).fill(0), both: Array.from({ length: K }, () => new Array<number>(K).fill(0)), perInput: [] };
  const v = new Array<number>(K);
  for (let i = 0; i < t.N; i++) {
    const row = { n: 0, x: 0, pass: new Array<number>(K).fill(0) };
    sample: for (let j = 0; j < t.M; j++) {
      for (let k = 0; k < K; k++) {
        const c = t.get(i, j, k);
        if (c === Outcome.PENDING || (c === Outcome.ERROR && errors === 'exclude')) continue sample;
        v[k] = c === Outcome.PASS ? 1 : 0;
      }
      out.n++;
      row.n++;
      let all = 1;
      for (let k = 0; k < K; k++) {
        all &= v[k];
        out.pass[k] += v[k];
        row.pass[k] += v[k];
        for (let l = k + 1; l < K; l++) out.both[k][l] += v[k] & v[l];
      }
      out.x += all;
      row.x += all;
    }
    out.perInput.push(row);
  }
  return out;
}

/**
 * Within-input test: each input's all-pass count against its own margins, exactly; the inputs' counts are
 * independent under the null, so the total's distribution is their convolution.
 */
function withinInput(s: Tallies, alpha: number): IndependenceCheck['within_input'] {
  let total: CountDistribution = { offset: 0, probs: Float64Array.of(1) };
  let e = 0;
  for (const r of s.perInput) {
    if (r.n === 0) continue;
    e += r.n * r.pass.reduce((acc, p) => acc * (p / r.n), 1);
    total = convolve(total, intersectionDistribution(r.n, r.pass));
  }
  const p = twoSidedPValue(total, s.x);
  return { expected_all_pass: e, p_value: p, independent: p >= alpha };
}

/** A Fisher exact test per validator pair, Holm-adjusted, naming the pairs whose association is significant. */
function pairAssociations(s: Tallies, K: number, alpha: number, name: (k: number) => string): PairAssociation[] {
  const pairs: PairAssociation[] = [];
  for (let a = 0; a < K; a++)
    for (let b = a + 1; b < K; b++) {
      const n11 = s.both[a][b];
      const n10 = s.pass[a] - n11;
      const n01 = s.pass[b] - n11;
      const n00 = s.n - n11 - n10 - n01;
      const p = fisher2x2(n11, n10, n01, n00);
      pairs.push({
        a,
        b,
        names: [name(a), name(b)],
        n: s.n,
        table: [n11, n10, n01, n00],
        phi: phiCoefficient(n11, n10, n01, n00),
        p_value: p,
        p_adjusted: 1,
        flagged: false,
      });
    }
  // Holm step-down over the pairs.
  const order = pairs.map((_, idx) => idx).sort((p, q) => pairs[p].p_value - pairs[q].p_value);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (pairs.length - rank) * pairs[idx].p_value));
    pairs[idx].p_adjusted = running;
    pairs[idx].flagged = running < alpha;
  });
  return pairs;
}

/**
 * Exact conditional test of the observed all-pass count given the validators' margins (see the file
 * comment), the same within each input, and a Fisher exact test per validator pair (Holm-adjusted) to name
 * the validators whose association makes the product mispredict.
 */
export function independenceCheck(t: ReliabilityTensor, errors: ErrorPolicy, alpha: number, name: (k: number) => string): IndependenceCheck {
  const s = tally(t, errors);
  const { n, x } = s;
  const productRate = n > 0 ? s.pass.reduce((acc, p) => acc * (p / n), 1) : null;
  const pValue = t.K >= 2 && n > 0 ? twoSidedPValue(intersectionDistribution(n, s.pass), x) : 1;
  const pairs = pairAssociations(s, t.K, alpha, name);
  const flagged = new Set<number>();
  for (const p of pairs) if (p.flagged) flagged.add(p.a).add(p.b);
  return {
    test: 'exact-conditional',
    samples: n,
    observed_all_pass: x,
    observed_rate: n > 0 ? x / n : null,
    product_rate: productRate,
    expected_all_pass: productRate === null ? null : n * productRate,
    ratio: productRate && n > 0 ? x / n / productRate : null,
    p_value: pValue,
    alpha,
    independent: pValue >= alpha,
    within_input: t.K >= 2 && n > 0 ? withinInput(s, alpha) : null,
    pairs,
    flagged_validators: [...flagged].sort((p, q) => p - q).map(name),
  };
}
