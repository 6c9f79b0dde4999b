import { describe, expect, it } from 'vitest';
import { bettingInterval } from './betting.js';
import { logChoose } from './distributions.js';
import { passAtK, passHatK, passKInput, passKSummary } from './pass-k.js';
import { mulberry32 } from './prng.js';

const counts = (pass: number, fail: number, error = 0) => ({ pass, fail, error, pending: 0 });
const binom = (x: number, n: number, p: number) => Math.exp(logChoose(n, x) + x * Math.log(p) + (n - x) * Math.log1p(-p));

describe('pass^k and pass@k per input', () => {
  it('C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k): exact small cases', () => {
    expect(passHatK(3, 5, 2)).toBeCloseTo(3 / 10, 12); // C(3,2)/C(5,2)
    expect(passHatK(1, 5, 2)).toBe(0);
    expect(passHatK(5, 5, 5)).toBe(1);
    expect(passAtK(1, 5, 2)).toBeCloseTo(1 - 6 / 10, 12); // 1 − C(4,2)/C(5,2)
    expect(passAtK(0, 5, 3)).toBe(0);
    expect(passHatK(4, 10, 1)).toBeCloseTo(0.4, 12);
    expect(() => passHatK(2, 3, 4)).toThrow(/n must be a whole number ≥ k = 4/);
  });

  it('are unbiased: summed over Binomial(n, p), E[pass^k-hat] = p^k and E[pass@k-hat] = 1 − (1 − p)^k', () => {
    for (const [n, k, p] of [
      [10, 3, 0.9],
      [5, 5, 0.7],
      [20, 4, 0.35],
    ]) {
      let e = 0;
      let at = 0;
      for (let x = 0; x <= n; x++) {
        e += binom(x, n, p) * passHatK(x, n, k);
        at += binom(x, n, p) * passAtK(x, n, k);
      }
      expect(e).toBeCloseTo(p ** k, 10);
      expect(at).toBeCloseTo(1 - (1 - p) ** k, 10);
    }
  });

  it("an input's interval is Clopper–Pearson's raised to k (exact), and none below k decided tries", () => {
    const r = passKInput(0, counts(9, 1, 2), 3, 0.95);
    expect(r).toMatchObject({ n: 10, successes: 9, errors: 2 });
    expect(r.passK).toBeCloseTo((9 * 8 * 7) / (10 * 9 * 8), 12);
    // Clopper–Pearson 95% for 9/10: [0.5550, 0.9975].
    expect(r.ci!.low).toBeCloseTo(0.55498 ** 3, 3);
    expect(r.ci!.high).toBeCloseTo(0.99747 ** 3, 3);
    expect(r.atCi!.low).toBeCloseTo(1 - (1 - 0.55498) ** 3, 3);
    expect(passKInput(1, counts(2, 0, 5), 3, 0.95)).toMatchObject({ passK: null, ci: null, passAtK: null, atCi: null });
  });
});

describe('the betting interval for a mean of [0, 1] values', () => {
  it('contains the mean, reaches 1 when every value is 1, narrows as values accumulate', () => {
    const ones = bettingInterval(new Array(20).fill(1), 0.95)!;
    expect(ones.high).toBe(1);
    expect(ones.low).toBeGreaterThan(0.7);
    expect(ones.low).toBeLessThan(1);
    const rnd = mulberry32(7);
    const xs = Array.from({ length: 400 }, () => rnd());
    const wide = bettingInterval(xs.slice(0, 40), 0.95)!;
    const narrow = bettingInterval(xs, 0.95)!;
    for (const b of [wide, narrow]) {
      expect(b.low).toBeLessThanOrEqual(b.mean);
      expect(b.high).toBeGreaterThanOrEqual(b.mean);
    }
    expect(narrow.high - narrow.low).toBeLessThan(wide.high - wide.low);
    expect(narrow.high - narrow.low).toBeLessThan(0.12);
    expect(bettingInterval([], 0.95)).toBeNull();
    expect(() => bettingInterval([1.5], 0.95)).toThrow(/\[0, 1\]/);
  });

  it("each bound is where a gambler's capital crosses 2/α, found by bisection (a grid of m agrees)", () => {
    const xs = [1, 1, 0.5, 1, 0, 1, 1, 0.8, 1, 1, 0.2, 1];
    const b = bettingInterval(xs, 0.9)!;
    // Reference: scan m on a fine grid with the same capital (the set of m not excluded).
    const alpha = 0.1;
    const n = xs.length;
    const bets: number[] = [];
    let sum = 0;
    let sq = 0.25;
    for (let t = 0; t < n; t++) {
      bets.push(Math.sqrt((2 * Math.log(2 / alpha)) / (n * (sq / (t + 1)))));
      sum += xs[t];
      sq += (xs[t] - (0.5 + sum) / (t + 2)) ** 2;
    }
    const kept: number[] = [];
    for (let m = 0.0005; m < 1; m += 0.001) {
      const up = xs.reduce((a, x, t) => a + Math.log1p(Math.min(bets[t], 0.75 / m) * (x - m)), 0);
      const down = xs.reduce((a, x, t) => a + Math.log1p(-Math.min(bets[t], 0.75 / (1 - m)) * (x - m)), 0);
      if (Math.max(up, down) < Math.log(2 / alpha)) kept.push(m);
    }
    expect(b.low).toBeCloseTo(kept[0], 2);
    expect(b.high).toBeCloseTo(kept[kept.length - 1], 2);
  });
});

describe('pass^k over inputs, and its gate', () => {
  const level = 0.95;

  it('averages the inputs with k decided tries, counts those left out, and gives both figures with intervals', () => {
    const s = passKSummary([counts(10, 0), counts(8, 2), counts(1, 1, 8)], { k: 3 }, { level, mode: 'confident' });
    expect(s.inputs).toBe(2);
    expect(s.leftOut).toBe(1);
    expect(s.passK).toBeCloseTo((1 + (8 * 7 * 6) / (10 * 9 * 8)) / 2, 12);
    expect(s.ci!.low).toBeLessThan(s.passK!);
    expect(s.ci!.high).toBeGreaterThanOrEqual(s.passK!);
    expect(s.passAtK).toBeCloseTo(1, 12);
    expect(s.verdict).toBeUndefined();
  });

  it('a confident gate passes on the lower bound (errors as failures) and fails on the upper (errors as passes)', () => {
    const all = Array.from({ length: 80 }, () => counts(10, 0));
    const pass = passKSummary(all, { k: 5, minSuccess: 0.9 }, { level, mode: 'confident' });
    expect(pass.verdict).toBe('pass');
    expect(pass.reason).toMatch(/^pass\^5 lower bound .* ≥ minSuccess 90\.0%$/);
    const flaky = Array.from({ length: 60 }, () => counts(6, 4));
    const fail = passKSummary(flaky, { k: 5, minSuccess: 0.5 }, { level, mode: 'confident' });
    expect(fail.verdict).toBe('fail');
    // A few inputs decide nothing either way.
    expect(passKSummary(all.slice(0, 3), { k: 5, minSuccess: 0.9 }, { level, mode: 'confident' }).verdict).toBe('inconclusive');
    // Errors that could hide failures: the lower bound counts them as failures, and too many of them is `error`.
    const errored = Array.from({ length: 60 }, () => counts(7, 0, 3));
    const e = passKSummary(errored, { k: 5, minSuccess: 0.9 }, { level, mode: 'confident' });
    expect(e.errorBounds!.low).toBeLessThan(0.3);
    expect(e.verdict).toBe('error');
    expect(e.reason).toMatch(/error share 30\.0% > maxErrorShare 5\.0%/);
    // The point verdict compares the estimate.
    expect(passKSummary(all.slice(0, 3), { k: 5, minSuccess: 0.9 }, { level, mode: 'point' }).verdict).toBe('pass');
  });
});
