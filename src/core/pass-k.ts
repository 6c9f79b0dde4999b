/**
 * pass^k and pass@k (docs/verdicts.md#passk-and-passk): how reliably a system does the right thing every time
 * (τ-bench's pass^k: all k of k independent tries succeed) and at least once (pass@k), per input and over inputs.
 *
 * Per input i, with c successes in n decided tries (errors are missing data, as everywhere):
 *
 * - pass^k: p_i^k, estimated without bias by C(c, k) / C(n, k) (the chance that k tries drawn without replacement
 *   from the n all succeeded; E[C(X, k)] = C(n, k) p^k for X ~ Binomial(n, p)). Its interval is exact: p ↦ p^k is
 *   increasing on [0, 1], so p ∈ [L, U] ⟺ p^k ∈ [L^k, U^k], and the Clopper–Pearson [L, U] covers p with at
 *   least the confidence asked for, for every p and n.
 * - pass@k: 1 − (1 − p_i)^k, estimated without bias by 1 − C(n − c, k) / C(n, k) (Chen et al. 2021), its interval
 *   [1 − (1 − L)^k, 1 − (1 − U)^k] by the same argument.
 *
 * Over inputs, the estimand is the population's: E[p^k] for an input drawn at random from the population the
 * inputs came from. Each input's estimate X_i is unbiased for its p_i^k and lies in [0, 1], so for inputs drawn
 * independently the X_i are i.i.d. in [0, 1] with mean E[p^k]; their mean is unbiased, and the betting
 * confidence interval (core/betting.ts, Waudby-Smith & Ramdas 2024) holds its level at every number of inputs,
 * with no normal approximation (which fails at a few inputs and near 1, where agents live). Inputs with fewer than
 * k decided tries have no estimate and are left out (and counted). The bench (`npm run -s bench:pass-k`) measures
 * the coverage of both intervals by simulation.
 *
 * Errors: the verdict must hold however they would have resolved. `errorBounds` takes each input's errors as
 * failures for the lower bound (c of n + e tries) and as passes for the upper (c + e of n + e).
 */
import { bettingInterval } from './betting.js';
import { clopperPearson } from './intervals.js';
import type { Counts, Verdict, VerdictMode } from './rate-types.js';
import { DEFAULT_MAX_ERROR_SHARE, pctBeside } from './verdict.js';
import { formatRate } from './show.js';
import { ArgumentError } from '../errors.js';

/** `passK: { k, minSuccess? }` on a rule: report pass^k and pass@k at k; with minSuccess, gate the rule on pass^k. */
export interface PassKOption {
  k: number;
  minSuccess?: number;
}

/** C(c, k) / C(n, k): the chance that k of the n tries, drawn without replacement, all succeeded. */
export function passHatK(c: number, n: number, k: number): number {
  checkCounts(c, n, k);
  let p = 1;
  for (let t = 0; t < k; t++) p *= (c - t) / (n - t);
  return Math.max(0, p);
}

/** 1 − C(n − c, k) / C(n, k): the chance that at least one of k tries drawn from the n succeeded. */
export function passAtK(c: number, n: number, k: number): number {
  checkCounts(c, n, k);
  let q = 1;
  for (let t = 0; t < k; t++) q *= (n - c - t) / (n - t);
  return 1 - Math.max(0, q);
}

function checkCounts(c: number, n: number, k: number): void {
  if (!(Number.isInteger(k) && k >= 1)) throw new ArgumentError(`pass^k: k must be a whole number ≥ 1, got ${k}`, { key: 'k' });
  if (!(Number.isInteger(n) && n >= k)) throw new ArgumentError(`pass^k: n must be a whole number ≥ k = ${k}, got ${n}`, { key: 'n' });
  if (!(Number.isInteger(c) && c >= 0 && c <= n)) throw new ArgumentError(`pass^k: c must be a whole number in 0..${n}, got ${c}`, { key: 'c' });
}

export interface PassKInterval {
  low: number;
  high: number;
}

/** One input's pass^k and pass@k with their exact intervals; null figures when it has fewer than k decided tries. */
export interface PassKInput {
  i: number;
  /** Decided tries (pass + fail). */
  n: number;
  successes: number;
  errors: number;
  passK: number | null;
  ci: PassKInterval | null;
  passAtK: number | null;
  atCi: PassKInterval | null;
}

export interface PassKSummary {
  k: number;
  level: number;
  /** The gate, when the rule sets one. */
  minSuccess?: number;
  /** Inputs with at least k decided tries: those the figures over inputs average. */
  inputs: number;
  /** Inputs left out for fewer than k decided tries. */
  leftOut: number;
  /** The mean over inputs of each input's unbiased pass^k, and its betting interval (population of inputs). */
  passK: number | null;
  ci: PassKInterval | null;
  /** pass@k likewise. */
  passAtK: number | null;
  atCi: PassKInterval | null;
  /** pass^k's interval with every error a failure (low) and every error a pass (high): what a confident gate decides on. */
  errorBounds: PassKInterval | null;
  /** Share of checked cells that are errors, over the inputs' tries. */
  errorShare: number | null;
  /** With minSuccess: the gate's verdict and why. */
  verdict?: Verdict;
  reason?: string;
  perInput: PassKInput[];
}

export interface PassKOptions {
  level: number;
  mode: VerdictMode;
  maxErrorShare?: number;
}

/** One input's figures from its counts. */
export function passKInput(i: number, c: Counts, k: number, level: number): PassKInput {
  const n = c.pass + c.fail;
  const base = { i, n, successes: c.pass, errors: c.error };
  if (n < k) return { ...base, passK: null, ci: null, passAtK: null, atCi: null };
  const cp = clopperPearson(c.pass, n, level)!;
  return {
    ...base,
    passK: passHatK(c.pass, n, k),
    ci: { low: cp.low ** k, high: cp.high ** k },
    passAtK: passAtK(c.pass, n, k),
    atCi: { low: 1 - (1 - cp.low) ** k, high: 1 - (1 - cp.high) ** k },
  };
}

/** The mean of each input's estimate, with its betting interval; null without an input to average. */
function overInputs(xs: number[], level: number): { mean: number | null; ci: PassKInterval | null } {
  const b = bettingInterval(xs, level);
  return b ? { mean: b.mean, ci: { low: b.low, high: b.high } } : { mean: null, ci: null };
}

/**
 * pass^k and pass@k of one rule: `perInput[i]` are input i's counts for the rule. With `option.minSuccess`, the
 * gate's verdict on pass^k over inputs, decided as a rule's rate is (core/verdict.ts): `confident` passes when the
 * lower bound with errors as failures clears minSuccess and fails when the upper bound with errors as passes is
 * below it; `point` compares the estimate; too many errors to decide is `error`.
 */
export function passKSummary(perInput: readonly Counts[], option: PassKOption, options: PassKOptions): PassKSummary {
  const { k } = option;
  if (!(Number.isInteger(k) && k >= 1)) throw new ArgumentError(`passK.k must be a whole number ≥ 1, got ${k}`, { key: 'passK.k' });
  if (option.minSuccess !== undefined && !(option.minSuccess >= 0 && option.minSuccess <= 1))
    throw new ArgumentError(`passK.minSuccess must be in [0, 1], got ${option.minSuccess}`, { key: 'passK.minSuccess' });
  const rows = perInput.map((c, i) => passKInput(i, c, k, options.level));
  const used = rows.filter((r) => r.passK !== null);
  const main = overInputs(
    used.map((r) => r.passK!),
    options.level,
  );
  const at = overInputs(
    used.map((r) => r.passAtK!),
    options.level,
  );
  // Errors as failures (low) and as passes (high), over the inputs with k checked tries.
  const checked = perInput.map((c, i) => ({ i, c, all: c.pass + c.fail + c.error })).filter((x) => x.all >= k);
  const lowSide = overInputs(
    checked.map((x) => passHatK(x.c.pass, x.all, k)),
    options.level,
  );
  const highSide = overInputs(
    checked.map((x) => passHatK(x.c.pass + x.c.error, x.all, k)),
    options.level,
  );
  const errorBounds = lowSide.ci && highSide.ci ? { low: lowSide.ci.low, high: highSide.ci.high } : null;
  const cells = checked.reduce((a, x) => a + x.all, 0);
  const errors = checked.reduce((a, x) => a + x.c.error, 0);
  const errorShare = cells ? errors / cells : null;
  const s: PassKSummary = {
    k,
    level: options.level,
    ...(option.minSuccess !== undefined ? { minSuccess: option.minSuccess } : {}),
    inputs: used.length,
    leftOut: perInput.length - used.length,
    passK: main.mean,
    ci: main.ci,
    passAtK: at.mean,
    atCi: at.ci,
    errorBounds,
    errorShare,
    perInput: rows,
  };
  if (option.minSuccess !== undefined) Object.assign(s, passKVerdict(s, option.minSuccess, options));
  return s;
}

function passKVerdict(s: PassKSummary, p0: number, o: PassKOptions): { verdict: Verdict; reason: string } {
  const maxErrorShare = o.maxErrorShare ?? DEFAULT_MAX_ERROR_SHARE;
  const name = `pass^${s.k}`;
  if (s.errorBounds === null) return { verdict: 'inconclusive', reason: `${name}: no input has ${s.k} checked tries` };
  if (s.passK === null) return { verdict: 'error', reason: `${name}: every input's tries are errors` };
  const share = s.errorShare ?? 0;
  const tooManyErrors = share > maxErrorShare;
  const errorReason = `${name}: error share ${formatRate(share)} > maxErrorShare ${formatRate(maxErrorShare)}`;
  if (o.mode === 'point') {
    if (tooManyErrors) return { verdict: 'error', reason: errorReason };
    return {
      verdict: s.passK >= p0 ? 'pass' : 'fail',
      reason: `${name} ${pctBeside(s.passK, p0)} ${s.passK >= p0 ? '≥' : '<'} minSuccess ${formatRate(p0)}`,
    };
  }
  const b = s.errorBounds;
  const errorsNote = (as: string) => (share > 0 ? `, errors counted as ${as}` : '');
  if (b.low >= p0) return { verdict: 'pass', reason: `${name} lower bound ${pctBeside(b.low, p0)} ≥ minSuccess ${formatRate(p0)}${errorsNote('failures')}` };
  if (b.high < p0) return { verdict: 'fail', reason: `${name} upper bound ${pctBeside(b.high, p0)} < minSuccess ${formatRate(p0)}${errorsNote('passes')}` };
  if (tooManyErrors) return { verdict: 'error', reason: `${errorReason}; bounds [${formatRate(b.low)}, ${formatRate(b.high)}] straddle minSuccess` };
  return { verdict: 'inconclusive', reason: `${name} bounds [${formatRate(b.low)}, ${formatRate(b.high)}] straddle minSuccess ${formatRate(p0)}` };
}
