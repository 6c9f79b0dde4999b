/**
 * Text as it comes from files and people: one decider for what every reader and every view does with it.
 */

/** The text without a leading byte-order mark (Windows editors and Excel's "UTF-8 CSV" write one). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/* eslint-disable no-control-regex */
/**
 * Characters that change how text reads without being seen: bidirectional controls (U+202E makes "txt.exe"
 * read "exe.txt"), invisible format characters, and control characters (a terminal runs ESC sequences).
 * Tab and line breaks are kept; U+200D (joins emoji) is kept.
 */
export const HIDDEN_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** Untrusted text as it may be shown: every hidden character replaced by a visible mark naming it, e.g. ⟨U+202E⟩. */
export function visibleControls(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
