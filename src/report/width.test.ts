import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { displayWidth } from './width.js';

describe('displayWidth', () => {
  it("is string-width's answer for any text: ASCII, wide, combining, emoji, control characters, ANSI colours", () => {
    const pieces = fc.constantFrom('a', ' ', '~', '\t', '\x1b[31m', '\x1b[0m', '漢', 'é', 'e\u0301', '👍', '👩‍👩‍👧', '█', '·', '\u200b', '\x7f');
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.array(pieces).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(text, (s) => displayWidth(s) === stringWidth(s)),
      { numRuns: 2000 },
    );
  });

  it('counts the cells of a report table as a terminal shows them', () => {
    expect(displayWidth('greets  100.0%')).toBe(14);
    expect(displayWidth('漢字')).toBe(4);
    expect(displayWidth('\x1b[32mPASS\x1b[0m')).toBe(4);
  });
});
