import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { normalQuantile } from '../core/distributions.js';
import { wilson as wilsonInterval } from '../core/intervals.js';
import { planFromRates, pSuccessWithin } from '../core/retry.js';
import { planFromTensor } from '../core/retry-tensor.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { Validator } from '../core/validator.js';
import type { SystemUnderTest } from '../providers/types.js';
import { seededRandom } from '../providers/retry.js';
import { guard } from './guard.js';

/**
 * A seeded simulated system whose output encodes which validators it passes ("1,0,1"), and validators that
 * read their own bit. `passProbs(i, u)` draws the bits for input i from a uniform source u.
 */
function bitSystem(seed: number, draw: (i: number, u: () => number) => number[]): SystemUnderTest {
  const u = seededRandom(seed);
  return {
    id: 'simulated:bits',
    generate: async (_input, o) => ({ text: draw(o.inputIndex, u).join(','), latencyMs: 0, usage: { promptTokens: 10, completionTokens: 2 } }),
  };
}

const bitValidators = (K: number): Validator[] =>
  Array.from({ length: K }, (_, k) => ({ name: `v${k + 1}`, message: `v${k + 1} failed`, minSuccess: 0.9, predicate: (o: string) => o.split(',')[k] === '1' }));

const z99 = normalQuantile(0.995);

describe('seeded simulation: independent validators (§4.2.2)', () => {
  const rates = [0.95, 0.9, 0.85];
  const independent = (_i: number, u: () => number) => rates.map((p) => (u() < p ? 1 : 0));
  const plan = planFromRates(rates, 0.99);
  const p = plan.p_pass;

  it('observed mean attempts over 2,000 guarded calls lies within the 99% interval of 1/P_pass', async () => {
    const g = guard(bitSystem(11, independent), { validators: bitValidators(3), maxAttempts: 200, feedback: false });
    const counts: number[] = [];
    for (let c = 0; c < 2000; c++) {
      const r = await g.call('q');
      expect(r.accepted).toBe(true);
      counts.push(r.attempts.length);
    }
    const mean = counts.reduce((s, x) => s + x, 0) / counts.length;
    // Geometric: mean 1/p, variance (1 − p)/p².
    const half = (z99 * Math.sqrt(1 - p)) / p / Math.sqrt(counts.length);
    expect(Math.abs(mean - plan.expected_attempts!)).toBeLessThan(half);
  });

  it('the share accepted within m = 4 matches 1 − (1 − P_pass)^m within its 99% interval', async () => {
    expect(plan.m).toBe(4);
    const g = guard(bitSystem(23, independent), { validators: bitValidators(3), maxAttempts: plan.m! });
    let accepted = 0;
    let attempts = 0;
    for (let c = 0; c < 2000; c++) {
      const r = await g.call('q');
      if (r.accepted) accepted++;
      else expect(r).toMatchObject({ reason: 'exhausted', attempts: { length: 4 } });
      attempts += r.attempts.length;
    }
    const ci = wilsonInterval(accepted, 2000, 0.99)!;
    expect(plan.p_success_within_m!).toBeGreaterThanOrEqual(ci.low);
    expect(plan.p_success_within_m!).toBeLessThanOrEqual(ci.high);
    // With the cap, attempts follow a truncated geometric: E = (1 − (1 − p)^m) / p.
    const truncated = pSuccessWithin(p, 4) / p;
    expect(Math.abs(attempts / 2000 - truncated)).toBeLessThan((z99 * Math.sqrt(1 - p)) / p / Math.sqrt(2000));
  });
});

describe('seeded simulation: validators failing together, inputs differing', () => {
  // Input i emits a "bad" output with probability q_i that fails all three validators at once; otherwise each
  // validator passes independently with 0.97. P_pass,i = (1 − q_i)·0.97³, far from the product of marginals.
  const N = 20;
  const q = Array.from({ length: N }, (_, i) => 0.05 + (0.55 * i) / (N - 1));
  const draw = (i: number, u: () => number) => {
    const bad = u() < q[i];
    return [0, 1, 2].map(() => (!bad && u() < 0.97 ? 1 : 0));
  };

  const M = 200;
  const validators = bitValidators(3);
  /** The run a user would make before shipping: N inputs × M samples × 3 validators, planned from its tensor. */
  async function plannedRun() {
    const sys = bitSystem(5, draw);
    const t = new ReliabilityTensor(N, M, 3);
    const signal = new AbortController().signal;
    for (let i = 0; i < N; i++)
      for (let j = 0; j < M; j++) {
        const { text } = await sys.generate('q', { signal, sample: j, inputIndex: i });
        validators.forEach((v, k) => t.set(i, j, k, v.predicate(text, 'q') ? Outcome.PASS : Outcome.FAIL));
      }
    return planFromTensor(t, { confidence: 0.99, names: validators.map((v) => v.name) });
  }
  /** 2,000 guarded calls, 100 per input: attempts made and calls accepted. */
  async function guardedCalls(seed: number, maxAttempts: number) {
    const g = guard(bitSystem(seed, draw), { validators, maxAttempts, feedback: false });
    let attempts = 0;
    let accepted = 0;
    for (let i = 0; i < N; i++)
      for (let c = 0; c < 100; c++) {
        const r = await g.call('q', { inputIndex: i });
        attempts += r.attempts.length;
        if (r.accepted) accepted++;
      }
    return { attempts, accepted };
  }

  it('the independence check fires and the per-input figures, not the product, predict the attempts', async () => {
    const plan = await plannedRun();
    expect(plan.independence.independent).toBe(false);
    expect(plan.independence.p_value).toBeLessThan(1e-6);
    // The validators fail together within inputs too: not only a matter of inputs differing in difficulty.
    expect(plan.independence.within_input!.p_value).toBeLessThan(1e-6);
    expect(plan.independence.flagged_validators).toEqual(['v1', 'v2', 'v3']);
    expect(plan.independence.pairs.every((pr) => pr.phi > 0.3)).toBe(true);

    const { attempts, accepted } = await guardedCalls(99, 500);
    expect(accepted).toBe(2000);
    const observed = attempts / 2000;
    // Standard error of the observed mean (mixture of geometrics, equal shares) and of the prediction (delta method).
    const pTrue = q.map((qi) => (1 - qi) * 0.97 ** 3);
    const varObs = pTrue.reduce((s, pi) => s + (1 - pi) / pi ** 2 + (1 / pi) ** 2, 0) / N - (pTrue.reduce((s, pi) => s + 1 / pi, 0) / N) ** 2;
    const seObs = Math.sqrt(varObs / 2000);
    const sePred = Math.sqrt(plan.inputs.reduce((s, x) => s + (1 - x.p_pass!) / (x.p_pass! ** 3 * x.samples), 0)) / N;
    const se = Math.hypot(seObs, sePred);

    expect(plan.expected_attempts).toBe(plan.per_input!.expected_attempts);
    const perInput = plan.per_input!.expected_attempts!;
    const product = plan.product!.expected_attempts!;
    expect(Math.abs(observed - perInput) / se).toBeLessThan(z99);
    expect(Math.abs(observed - product) / se).toBeGreaterThan(10);
    expect(product).toBeGreaterThan(2 * observed);
  });

  it("the headline m reaches the target; the pooled rate's m falls short", async () => {
    const plan = await plannedRun();
    const m = plan.m!;
    const mJoint = plan.joint!.m!;
    expect(mJoint).toBeLessThan(m);

    // Capped at the headline m: the accepted share matches the mixture's prediction.
    const atM = await guardedCalls(41, m);
    const share = atM.accepted / 2000;
    const sePred = Math.sqrt(plan.inputs.reduce((s, x) => s + ((m * (1 - x.p_pass!) ** (m - 1)) ** 2 * (x.p_pass! * (1 - x.p_pass!))) / x.samples, 0)) / N;
    const seObs = Math.sqrt((share * (1 - share)) / 2000);
    expect(Math.abs(share - plan.p_success_within_m!) / Math.hypot(seObs, sePred)).toBeLessThan(z99);
    expect(plan.p_success_within_m!).toBeGreaterThanOrEqual(0.99);

    // Capped at the pooled rate's m: clearly short of 99%, as the plan warns.
    const atJoint = await guardedCalls(43, mJoint);
    expect(wilsonInterval(atJoint.accepted, 2000, 0.99)!.high).toBeLessThan(0.99);
    expect(plan.joint!.per_input_success_within_m!).toBeLessThan(0.99);
  });
});
