import { visibleControls } from './text.js';
import type { InputValue } from './validator.js';

const CONTROL: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string as a person would write it between quotes: "text", or 'text' when it holds a double quote (and no
 * single one), or “text” when it holds both. Nothing inside is escaped but control characters (\n, \t, \r,
 * others as \u00XX) and hidden ones (marked ⟨U+202E⟩ as by visibleControls), so a quote or a backslash shows as itself: `contains '"name"'`, never `"\"name\""`.
 */
export function quoted(s: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = s.replace(/[\u0000-\u001f\u007f]/g, (c) => CONTROL[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // What is left that changes how text reads (bidi controls, invisible characters) is marked as every view marks it.
  const body = visibleControls(escaped);
  if (!s.includes('"')) return `"${body}"`;
  if (!s.includes("'")) return `'${body}'`;
  return `“${body}”`;
}

/**
 * An input as a table cell or a chart label shows it, the same in every report: a string as its text, an
 * object as its compact JSON; runs of whitespace as one space; at most `max` characters, shortened with "…".
 */
export function inputLabel(input: InputValue | undefined, max = 60): string {
  if (input === undefined) return '';
  const text = typeof input === 'string' ? input.replace(/\s+/g, ' ').trim() : JSON.stringify(input);
  return text.length > max ? text.slice(0, Math.max(1, max - 1)) + '…' : text;
}

/**
 * An input inside a sentence (a line of terminal output): a string in quotes (quoted), an object as its JSON,
 * whose braces set it off already — never `"{"text":…}"`.
 */
export function inputInline(input: InputValue | undefined, max = 60): string {
  if (typeof input !== 'string') return inputLabel(input, max);
  return quoted(inputLabel(input, max - 2));
}

/**
 * What every surface shows where there is no value (no rate, no interval, no p-value, nothing decided): one
 * glyph in the terminal, Markdown, HTML and the dashboard. JSON reports keep null.
 */
export const NO_VALUE = '–';

/**
 * A rate (a share in [0, 1]) as a percentage: `digits` decimals (one by default), always written out, so a
 * column of rates lines up (95.0%, 100.0%); NO_VALUE when there is none. The one rounding of every rate shown.
 */
export function formatRate(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || Number.isNaN(x)) return NO_VALUE;
  // One share computed two ways (1/80, or 1 − 79/80) differs in its last bits: 1.25 against 1.2499999999999956,
  // which toFixed rounds apart (1.3% / 1.2%). Twelve significant digits first, so a figure is rounded one way.
  return `${Number((x * 100).toPrecision(12)).toFixed(digits)}%`;
}

/** A difference of rates with its sign (a true minus): "+2.8%", "−25.1%", "0.0%"; NO_VALUE when there is none. */
export function formatRateChange(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return NO_VALUE;
  const s = formatRate(Math.abs(x));
  return s === formatRate(0) ? s : `${x > 0 ? '+' : '−'}${s}`;
}

/** A value shown by `show`, or NO_VALUE when there is none. */
export function orNoValue<T>(x: T | null | undefined, show: (v: T) => string | number = String): string {
  return x === null || x === undefined || (typeof x === 'number' && Number.isNaN(x)) ? NO_VALUE : String(show(x));
}

/**
 * A confidence level or a target probability (a setting, not a measured rate): as few decimals as it has, up to
 * two (95%, 99.5%, 99.75%), the same in every report: "(95% CI)", "family-wise 95%".
 */
export function formatLevel(x: number): string {
  return `${Number((x * 100).toFixed(2))}%`;
}
