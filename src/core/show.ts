import type { InputValue } from './validator.js';

const CONTROL: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string as a person would write it between quotes: "text", or 'text' when it holds a double quote (and no
 * single one), or “text” when it holds both. Nothing inside is escaped but control characters (\n, \t, \r,
 * others as \u00XX), so a quote or a backslash shows as itself: `contains '"name"'`, never `"\"name\""`.
 */
export function quoted(s: string): string {
  // eslint-disable-next-line no-control-regex
  const body = s.replace(/[\u0000-\u001f\u007f]/g, (c) => CONTROL[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
