import { describe, expect, it } from 'vitest';
import { formatLevel, formatRate, formatRateChange, inputInline, inputLabel, NO_VALUE, orNoValue, quoted } from './show.js';

describe('values shown as a person wrote them', () => {
  it('quoted: the quotes that need no escapes; only control characters escaped', () => {
    expect(quoted('name')).toBe('"name"');
    expect(quoted('"name"')).toBe(`'"name"'`);
    expect(quoted(`it's "x"`)).toBe('“it\'s "x"”');
    expect(quoted('a\\d+')).toBe('"a\\d+"'); // a backslash stays one backslash
    expect(quoted('two\nlines\tand\u0001')).toBe('"two\\nlines\\tand\\u0001"');
    // Bidi and invisible characters in a quoted input are marked in the terminal as on the pages (core/text.ts).
    expect(quoted('report\u202Etxt.exe\u{E0041}')).toBe('"report⟨U+202E⟩txt.exe⟨U+E0041⟩"');
  });

  it('inputs: a table shows the text or the JSON; a sentence quotes a string, never an object', () => {
    expect(inputLabel('Say  hi\n there')).toBe('Say hi there');
    expect(inputLabel({ text: 'hi' })).toBe('{"text":"hi"}');
    expect(inputLabel('x'.repeat(100), 10)).toBe('xxxxxxxxx…');
    expect(inputInline({ text: 'hi' })).toBe('{"text":"hi"}');
    expect(inputInline('Say "hi"')).toBe(`'Say "hi"'`);
    expect(inputInline('x'.repeat(100), 12)).toBe('"xxxxxxxxx…"');
  });
});

describe('rates and missing values: one formatter, one glyph', () => {
  it('a rate has one decimal, always written out; no value is NO_VALUE', () => {
    expect([formatRate(0.95), formatRate(1), formatRate(0), formatRate(0.8253)]).toEqual(['95.0%', '100.0%', '0.0%', '82.5%']);
    expect(formatRate(0.99951, 2)).toBe('99.95%');
    // One rounding of a figure however it was computed (issue 26, item 8: 28.7% beside 28.8%).
    for (let n = 1; n <= 400; n++) for (let k = 0; k <= n; k++) expect(formatRate(1 - (n - k) / n), `${k}/${n}`).toBe(formatRate(k / n));
    expect([formatRate(1 / 80), formatRate(1 - 79 / 80), formatRate(23 / 80), formatRate(1 - 57 / 80)]).toEqual(['1.3%', '1.3%', '28.8%', '28.8%']);
    expect([formatRate(null), formatRate(undefined), formatRate(Number.NaN)]).toEqual([NO_VALUE, NO_VALUE, NO_VALUE]);
    expect(NO_VALUE).toBe('–');
  });

  it('a change of rate carries its sign (a true minus), and a change that rounds to nothing none', () => {
    expect(formatRateChange(-0.2512)).toBe('−25.1%');
    expect(formatRateChange(0.028)).toBe('+2.8%');
    expect(formatRateChange(-0.0001)).toBe('0.0%');
    expect(formatRateChange(null)).toBe(NO_VALUE);
  });

  it('a level is a setting: as few decimals as it has', () => {
    expect([formatLevel(0.95), formatLevel(0.995), formatLevel(0.9975), formatLevel(0.8)]).toEqual(['95%', '99.5%', '99.75%', '80%']);
  });

  it('any other value, or NO_VALUE', () => {
    expect(orNoValue(0.1234, (v) => v.toFixed(3))).toBe('0.123');
    expect(orNoValue(null)).toBe(NO_VALUE);
    expect(orNoValue(3)).toBe('3');
  });
});
