import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue } from '../core/validator.js';
import type { RunRecord } from '../store/types.js';
import { compareRuns, formatComparison, formatP, verdictLine } from './compare.js';

function stored(id: string, inputs: InputValue[], fail: (i: number, j: number) => boolean) {
  const M = 20;
  const validators = [{ name: 'v', message: 'v', minSuccess: 0.5, weight: 1, kind: 'validator' as const }];
  const tensor = new ReliabilityTensor(inputs.length, M, 1);
  for (let i = 0; i < inputs.length; i++) for (let j = 0; j < M; j++) tensor.set(i, j, 0, fail(i, j) ? Outcome.FAIL : Outcome.PASS);
  const run: RunRecord = {
    id,
    name: 'exp',
    config: {},
    inputs,
    samples: M,
    validators,
    systemId: 's',
    status: 'complete',
    createdAt: '2026-01-01T00:00:00Z',
    N: inputs.length,
    M,
    K: 1,
  };
  return { run, summary: summarize(tensor, validators) };
}

describe('formatP', () => {
  it('gives three significant digits, scientific below 0.001 and a floor where doubles give out', () => {
    expect(formatP(0.0496)).toBe('0.0496');
    expect(formatP(1)).toBe('1.00');
    expect(formatP(0.000098)).toBe('9.8e-5');
    expect(formatP(0)).toBe('<1e-15');
    expect(formatP(null)).toBe('–');
  });
});

describe('formatComparison', () => {
  it('aligns columns by display width: CJK inputs take two columns a character, accents none extra', () => {
    const inputs = ['日本語で答えてください：パスワードを忘れました', 'Cafe\u0301 au lait', 'plain'];
    const a = stored('A', inputs, () => false);
    const b = stored('B', inputs, (i, j) => i === 0 && j < 10);
    const text = formatComparison(compareRuns(a, b));
    const lines = text.split('\n');
    const header = lines.findIndex((l) => l.startsWith('input '));
    const rows = lines.slice(header, header + 4);
    expect(rows).toHaveLength(4);
    // The change column starts at the same terminal column on every row and on the header.
    const starts = rows.map((l) => stringWidth(l.slice(0, l.lastIndexOf('  '))));
    expect(new Set(starts).size).toBe(1);
    expect(rows[1]).toContain('日本語で答えてください'.slice(0, 5));
    expect(rows[1]).toContain('…');
    expect(text).toContain('✗ significantly worse in B: v');
  });
});

describe('verdictLine', () => {
  it('does not claim "no validator got worse" when none could be tested', () => {
    const a = stored('A', ['x'], () => false);
    const empty = {
      ...a,
      summary: { ...a.summary, validators: a.summary.validators.map((v) => ({ ...v, counts: { pass: 0, fail: 0, error: 20, pending: 0 }, rate: null })) },
    };
    expect(verdictLine(compareRuns(a, empty))).toBe('? no validator could be tested (no decided cell in A or B)');
    expect(verdictLine(compareRuns(a, a))).toBe('✓ no validator got significantly worse');
  });
});

describe('a comparison shows the error shares its rates leave out', () => {
  // A: 20 samples, 2 of them errors (the rule threw where B's outputs fail); B: the same two as failures.
  function withErrors(id: string, bad: OutcomeCode) {
    const base = stored(id, ['x'], (_i, j) => j < 2);
    const validators = base.run.validators;
    const tensor = new ReliabilityTensor(1, 20, 1);
    for (let j = 0; j < 20; j++) tensor.set(0, j, 0, j < 2 ? bad : Outcome.PASS);
    return { run: base.run, summary: summarize(tensor, validators) };
  }
  const c = compareRuns(withErrors('a', Outcome.ERROR), withErrors('b', Outcome.FAIL));

  it('in the rows and in the terminal text', () => {
    expect(c.validators[0].errorShare).toEqual({ a: 0.1, b: 0 });
    expect(c.inputs[0].errorShare).toEqual({ a: 0.1, b: 0 });
    const text = formatComparison(c);
    expect(text).toContain('errors left out of these rates (share of checked cells): v A 10.0%, B 0.0%');
  });

  it('says nothing of errors when neither run had any', () => {
    const clean = compareRuns(
      stored('a', ['x'], () => false),
      stored('b', ['x'], () => false),
    );
    expect(clean.validators[0].errorShare).toEqual({ a: 0, b: 0 });
    expect(formatComparison(clean)).not.toContain('errors left out');
  });
});
