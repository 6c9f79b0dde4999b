import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { planPopulation } from '../core/population.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import { renderMarkdownReport } from './markdown.js';
import type { ReportMeta } from './meta.js';
import { populationPlanText, WIDE_POPULATION } from './population.js';
import { formatTerminalSummary } from './terminal.js';

const rule: ValidatorMeta[] = [{ name: 'polite', message: 'polite', minSuccess: 0.7, weight: 1, kind: 'validator' }];
const meta: ReportMeta = { runId: 'r1', name: 'plan', status: 'complete', systemId: 'sim', createdAt: '2026-01-01T00:00:00.000Z' };

/** N inputs × M samples; the first `failing` inputs always fail, the rest always pass. */
function run(N: number, M: number, failing: number) {
  const t = new ReliabilityTensor(N, M, 1);
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) t.set(i, j, 0, i < failing ? Outcome.FAIL : Outcome.PASS);
  return summarize(t, rule, { verdict: 'confident' });
}

describe("a run's report says how to narrow a wide population interval (inputs against samples)", () => {
  it('10 inputs × 20 samples, 2 always failing: one line with the plan planPopulation gives at this ICC', () => {
    const s = run(10, 20, 2);
    const p = s.validators[0].population!;
    expect(p.high - p.low).toBeGreaterThan(WIDE_POPULATION);
    expect(p.icc).toBeCloseTo(1, 6); // all-or-nothing inputs: every sample of one input alike
    const designs = planPopulation({ rate: p.rate, icc: p.icc!, width: WIDE_POPULATION, level: 0.95, samples: [1, 2, 3, 5, 10, 20, 50, 100] });
    const fewest = designs.reduce((a, d) => (d.outputs < a.outputs ? d : a));
    const at20 = designs.find((d) => d.samples === 20)!;
    // With ICC 1 more samples per input add nothing: one sample per input is the fewest outputs.
    expect(fewest.samples).toBe(1);
    const line = `  polite: population interval ${((p.high - p.low) * 100).toFixed(1)}% wide; for 10.0% (95%, ICC 1.00): about ${fewest.inputs} inputs × 1 sample (${fewest.outputs} outputs), or ${at20.inputs} inputs × 20 samples (${at20.outputs} outputs) at this run's samples per input — assay plan prices inputs against samples`;
    const text = formatTerminalSummary(s, meta);
    expect(text.split('\n')).toContain(line);
    expect(renderMarkdownReport(s, meta)).toContain(`- ${line.trim()}`);
  });

  it('no line when the interval is narrow, or with one input (no population claim)', () => {
    const narrow = run(2000, 1, 200);
    expect(narrow.validators[0].population!.high - narrow.validators[0].population!.low).toBeLessThanOrEqual(WIDE_POPULATION);
    expect(formatTerminalSummary(narrow, meta)).not.toContain('wide; for 10.0%');
    const one = run(1, 20, 0);
    expect(one.validators[0].population).toBeUndefined();
    expect(formatTerminalSummary(one, meta)).not.toContain('wide; for');
  });

  it('says when no spread was seen (ICC unknown, planned as none)', () => {
    const allPass = run(10, 5, 0).validators[0].population!;
    expect(populationPlanText(allPass, 5)).toMatch(
      /^population interval 30\.8% wide; for 10\.0% \(95%, no between-input spread seen, planned as none\): about \d+ inputs × 1 sample/,
    );
  });
});
