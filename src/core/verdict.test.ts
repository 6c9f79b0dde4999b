import { describe, expect, it } from 'vitest';
import { binomialUpperTail } from './sample-size.js';
import { DEFAULT_VERDICT_MODE, errorBounds, intervalProblem, pointVerdict, TO_DECIDE_PROBABILITY, validatorVerdict, zeroFailureSamples } from './verdict.js';
import { mulberry32 } from './testing/prng.js';
import { argumentErrorOf } from '../testing/errors.js';

const confident = { mode: 'confident', interval: 'clopper-pearson', level: 0.95 } as const;
const point = { mode: 'point', interval: 'clopper-pearson', level: 0.95 } as const;
const c = (pass: number, fail: number, error = 0) => ({ pass, fail, error });

// Reference Clopper–Pearson bounds below were computed independently (mpmath, 40 digits, bisection on exact
// binomial tails): CP(183, 200) = [0.867395, 0.949704]; CP(200, 200) = [0.981725, 1]; CP(9, 10) = [0.554984, 0.997471].

describe("errors are missing data: the issue's reproducers", () => {
  it('17 of 200 outputs are not JSON and the parser throws: neither mode passes', () => {
    // o => JSON.parse(o).ok === true on 183 good JSON outputs and 17 non-JSON ones (each an error).
    const counts = c(183, 0, 17);
    const p = validatorVerdict(counts, 0.95, point);
    expect(p.verdict).toBe('error');
    expect(p.reason).toMatch(/error share 8\.5% > maxErrorShare 5\.0%/);
    const v = validatorVerdict(counts, 0.95, confident);
    expect(v.verdict).toBe('error');
    expect(v.errorBounds!.low).toBeCloseTo(0.867395, 6); // errors counted as failures
    expect(v.errorBounds!.high).toBe(1); // errors counted as passes
    // Before: errors were dropped, 183/183 → [0.98, 1] → a confident PASS.
    expect(validatorVerdict(c(183, 0, 0), 0.95, confident).verdict).toBe('pass');
  });

  it('9 polite outputs and 1 rude one whose planted verdict makes the judge answer an error: not a pass', () => {
    const v = validatorVerdict(c(9, 0, 1), 0.8, confident);
    expect(v.verdict).toBe('error');
    expect(v.errorBounds!.low).toBeCloseTo(0.554984, 6);
    expect(validatorVerdict(c(9, 0, 1), 0.8, point).verdict).toBe('error');
  });

  it('every cell an error is an error verdict, nothing checked is inconclusive', () => {
    expect(validatorVerdict(c(0, 0, 50), 0.9, point)).toMatchObject({ verdict: 'error', reason: 'every checked cell is an error (50)' });
    expect(validatorVerdict(c(0, 0, 50), 0.9, confident).verdict).toBe('error');
    expect(validatorVerdict(c(0, 0, 0), 0.9, confident)).toEqual({ verdict: 'inconclusive', reason: 'nothing checked', errorBounds: null });
  });
});

describe('confident verdict on bounds with errors counted both ways', () => {
  it('passes when the lower bound with errors as failures clears minSuccess', () => {
    // 200/200 → CP low 0.981725 ≥ 0.95; with 2 errors among 202: low(200, 202) still ≥ 0.95.
    expect(validatorVerdict(c(200, 0), 0.95, confident).verdict).toBe('pass');
    const v = validatorVerdict(c(200, 0, 2), 0.95, confident);
    expect(v.verdict).toBe('pass');
    expect(v.reason).toMatch(/errors counted as failures/);
  });

  it('fails when the upper bound with errors as passes is below minSuccess', () => {
    // 183 pass, 17 fail: CP high 0.949704 < 0.95 → fail. With 3 errors as passes, high(186, 203) = 0.950459:
    // no longer below 0.95, so not a fail (and 3/203 errors is within maxErrorShare: inconclusive).
    expect(validatorVerdict(c(183, 17), 0.95, confident).verdict).toBe('fail');
    expect(validatorVerdict(c(183, 17, 3), 0.95, confident).verdict).toBe('inconclusive');
    // 170 pass, 30 fail, 10 errors: high(180, 210) is far below 0.95 whatever the errors were.
    expect(validatorVerdict(c(170, 30, 10), 0.95, confident)).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/errors counted as passes/) });
    // ... but 183 pass and 17 errors can be neither: the errors could be anything.
    expect(validatorVerdict(c(183, 0, 17), 0.95, { ...confident, maxErrorShare: 0.1 }).verdict).toBe('inconclusive');
  });

  it('errorBounds equal plain bounds without errors', () => {
    const b = errorBounds(c(48, 2), 'clopper-pearson', 0.95)!;
    expect(b.low).toBeCloseTo(0.8628623743960326, 12); // mpmath
    expect(b.high).toBeCloseTo(0.9951185665738356, 12);
    expect(errorBounds(c(0, 0), 'clopper-pearson', 0.95)).toBeNull();
  });

  it("point mode within maxErrorShare is the paper's rule", () => {
    expect(validatorVerdict(c(95, 5), 0.95, point).verdict).toBe('pass');
    expect(validatorVerdict(c(94, 6), 0.95, point).verdict).toBe('fail');
    expect(validatorVerdict(c(57, 3), 0.95, point).verdict).toBe('pass'); // 57/60 = 0.95 exactly
    expect(validatorVerdict(c(95, 0, 5), 0.95, point).verdict).toBe('pass'); // 5/100 = 0.05, not above
    expect(validatorVerdict(c(95, 0, 6), 0.95, point).verdict).toBe('error');
    expect(validatorVerdict(c(95, 0, 6), 0.95, { ...point, maxErrorShare: 0.1 }).verdict).toBe('pass');
    expect(pointVerdict(null, 0.5)).toBe('inconclusive');
  });

  it('checks its arguments', () => {
    expect(() => validatorVerdict(c(1, 1), 1.5, point)).toThrow(/minSuccess/);
    expect(() => validatorVerdict(c(1, 1), 0.5, { ...point, maxErrorShare: -1 })).toThrow(/maxErrorShare/);
  });
});

describe('toDecide: a figure with a stated probability', () => {
  // Reference values: smallest m with P(decided at n + m) ≥ 0.8 by a linear scan over exact binomial sums
  // (mpmath). The old "samplesToDecide" assumed the rate held exactly and decided only about half the time.
  it('matches the reference values', () => {
    expect(validatorVerdict(c(48, 2), 0.9, confident).toDecide).toEqual({ outputs: 77, probability: 0.8 });
    expect(validatorVerdict(c(45, 5), 0.95, confident).toDecide).toEqual({ outputs: 135, probability: 0.8 });
    expect(validatorVerdict(c(20, 0), 0.95, confident).toDecide).toEqual({ outputs: 52, probability: 0.8 });
    // Errors at 8.5% keep the pass bound below 0.95 for good: no number of outputs decides it.
    expect(validatorVerdict(c(183, 0, 17), 0.95, { ...confident, maxErrorShare: 0.1 }).toDecide).toEqual({ outputs: Infinity, probability: 0.8 });
  });

  it('decides in about 80% of seeded futures at that count (and not at one less for 48/50)', () => {
    const rand = mulberry32(42);
    const runs = 4000;
    let decided = 0;
    for (let r = 0; r < runs; r++) {
      let x = 48;
      for (let t = 0; t < 77; t++) if (rand() < 0.96) x++;
      const b = errorBounds(c(x, 127 - x), 'clopper-pearson', 0.95)!;
      if (b.low >= 0.9 || b.high < 0.9) decided++;
    }
    const share = decided / runs;
    console.log(`toDecide(48/50 vs 0.9) = 77: decided in ${share.toFixed(3)} of ${runs} seeded futures (stated: ≥ ${TO_DECIDE_PROBABILITY})`);
    // Exact: 0.8049 (mpmath); 4,000 runs give a standard error of 0.006.
    expect(share).toBeGreaterThan(0.78);
    expect(share).toBeLessThan(0.83);
  });

  it('binomial upper tail against exact sums', () => {
    expect(binomialUpperTail(0, 10, 0.3)).toBe(1);
    expect(binomialUpperTail(11, 10, 0.3)).toBe(0);
    expect(binomialUpperTail(3, 10, 0.3)).toBeCloseTo(0.6172172136, 9); // 1 − P(X ≤ 2)
  });
});

describe('zero-failure plan', () => {
  it('n = ⌈ln α / ln p0⌉', () => {
    expect(zeroFailureSamples(0.95, 0.95)).toBe(59); // ln 0.05 / ln 0.95 = 58.40
    expect(zeroFailureSamples(0.99, 0.95)).toBe(299); // 298.07
    expect(zeroFailureSamples(0.9, 0.99)).toBe(44); // ln 0.01 / ln 0.9 = 43.71
    expect(zeroFailureSamples(0.5, 0.75)).toBe(2); // ln 0.25 / ln 0.5 = 2 exactly
    expect(argumentErrorOf(() => zeroFailureSamples(1, 0.95)).where).toEqual({ key: 'p0' });
    const n = zeroFailureSamples(0.97, 0.9);
    expect(0.97 ** n).toBeLessThanOrEqual(0.1);
    expect(0.97 ** (n - 1)).toBeGreaterThan(0.1);
  });
});

describe('intervalProblem: which intervals may decide confident verdicts', () => {
  it('refuses Wald with confident verdicts: degenerate at n, one passing output would pass', () => {
    // Why: Wald's interval at 1 of 1 is [1, 1], so its "lower bound 100%" would clear any minSuccess.
    expect(validatorVerdict({ pass: 1, fail: 0, error: 0 }, 0.95, { mode: 'confident', interval: 'wald', level: 0.95 })).toMatchObject({ verdict: 'pass' });
    expect(validatorVerdict({ pass: 1, fail: 0, error: 0 }, 0.95, { mode: 'confident', interval: 'clopper-pearson', level: 0.95 }).verdict).toBe(
      'inconclusive',
    );
    expect(intervalProblem('wald', 'confident')).toMatch(/^expected clopper-pearson or wilson .*degenerate at 0 and n/);
    for (const [method, mode] of [
      ['wald', 'point'],
      ['clopper-pearson', 'confident'],
      ['wilson', 'confident'],
      ['clopper-pearson', 'point'],
    ] as const)
      expect(intervalProblem(method, mode), `${method} ${mode}`).toBeUndefined();
    expect(DEFAULT_VERDICT_MODE).toBe('confident');
  });
});
