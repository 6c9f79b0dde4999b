import { describe, expect, it } from 'vitest';
import { visibleControls, withoutBom } from './text.js';

describe('text from files and people', () => {
  it('withoutBom drops one leading byte-order mark only', () => {
    expect(withoutBom('\uFEFFa\uFEFF')).toBe('a\uFEFF');
    expect(withoutBom('a')).toBe('a');
  });

  it('visibleControls marks bidi controls, invisible characters and terminal controls (issue 30: "txt.exe" read "exe.txt")', () => {
    expect(visibleControls('report\u202Etxt.exe')).toBe('report⟨U+202E⟩txt.exe');
    expect(visibleControls('\u2066a\u2069 \u200Fb\u200E \u061C')).toBe('⟨U+2066⟩a⟨U+2069⟩ ⟨U+200F⟩b⟨U+200E⟩ ⟨U+061C⟩');
    expect(visibleControls('x\u001b[2Jy\u0007\u0000\u009b')).toBe('x⟨U+001B⟩[2Jy⟨U+0007⟩⟨U+0000⟩⟨U+009B⟩');
    expect(visibleControls('zero\u200Bwidth\u2060\uFEFF')).toBe('zero⟨U+200B⟩width⟨U+2060⟩⟨U+FEFF⟩');
    // Of the same kind: Unicode tag characters (invisible ASCII look-alikes that smuggle text past a reader),
    // invisible operators, the Mongolian vowel separator and interlinear annotation marks.
    expect(visibleControls('ok\u{E0049}\u{E0067}\u{E007F}')).toBe('ok⟨U+E0049⟩⟨U+E0067⟩⟨U+E007F⟩');
    expect(visibleControls('a\u2062b\u180Ec\uFFF9d')).toBe('a⟨U+2062⟩b⟨U+180E⟩c⟨U+FFF9⟩d');
    // Kept: tabs, line breaks, emoji joined by U+200D, any script.
    const kept = 'a\tb\nc\r\nd 👩\u200D💻 שלום مرحبا';
    expect(visibleControls(kept)).toBe(kept);
  });
});
