import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { durationFlag, flagError, intFlag, numberFlag, oneOfFlag, shareFlag, usdFlag, words } from './flags.js';

/** The whole message, not a part of it: the parsers' wording is what they are for. */
const exactly = (message: string) => new RegExp('^' + message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');

describe('flag parsers: one message style, `--flag: expected …, found "…"`', () => {
  it('an absent flag is undefined, whatever the parser', () => {
    expect([
      intFlag('--n', undefined),
      numberFlag('--x', undefined),
      shareFlag('--p', undefined),
      oneOfFlag('--w', undefined, ['a']),
      durationFlag('--d', undefined),
      usdFlag('--u', undefined),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('whole numbers: digits only, within their range', () => {
    expect(() => intFlag('--samples', '0', { min: 1 })).toThrow(UsageError);
    expect(intFlag('--samples', ' 12 ', { min: 1 })).toBe(12);
    expect(intFlag('--offset', '0', { min: 0 })).toBe(0);
    expect(() => intFlag('--samples', '1.5', { min: 1 })).toThrow(exactly('--samples: expected a whole number ≥ 1, found "1.5"'));
    expect(() => intFlag('--samples', '1e3', { min: 1 })).toThrow(exactly('--samples: expected a whole number ≥ 1, found "1e3"'));
    expect(() => intFlag('--top-k', 'many', { min: 1, max: 50 })).toThrow(exactly('--top-k: expected a whole number from 1 to 50, found "many"'));
    expect(() => intFlag('--max-errors', '-1', { min: 0, hint: '0 never stops' })).toThrow(
      exactly('--max-errors: expected a whole number ≥ 0 (0 never stops), found "-1"'),
    );
    expect(() => intFlag('--lock-duration', '999', { min: 1000, what: 'a whole number of milliseconds' })).toThrow(
      exactly('--lock-duration: expected a whole number of milliseconds ≥ 1000, found "999"'),
    );
    expect(flagError('--x', 'y', 'z')).toMatchObject({ where: { path: '--x' } });
  });

  it('numbers and shares: decimal notation only (no hex, no Infinity, no blank)', () => {
    expect(numberFlag('--rate', '0.5', { min: 0.001 })).toBe(0.5);
    for (const bad of ['0x1', 'Infinity', ' ', '1_0']) expect(() => numberFlag('--rate', bad, { min: 0 })).toThrow(/--rate: expected a number ≥ 0/);
    expect(shareFlag('--level', '.9', { open: true })).toBe(0.9);
    expect(() => shareFlag('--level', '1', { open: true })).toThrow(exactly('--level: expected a number strictly between 0 and 1, found "1"'));
    expect(() => shareFlag('--error-rate', '2')).toThrow(exactly('--error-rate: expected a number from 0 to 1, found "2"'));
    expect(shareFlag('--width', '5%', { open: true, percent: true })).toBeCloseTo(0.05, 12);
    expect(() => shareFlag('--width', '0', { open: true, percent: true, what: 'an interval width' })).toThrow(
      exactly('--width: expected an interval width strictly between 0 and 1 (or a percentage such as 10%), found "0"'),
    );
  });

  it('words, durations and amounts', () => {
    expect(words(['a'])).toBe('a');
    expect(words(['a', 'b', 'c'])).toBe('a, b or c');
    expect(oneOfFlag('--format', 'CSV', ['jsonl', 'csv'], { ignoreCase: true })).toBe('csv');
    expect(() => oneOfFlag('--interval', 'bayes', ['clopper-pearson', 'wilson', 'wald'])).toThrow(
      exactly('--interval: expected clopper-pearson, wilson or wald, found "bayes"'),
    );
    expect(durationFlag('--cache-ttl', '2m')).toBe(120_000);
    expect(() => durationFlag('--cache-ttl', 'soon')).toThrow(/^--cache-ttl: expected a duration such as 90s, .*, found "soon"$/);
    expect(usdFlag('--max-cost', '$0.50')).toBe(0.5);
    expect(() => usdFlag('--max-cost', '0')).toThrow(exactly('--max-cost: expected an amount of USD > 0 such as 5 or 0.50, found "0"'));
  });
});
