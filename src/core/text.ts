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
 * Tag characters (U+E0000–E007F) are invisible copies of ASCII that smuggle text past a reader. Tab and line
 * breaks are kept; U+200D (joins emoji) is kept.
 */
export const HIDDEN_CHARACTERS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

/** Untrusted text as it may be shown: every hidden character replaced by a visible mark naming it, e.g. ⟨U+202E⟩. */
export function visibleControls(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** `visibleControls` for a page's own script: defines `vis(text)` with the same characters and marks. */
export const VISIBLE_CONTROLS_SCRIPT = `var HIDDEN=new RegExp(${JSON.stringify(HIDDEN_CHARACTERS.source)},'gu');
function vis(t){return String(t).replace(HIDDEN,function(c){var h=c.codePointAt(0).toString(16).toUpperCase();return '\u27e8U+'+('000'+h).slice(-Math.max(4,h.length))+'\u27e9';});}`;
