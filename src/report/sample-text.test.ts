import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import type { RunRecord, SampleRecord } from '../store/types.js';
import { sampleText } from './trajectory.js';
import { mdCell } from './markdown.js';
import { esc } from './html-layout.js';

describe('untrusted text in the terminal and in reports (issue 30, item 7)', () => {
  it('assay show --sample marks bidi and control characters instead of letting the terminal act on them', () => {
    const run = { id: 'r1', inputs: ['name the file \u2066a\u2069'], validators: [{ name: 'safe' }] } as unknown as RunRecord;
    const s = {
      i: 0,
      j: 0,
      output: 'report\u202Etxt.exe\u001b[2J',
      outcomes: [Outcome.FAIL],
      reasons: [['judge: \u202Eok']],
      latencyMs: 1,
      attempts: 1,
    } as SampleRecord;
    const text = sampleText(run, s);
    expect(text).toContain('output: report⟨U+202E⟩txt.exe⟨U+001B⟩[2J');
    expect(text).toContain('input: name the file ⟨U+2066⟩a⟨U+2069⟩');
    expect(text).toContain('safe: FAIL · judge: ⟨U+202E⟩ok');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/); // eslint-disable-line no-control-regex
  });

  it('HTML and Markdown reports mark them too', () => {
    expect(esc('<b>\u202Etxt.exe</b>')).toBe('&lt;b&gt;⟨U+202E⟩txt.exe&lt;/b&gt;');
    expect(mdCell('a|\u202Eb')).toBe('a\\|⟨U+202E⟩b');
  });
});
