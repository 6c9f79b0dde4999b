import { describe, expect, it } from 'vitest';
import { correctedPopulationRate, type GradedAtInput } from './population-corrected.js';
import { populationRate } from './population.js';
import { correctedRate, stratifiedRate } from './ppi.js';
import type { Counts } from './rate-types.js';
import { betaPopulation, simulateGraded } from './testing/population-sim.js';
import { mulberry32 } from './testing/prng.js';

const row = (pass: number, fail: number): Counts => ({ pass, fail, error: 0, pending: 0 });

describe('correctedPopulationRate: the corrected rate over the input population', () => {
  it('one grade per input: the grades count plainly and the judged share carries the judge population interval (reference)', () => {
    const rows = [row(10, 0), row(9, 1), row(10, 0), row(2, 8), row(10, 0), row(8, 2), row(10, 0), row(10, 0), row(7, 3), row(10, 0)];
    // Input i's one grade: the judge passed it; the person failed inputs 3 and 8.
    const graded: GradedAtInput[] = rows.map((_, i) => ({ i, judge: true, person: i !== 3 && i !== 8 }));
    const out = correctedPopulationRate(rows, graded, 0.95);
    if (!('population' in out)) throw new Error(out.refused);
    const judge = populationRate(rows, 0.95)!;
    const ref = stratifiedRate(
      { pass: judge.rate * judge.effectiveN!, n: judge.effectiveN! },
      [
        { share: judge.rate, x: 8, m: 10 },
        { share: 1 - judge.rate, x: 0, m: 0 },
      ],
      0.95,
    );
    expect(out.population.rate).toBeCloseTo(ref.rate, 12);
    expect(out.population.low).toBeCloseTo(ref.low, 12);
    expect(out.population.high).toBeCloseTo(ref.high, 12);
    // No judge-FAIL grades: that verdict borrows the graded share (core/ppi.ts), 8 of 10.
    expect(out.population.rate).toBeCloseTo(0.8, 12);
    expect(out.population).toMatchObject({ method: 'ppi-cluster-cp', inputs: 10, grades: 10, gradedInputs: 10 });
  });

  it('the polite judge: 100% by the judge, 80% by people — the population figure is corrected, and wider than over the inputs run', () => {
    const rows = Array.from({ length: 10 }, () => row(20, 0));
    const graded: GradedAtInput[] = Array.from({ length: 40 }, (_, n) => ({ i: n % 10, judge: true, person: n % 5 !== 0 }));
    const out = correctedPopulationRate(rows, graded, 0.95);
    if (!('population' in out)) throw new Error(out.refused);
    const run = correctedRate({ judged: { pass: 200, n: 200 }, graded, level: 0.95 })!;
    expect(out.population.rate).toBeCloseTo(0.8, 12);
    expect(out.population.rate).toBeCloseTo(run.rate, 12);
    expect(out.population.low).toBeLessThan(run.low);
    // The judge's PASS share over the population is itself uncertain (10 all-pass inputs: [69%, 100%]), and an input it
    // would fail has no grades: the upper bound is wide too.
    expect(out.population.high).toBeGreaterThanOrEqual(run.high);
    expect(out.population.high).toBeLessThan(1);
  });

  it('grades bunched on few inputs count as fewer grades than they are', () => {
    const rows = Array.from({ length: 20 }, () => row(10, 0));
    // 40 grades: inputs 0–3 always fail by people, the rest always pass; clustered, 4 inputs hold every FAIL.
    const bunched: GradedAtInput[] = Array.from({ length: 40 }, (_, n) => ({ i: n % 20, judge: true, person: n % 20 >= 4 }));
    const spread: GradedAtInput[] = Array.from({ length: 40 }, (_, n) => ({ i: n % 20, judge: true, person: !(n < 4 || (n >= 24 && n < 28)) }));
    const a = correctedPopulationRate(rows, bunched, 0.95);
    const b = correctedPopulationRate(rows, spread, 0.95);
    if (!('population' in a) || !('population' in b)) throw new Error('refused');
    expect(a.population.rate).toBeCloseTo(b.population.rate, 12);
    expect(a.population.high - a.population.low).toBeGreaterThan(b.population.high - b.population.low);
  });

  it('refuses, saying why: one input, or a weighted draw', () => {
    expect(correctedPopulationRate([row(5, 5)], [{ i: 0, judge: true, person: true }], 0.95)).toEqual({
      refused: expect.stringContaining('fewer than 2 inputs'),
    });
    const weighted = correctedPopulationRate(
      [row(5, 5), row(6, 4)],
      [
        { i: 0, judge: true, person: true, probability: 0.1 },
        { i: 1, judge: true, person: true, probability: 0.5 },
      ],
      0.95,
    );
    expect(weighted).toEqual({ refused: expect.stringContaining('weighted') });
    expect(() => correctedPopulationRate([row(1, 1)], [{ i: 3, judge: true, person: true }], 0.95)).toThrow(/graded\[0\]/);
  });

  it('seeded simulation: covers the population mean of people’s rate at nominal 0.95, a judge wrong on whole inputs included', () => {
    const rand = mulberry32(2929);
    const runs = 400;
    const designs = [
      { pop: betaPopulation(4, 1), N: 20, M: 10, grades: 40, bad: 0.1 },
      { pop: betaPopulation(0.5, 0.5), N: 30, M: 5, grades: 60, bad: 0 },
      { pop: betaPopulation(9, 1), N: 10, M: 20, grades: 40, bad: 0.1 },
    ];
    for (const d of designs) {
      let hit = 0;
      for (let r = 0; r < runs; r++) {
        const { rows, graded } = simulateGraded(rand, d.pop, d.N, d.M, d.grades, d.bad);
        const out = correctedPopulationRate(rows, graded, 0.95);
        if (!('population' in out)) throw new Error(out.refused);
        if (out.population.low <= d.pop.mean && d.pop.mean <= out.population.high) hit++;
      }
      // Nominal 0.95; 400 runs have a Monte Carlo SE of about 0.011.
      expect(hit / runs, d.pop.name).toBeGreaterThanOrEqual(0.93);
    }
  });
});
