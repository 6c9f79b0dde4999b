import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { SampleRecord } from '../store/types.js';
import { earlyStopText, outputInline, ruleMessage, worstInputs } from './messages.js';

// The message of a rule that does not pass, from a run's summary: three inputs × 10 samples, one rule.
const inputs = ['fine', 'half', 'mostly'];
const failsAt = (i: number, j: number) => (i === 1 ? j % 2 === 0 : i === 2 ? j < 2 : false);
const tensor = new ReliabilityTensor(3, 10, 1);
const samples: SampleRecord[] = [];
for (let i = 0; i < 3; i++)
  for (let j = 0; j < 10; j++) {
    const code: OutcomeCode = failsAt(i, j) ? Outcome.FAIL : Outcome.PASS;
    tensor.set(i, j, 0, code);
    samples.push({ i, j, output: `${inputs[i]} answer ${j}${code === Outcome.FAIL ? ' (bad)' : ''}`, outcomes: [code], latencyMs: 1, attempts: 1 });
  }
const summary = summarize(tensor, [{ name: 'rule', message: 'm', minSuccess: 0.95, weight: 1, kind: 'validator' }], { verdict: 'confident' });

describe('rule messages', () => {
  it('names the inputs that failed most, lowest rate first, each with its first failing output', () => {
    expect(worstInputs(summary, 0, samples)).toEqual([
      { i: 1, rate: 0.5, fail: 5, decided: 10, example: 'half answer 0 (bad)' },
      { i: 2, rate: 0.8, fail: 2, decided: 10, example: 'mostly answer 0 (bad)' },
    ]);
  });

  it('says verdict, rate, interval, error share, reason and worst inputs', () => {
    expect(ruleMessage(summary, 0, inputs, samples)).toBe(
      [
        'rule: FAIL · rate 76.7% [57.7%, 90.1%] (95% CI, inputs run) · minSuccess 95.0% · errors 0.0% (23 pass, 7 fail, 0 error)',
        '  upper bound 90.1% < minSuccess 95.0%',
        '  input population 76.7% [14.0%, 99.9%] over 3 inputs (95% CI, inputs as the unit; design effect 3.4)',
        '  worst inputs:',
        '    #2 "half": 5/10 = 50.0% (5 failed)',
        '       e.g. "half answer 0 (bad)"',
        '    #3 "mostly": 8/10 = 80.0% (2 failed)',
        '       e.g. "mostly answer 0 (bad)"',
      ].join('\n'),
    );
  });

  it('estimand population: the headline gives the population interval, so named, and the verdict rests on it', () => {
    const pop = summarize(tensor, [{ name: 'rule', message: 'm', minSuccess: 0.95, weight: 1, kind: 'validator' }], { estimand: 'population' });
    const [head, why] = ruleMessage(pop, 0, inputs, samples).split('\n');
    expect(head).toBe('rule: INCONCLUSIVE · rate 76.7% [14.0%, 99.9%] (95% CI, input population) · minSuccess 95.0% · errors 0.0% (23 pass, 7 fail, 0 error)');
    expect(why).toMatch(/^ {2}population bounds \[14\.0%, 99\.9%\] \(over 3 inputs\) straddle minSuccess 95\.0%/);
  });

  it('says after how many samples a run stopped early and why, right under the verdict', () => {
    const fast = earlyStopText({ by: 'rule', cause: '5 samples in a row failed the same way (connection): refused' }, 8, 30);
    expect(fast).toBe('the run stopped early after 8 of 30 samples: 5 samples in a row failed the same way (connection): refused');
    expect(earlyStopText({ by: 'runTimeoutMs', ms: 500 }, 2, 20, 'calls')).toBe(
      'the run stopped at runTimeoutMs (500 ms) after 2 of 20 calls; it is stored as interrupted (raise runTimeoutMs, or lower samples)',
    );
    expect(ruleMessage(summary, 0, inputs, samples, { stopped: fast }).split('\n').slice(0, 3)).toEqual([
      'rule: FAIL · rate 76.7% [57.7%, 90.1%] (95% CI, inputs run) · minSuccess 95.0% · errors 0.0% (23 pass, 7 fail, 0 error)',
      `  ${fast}`,
      '  upper bound 90.1% < minSuccess 95.0%',
    ]);
  });

  it('shows an output on one line, shortened', () => {
    expect(outputInline('a\n  b')).toBe('"a b"');
    expect(outputInline('x'.repeat(200), 10)).toBe(`"${'x'.repeat(9)}…"`);
  });
});
