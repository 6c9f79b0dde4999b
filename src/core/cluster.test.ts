import { describe, expect, it } from 'vitest';
import { addCluster, clusteredInterval, effectiveSampleSize, emptyClusterSums, tCritical, type ClusterSums } from './cluster.js';
import { interval } from './intervals.js';
import { summarize } from './summarize.js';
import { ReliabilityTensor } from './tensor.js';
import { Outcome } from './outcome.js';
import { mulberry32 } from './testing/prng.js';
import { argumentErrorOf } from '../testing/errors.js';

const sums = (outputs: [number, number][]): ClusterSums => {
  const s = emptyClusterSums();
  for (const [x, n] of outputs) addCluster(s, x, n);
  return s;
};

describe('Student t critical values (published tables)', () => {
  it('t(0.975; ν)', () => {
    expect(tCritical(0.95, 1)).toBeCloseTo(12.706204736174694, 9);
    expect(tCritical(0.95, 9)).toBeCloseTo(2.262157162798205, 9);
    expect(tCritical(0.95, 30)).toBeCloseTo(2.0422724563012378, 9);
    expect(argumentErrorOf(() => tCritical(0.95, 0)).where).toEqual({ key: 'df' });
  });
});

describe('effective sample size of a pooled rate (reference values by hand, mpmath)', () => {
  it('20 outputs of 2 cells: 10 pass both, 6 pass one, 4 fail both', () => {
    const s = sums([...Array(10).fill([2, 2]), ...Array(6).fill([1, 2]), ...Array(4).fill([0, 2])]);
    expect(s).toMatchObject({ clusters: 20, withPass: 16, withFail: 10, x: 26, n: 40 });
    // V = 20/19 · 12.2 / 40² → raw n_eff 28.344262; 9 degrees of freedom (10 outputs with a failure, minus 1):
    // × (1.959964 / 2.262157)² → 21.277264.
    expect(effectiveSampleSize(s)).toBeCloseTo(21.277264482966466, 9);
    const { ci, effectiveN } = clusteredInterval(s, 'clopper-pearson', 0.95);
    expect(effectiveN).toBeCloseTo(21.277264482966466, 9);
    expect(ci!.low).toBeCloseTo(0.41566536272545873, 9);
    expect(ci!.high).toBeCloseTo(0.8409530879513045, 9);
    // Wider than counting 40 cells as 40 trials.
    const naive = interval('clopper-pearson', 26, 40)!;
    expect(ci!.high - ci!.low).toBeGreaterThan(naive.high - naive.low);
  });

  it('stays between the number of outputs and the number of cells', () => {
    // Each output passes exactly 3 of 4: no spread between outputs, n_eff is the cell count, less the
    // degrees-of-freedom correction for 29: 120 · (1.959964 / 2.045230)².
    expect(effectiveSampleSize(sums(Array(30).fill([3, 4])))).toBeCloseTo(110.20296292968747, 8);
    // All or nothing per output: the K cells are one trial.
    const allOrNothing = sums([...Array(25).fill([4, 4]), ...Array(25).fill([0, 4])]);
    expect(effectiveSampleSize(allOrNothing)).toBe(50);
  });

  it('takes the output as the unit where the data cannot tell', () => {
    expect(effectiveSampleSize(sums(Array(50).fill([4, 4])))).toBe(50); // rate 1
    expect(
      effectiveSampleSize(
        sums([
          [2, 2],
          [2, 2],
          [0, 2],
          [1, 2],
        ]),
      ),
    ).toBe(4); // one degree of freedom
    expect(effectiveSampleSize(sums([[3, 4]]))).toBe(1); // one output
    // One failing cell among 200 outputs of 4: independence cannot be seen from one event.
    expect(effectiveSampleSize(sums([...Array(199).fill([4, 4]), [3, 4]]))).toBe(200);
    expect(effectiveSampleSize(emptyClusterSums())).toBeNull();
    expect(clusteredInterval(emptyClusterSums(), 'clopper-pearson', 0.95)).toEqual({ ci: null, effectiveN: null });
  });
});

/**
 * Seeded simulation: N inputs × M samples × K validators whose outcomes on one output are correlated (with
 * probability ρ all validators share one uniform draw), inputs of unequal difficulty. Coverage of each pooled
 * view's true rate: IRP (per input, over its samples and validators), ORP (per sample j, over inputs and
 * validators) and all outputs pooled.
 */
function pooledCoverage(N: number, M: number, rates: number[], rho: number, spread: number, runs: number, seed: number) {
  const rand = mulberry32(seed);
  const K = rates.length;
  const hits = { irp: 0, orp: 0, all: 0, irpNaive: 0, allNaive: 0 };
  const meta = rates.map((_, k) => ({ name: `v${k}`, message: '', minSuccess: 0.5, weight: 1, kind: 'validator' as const }));
  for (let r = 0; r < runs; r++) {
    const P = Array.from({ length: N }, () => {
      const shift = (rand() - 0.5) * spread;
      return rates.map((p) => Math.min(0.999, Math.max(0.001, p + shift)));
    });
    const t = new ReliabilityTensor(N, M, K);
    for (let i = 0; i < N; i++)
      for (let j = 0; j < M; j++) {
        const shared = rand() < rho;
        const u = rand();
        for (let k = 0; k < K; k++) t.set(i, j, k, (shared ? u : rand()) < P[i][k] ? Outcome.PASS : Outcome.FAIL);
      }
    const s = summarize(t, meta);
    const truthInput = P.map((row) => row.reduce((a, b) => a + b, 0) / K);
    const truthAll = truthInput.reduce((a, b) => a + b, 0) / N;
    const inside = (ci: { low: number; high: number } | null, v: number) => ci !== null && ci.low <= v && v <= ci.high;
    s.inputs.forEach((x) => {
      if (inside(x.ci, truthInput[x.i])) hits.irp++;
      if (inside(interval('clopper-pearson', x.counts.pass, x.counts.pass + x.counts.fail), truthInput[x.i])) hits.irpNaive++;
    });
    s.iterations.forEach((x) => {
      if (inside(x.ci, truthAll)) hits.orp++;
    });
    if (inside(s.allOutputs.ci, truthAll)) hits.all++;
    if (inside(interval('clopper-pearson', s.allOutputs.counts.pass, s.allOutputs.counts.pass + s.allOutputs.counts.fail), truthAll)) hits.allNaive++;
  }
  return { irp: hits.irp / (runs * N), orp: hits.orp / (runs * M), all: hits.all / runs, irpNaive: hits.irpNaive / (runs * N), allNaive: hits.allNaive / runs };
}

describe('pooled views take the output as the unit (seeded simulation, nominal 95%)', () => {
  it('correlated validators at 0.95/0.90/0.85/0.80, inputs of unequal difficulty: coverage ≥ 93%', () => {
    const c = pooledCoverage(10, 20, [0.95, 0.9, 0.85, 0.8], 0.5, 0.1, 300, 11);
    console.log(
      `pooled coverage, K = 4, ρ = 0.5: IRP ${c.irp.toFixed(3)} (cells as trials ${c.irpNaive.toFixed(3)}), ORP ${c.orp.toFixed(3)}, all ${c.all.toFixed(3)} (cells as trials ${c.allNaive.toFixed(3)})`,
    );
    expect(c.irp).toBeGreaterThanOrEqual(0.93);
    expect(c.orp).toBeGreaterThanOrEqual(0.93);
    expect(c.all).toBeGreaterThanOrEqual(0.93);
    expect(c.irpNaive).toBeLessThan(0.93);
  });

  it('near-identical validators near p = 1 (ρ = 0.9, p = 0.99): coverage ≥ 93%', () => {
    const c = pooledCoverage(20, 10, [0.99, 0.99, 0.99, 0.99], 0.9, 0, 300, 12);
    console.log(
      `pooled coverage, K = 4, ρ = 0.9, p = 0.99: IRP ${c.irp.toFixed(3)}, ORP ${c.orp.toFixed(3)}, all ${c.all.toFixed(3)} (cells as trials ${c.allNaive.toFixed(3)})`,
    );
    expect(c.irp).toBeGreaterThanOrEqual(0.93);
    expect(c.orp).toBeGreaterThanOrEqual(0.93);
    expect(c.all).toBeGreaterThanOrEqual(0.93);
    expect(c.allNaive).toBeLessThan(0.93);
  });
});
