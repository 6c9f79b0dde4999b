import { describe, expect, it } from 'vitest';
import { clopperPearson } from './intervals.js';
import { planPopulation, populationDifference, populationErrorBounds, populationRate, populationWidth } from './population.js';
import { mulberry32 } from './prng.js';
import type { Counts } from './rate-types.js';
import { allOrNothing, betaPopulation, populationCoverage } from './testing/population-sim.js';

const c = (pass: number, fail: number, error = 0): Counts => ({ pass, fail, error, pending: 0 });

describe('populationRate: the input-population rate (inputs as the unit)', () => {
  it('10 inputs of which 2 always fail (20 samples each): the inputs-run interval is ~[74%, 85%], the population lower bound far below', () => {
    const rows = [...Array.from({ length: 8 }, () => c(20, 0)), c(0, 20), c(0, 20)];
    const run = clopperPearson(160, 200, 0.95)!;
    // scipy.stats.beta.ppf reference values.
    expect(run.low).toBeCloseTo(0.7377736354104, 9);
    expect(run.high).toBeCloseTo(0.8531055117842, 9);
    const p = populationRate(rows, 0.95)!;
    expect(p.rate).toBeCloseTo(0.8, 12);
    // All-or-nothing inputs: exactly Clopper–Pearson over the 10 inputs, 8 of 10.
    expect(p.low).toBeCloseTo(0.4439045376924, 8);
    expect(p.high).toBeCloseTo(0.9747892736732, 8);
    expect(p.low).toBeLessThan(run.low - 0.25);
    expect(p).toMatchObject({ method: 'cluster-cp', inputs: 10, leftOut: 0, effectiveN: 10, icc: 1, designEffect: 20 });
  });

  it('does not collapse when every input passes every sample: Clopper–Pearson over the inputs', () => {
    const p = populationRate(
      Array.from({ length: 10 }, () => c(50, 0)),
      0.95,
    )!;
    expect(p.low).toBeCloseTo(0.6915028921812, 8);
    expect(p.high).toBe(1);
    expect(p.effectiveN).toBe(10);
    expect(p.icc).toBeNull();
  });

  it('inputs that differ a little: Korn–Graubard effective size with the degrees of freedom of the inputs showing failures (scipy reference)', () => {
    const p = populationRate([c(18, 2), c(16, 4), c(20, 0), c(14, 6), c(19, 1), c(17, 3)], 0.95)!;
    expect(p.rate).toBeCloseTo(0.8666666667, 9);
    expect(p.effectiveN!).toBeCloseTo(29.615105921, 6);
    expect(p.low).toBeCloseTo(0.6913443717, 6);
    expect(p.high).toBeCloseTo(0.962862979, 6);
  });

  it('never narrower than the inputs-run interval, and never wider than Clopper–Pearson over the inputs', () => {
    // Inputs identical up to noise: the effective size reaches the decided outputs' count, not beyond.
    const rows = [c(90, 10), c(91, 9), c(89, 11), c(90, 10), c(92, 8), c(88, 12), c(90, 10), c(91, 9)];
    const p = populationRate(rows, 0.95)!;
    expect(p.effectiveN).toBe(800);
    const run = clopperPearson(721, 800, 0.95)!;
    expect(p.low).toBeCloseTo(run.low, 9);
  });

  it('errors are missing data: left out of each input, an input with only errors left out and counted; null below two inputs', () => {
    const p = populationRate([c(10, 0, 5), c(5, 5), c(0, 0, 3)], 0.95)!;
    expect(p.rate).toBeCloseTo(0.75, 12);
    expect(p.inputs).toBe(2);
    expect(p.leftOut).toBe(1);
    expect(populationRate([c(10, 0), c(0, 0, 4)], 0.95)).toBeNull();
    expect(populationRate([], 0.95)).toBeNull();
    expect(() => populationRate([c(1, 0), c(1, 0)], 1)).toThrow(/level/);
    expect(() => populationRate([c(1, 0), c(1, 0)], 0.95, 'wald' as never)).toThrow(/method/);
  });

  it('errorBounds: errors counted as failures for the lower bound and as passes for the upper', () => {
    const rows = [c(18, 0, 2), c(20, 0), c(19, 1), c(20, 0), c(17, 1, 2)];
    const b = populationErrorBounds(rows, 0.95)!;
    const asFail = populationRate([c(18, 2), c(20, 0), c(19, 1), c(20, 0), c(17, 3)], 0.95)!;
    const asPass = populationRate([c(20, 0), c(20, 0), c(19, 1), c(20, 0), c(19, 1)], 0.95)!;
    expect(b.low).toBeCloseTo(asFail.low, 12);
    expect(b.high).toBeCloseTo(asPass.high, 12);
  });

  it('the betting method, for comparison: wider on the issue’s run', () => {
    const rows = [...Array.from({ length: 8 }, () => c(20, 0)), c(0, 20), c(0, 20)];
    const b = populationRate(rows, 0.95, 'betting')!;
    expect(b.method).toBe('betting');
    expect(b.low).toBeLessThan(0.4439);
  });

  it('seeded coverage holds near its level where the inputs-run interval does not (400 runs per design)', { timeout: 60_000 }, () => {
    const rand = mulberry32(2901);
    for (const [pop, N, M] of [
      [allOrNothing(0.8), 10, 20],
      [betaPopulation(19, 1), 10, 100],
      [betaPopulation(0.5, 0.1), 30, 5],
      [betaPopulation(2, 2), 5, 20],
    ] as const) {
      const { coverage } = populationCoverage(rand, pop, N, M, 400, 0.95, 'cluster-cp');
      // 400 runs: a binomial standard error of 0.011 at 0.95; the bench runs 1,000 per design over 288 designs.
      expect(coverage, `${pop.name} N=${N} M=${M}`).toBeGreaterThanOrEqual(0.92);
    }
  });
});

describe('populationDifference: the paired gate holds its level when B is the same system as A', () => {
  it('seeded: the share of runs called worse stays at most α/2 + 0.01 (1,000 pairs per design)', { timeout: 60_000 }, () => {
    const rand = mulberry32(2929);
    for (const [pop, N, M] of [
      [betaPopulation(8, 2), 5, 20],
      [betaPopulation(0.5, 0.1), 10, 20],
      [betaPopulation(19, 1), 30, 5],
      [betaPopulation(2, 2), 10, 1],
    ] as const) {
      let worse = 0;
      for (let r = 0; r < 1000; r++) {
        const rates = Array.from({ length: N }, () => pop.draw(rand));
        const run = () =>
          rates.map((p) => {
            let pass = 0;
            for (let j = 0; j < M; j++) if (rand() < p) pass++;
            return c(pass, M - pass);
          });
        const [a, b] = [run(), run()];
        const d = populationDifference(
          a.map((x, i) => [x, b[i]] as const),
          0.95,
        );
        if (d?.direction === 'worse') worse++;
      }
      expect(worse / 1000, `${pop.name} N=${N} M=${M}`).toBeLessThanOrEqual(0.035);
    }
  });
});

describe('planPopulation: inputs against samples per input (issue 29 item 3)', () => {
  it('inputs always passing or always failing (ICC 1): more samples buy nothing, the number of inputs is fixed', () => {
    const plan = planPopulation({ rate: 0.8, icc: 1, width: 0.2, level: 0.95 });
    expect(new Set(plan.map((d) => d.inputs)).size).toBe(1);
    // Clopper–Pearson over the inputs: 70 inputs at 80% give a width below 0.2, 69 do not.
    expect(plan[0].inputs).toBe(70);
    expect(clopperPearson(0.8 * 69, 69)!.high - clopperPearson(0.8 * 69, 69)!.low).toBeGreaterThan(0.2);
    expect(plan[0].width).toBeLessThanOrEqual(0.2);
  });

  it('inputs alike (ICC 0): samples substitute for inputs; an input cost moves the cheapest design to more samples', () => {
    const free = planPopulation({ rate: 0.9, icc: 0, width: 0.1, level: 0.95 });
    expect(free[0]).toMatchObject({ samples: 1, inputs: 158 });
    expect(free.map((d) => d.inputs)).toEqual([...free.map((d) => d.inputs)].sort((a, b) => b - a));
    const cheapest = (ds: typeof free) => ds.reduce((a, d) => (d.cost < a.cost ? d : a)).samples;
    expect(cheapest(free)).toBe(1);
    const priced = planPopulation({ rate: 0.9, icc: 0.1, width: 0.1, level: 0.95, inputCost: 20 });
    expect(cheapest(priced)).toBe(10);
    expect(() => planPopulation({ rate: 0.9, icc: 2, width: 0.1, level: 0.95 })).toThrow(/icc/);
    expect(() => planPopulation({ rate: 0.9, icc: 0.1, width: 0, level: 0.95 })).toThrow(/width/);
  });

  it('the planned width matches the interval a run of that design reports, at the planned rate and ICC (all-or-nothing inputs)', () => {
    const rows = [...Array.from({ length: 56 }, () => c(5, 0)), ...Array.from({ length: 14 }, () => c(0, 5))];
    const p = populationRate(rows, 0.95)!;
    expect(p.high - p.low).toBeCloseTo(populationWidth(0.8, 1, 70, 5, 0.95), 9);
  });
});
