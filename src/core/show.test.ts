import { describe, expect, it } from 'vitest';
import { inputInline, inputLabel, quoted } from './show.js';

describe('values shown as a person wrote them', () => {
  it('quoted: the quotes that need no escapes; only control characters escaped', () => {
    expect(quoted('name')).toBe('"name"');
    expect(quoted('"name"')).toBe(`'"name"'`);
    expect(quoted(`it's "x"`)).toBe('“it\'s "x"”');
    expect(quoted('a\\d+')).toBe('"a\\d+"'); // a backslash stays one backslash
    expect(quoted('two\nlines\tand\u0001')).toBe('"two\\nlines\\tand\\u0001"');
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
