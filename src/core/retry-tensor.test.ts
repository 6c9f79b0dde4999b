import { describe, expect, it } from 'vitest';
import { clopperPearson } from './intervals.js';
import { Outcome } from './outcome.js';
import { minAttempts, pSuccessWithin } from './retry.js';
import { planFromTensor } from './retry-tensor.js';
import { ReliabilityTensor } from './tensor.js';
import { tensorOf } from './testing/fixtures.js';

describe('the planner over a tensor (§4.2.3)', () => {
  // Input 0: (P,P) (P,F) (P,P) (E,P); input 1: (F,F) (P,P) (P,P) (P,P).
  const t = tensorOf([
    ['PP', 'PF', 'PP', 'EP'],
    ['FF', 'PP', 'PP', 'PP'],
  ]);

  it('gives per-input figures with intervals, excluding undecided samples', () => {
    const plan = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] });
    const [i0, i1] = plan.inputs;
    expect(i0).toMatchObject({ samples: 3, all_pass: 2, errors: 1, pending: 0, m: 5 });
    expect(i0.p_pass).toBeCloseTo(2 / 3, 12);
    expect(i0.expected_attempts).toBeCloseTo(1.5, 12);
    expect(i1).toMatchObject({ samples: 4, all_pass: 3, errors: 0, m: 4 });
    expect(i1.expected_attempts).toBeCloseTo(4 / 3, 12);
    // Intervals (Clopper–Pearson by default) on P_pass,i propagate to E[attempts]_i and m_i (both decrease in P_pass).
    const w = clopperPearson(2, 3, 0.95)!;
    expect(i0.p_pass_ci).toEqual(w);
    expect(i0.expected_attempts_ci!.low).toBeCloseTo(1 / w.high, 12);
    expect(i0.expected_attempts_ci!.high).toBeCloseTo(1 / w.low, 12);
    expect(i0.m_ci).toEqual({ low: minAttempts(w.high, 0.99), high: minAttempts(w.low, 0.99) });
    expect(i0.m_ci!.low!).toBeLessThanOrEqual(5);
    expect(i0.m_ci!.high!).toBeGreaterThanOrEqual(5);
  });

  it('gives the product, joint and per-input mixture figures; the mixture is the headline', () => {
    const plan = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] });
    expect(plan.validators.map((v) => v.rate)).toEqual([6 / 7, 6 / 8]);
    expect(plan.validators[0]).toMatchObject({ pass: 6, fail: 1, error: 1 });
    expect(plan.product!.p_pass).toBeCloseTo((6 / 7) * 0.75, 12);
    expect(plan.joint!).toMatchObject({ samples: 7, all_pass: 5 });
    expect(plan.joint!.p_pass).toBeCloseTo(5 / 7, 12);
    const mix = plan.per_input!;
    expect(mix.p_pass).toBeCloseTo((2 / 3 + 3 / 4) / 2, 12);
    expect(mix.expected_attempts).toBeCloseTo((1.5 + 4 / 3) / 2, 12);
    expect(mix.expected_retries).toBeCloseTo((1.5 + 4 / 3) / 2 - 1, 12);
    expect(mix).toMatchObject({ m: 4, max_m: 5, inputs: 2, unreachable_inputs: 0 });
    expect(mix.p_success_within_m).toBeCloseTo((2 - 3 ** -4 - 4 ** -4) / 2, 12);
    expect(plan).toMatchObject({
      source: 'per_input',
      p_pass: mix.p_pass,
      expected_attempts: mix.expected_attempts,
      m: 4,
      p_success_within_m: mix.p_success_within_m,
    });
  });

  it('makes the mixture, not the pooled rate, the m that reaches the target when inputs differ', () => {
    // Input 0 always passes; input 1 passes 1 sample in 10. Pooled: 11/20 = 0.55, m = 6 at 99%; but a
    // guard meeting input 1 half the time then succeeds only (1 + 1 − 0.9⁶)/2 = 73% of the time.
    const plan = planFromTensor(tensorOf([Array.from({ length: 10 }, () => 'P'), Array.from({ length: 10 }, (_, j) => (j === 0 ? 'P' : 'F'))]), {
      confidence: 0.99,
    });
    expect(plan.joint!.m).toBe(6);
    expect((1 + pSuccessWithin(0.1, 6)) / 2).toBeLessThan(0.99);
    expect(plan.m).toBe(minAttempts(0.1, 0.98));
    expect(plan.p_success_within_m!).toBeGreaterThanOrEqual(0.99);
    expect(plan.expected_attempts).toBeCloseTo((1 + 10) / 2, 12);
  });

  it("counts errors as failures under the 'fail' policy", () => {
    const plan = planFromTensor(t, { confidence: 0.99, errors: 'fail' });
    expect(plan.inputs[0]).toMatchObject({ samples: 4, all_pass: 2, errors: 0 });
    expect(plan.validators[0].rate).toBeCloseTo(6 / 8, 12);
    expect(plan.validators[0]).toMatchObject({ pass: 6, fail: 1, error: 1 });
  });

  it('runs the independence check on complete samples', () => {
    const ind = planFromTensor(t, { confidence: 0.99, names: ['a', 'b'] }).independence;
    expect(ind).toMatchObject({ samples: 7, observed_all_pass: 5 });
    expect(ind.product_rate).toBeCloseTo(30 / 49, 12);
    // With two validators the exact conditional test of the all-pass count is Fisher's exact test of their table.
    expect(ind.p_value).toBeCloseTo(0.2857142857142857, 10);
    expect(ind.independent).toBe(true);
    expect(ind.pairs).toHaveLength(1);
    expect(ind.pairs[0].table).toEqual([5, 1, 0, 1]);
    expect(ind.pairs[0].p_value).toBeCloseTo(0.2857142857142857, 10);
    expect(ind.flagged_validators).toEqual([]);
  });

  it('reports pending samples, inputs that never pass, and tolerates an empty run', () => {
    const partial = new ReliabilityTensor(1, 2, 1);
    partial.set(0, 0, 0, Outcome.PASS);
    const plan = planFromTensor(partial, { confidence: 0.9 });
    expect(plan.inputs[0]).toMatchObject({ samples: 1, pending: 1, p_pass: 1, m: 1 });

    const never = planFromTensor(
      tensorOf([
        ['P', 'P'],
        ['F', 'F'],
      ]),
      { confidence: 0.9 },
    );
    expect(never.inputs[1]).toMatchObject({ p_pass: 0, expected_attempts: null, m: null });
    expect(never.per_input).toMatchObject({ unreachable_inputs: 1, expected_attempts: null, max_m: null, m: null });
    expect(never).toMatchObject({ p_pass: 0.5, expected_attempts: null, m: null, p_success_within_m: null });

    const empty = planFromTensor(new ReliabilityTensor(1, 1, 1), { confidence: 0.9 });
    expect(empty.joint).toBeNull();
    expect(empty.product).toBeNull();
    expect(empty.per_input).toBeNull();
    expect(empty).toMatchObject({ p_pass: null, m: null });
    expect(empty.inputs[0].p_pass).toBeNull();
  });
});
