import { DURATION_EXPECTED, parseDuration } from '../config/duration.js';
import { UsageError } from '../errors.js';

/**
 * The one set of flag parsers every command uses: a flag's text in, its value out (undefined when the flag
 * was not given), or a UsageError worded one way: `--flag: expected <what>, found "<text>"` (`where.path` is
 * the flag). Only cli/ parses flags; library modules take values.
 */

/** A bad flag value: `<flag>: expected <what>, found "<text>"` (and where in the value, for a list). */
export function flagError(flag: string, expected: string, value: string, where?: string): UsageError {
  return new UsageError(`${flag}: expected ${expected}, found ${JSON.stringify(value)}${where ? ` ${where}` : ''}`, { path: flag });
}

// A whole number written as digits, and a plain decimal ("0.9", ".85", "1", "9e-1"): Number() alone would
// also take "0x1", "Infinity", "1_000" or "  ".
const WHOLE = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number a flag's text writes in decimal notation, or NaN. */
export function decimal(text: string): number {
  return DECIMAL.test(text.trim()) ? Number(text.trim()) : Number.NaN;
}

export interface Range {
  /** Least value allowed (inclusive). */
  min?: number;
  /** Greatest value allowed (inclusive). */
  max?: number;
  /** The value must be above this (exclusive). */
  above?: number;
  /** The value must be below this (exclusive). */
  below?: number;
  /** What the value is, for the message (default "a whole number" or "a number"). */
  what?: string;
  /** Said after what was expected, in parentheses: "0 never stops", "e.g. 0.8". */
  hint?: string;
}

/** "a whole number from 1 to 50", "a number strictly between 0 and 1", "a number > 0". */
function expected(r: Range, what: string): string {
  const lo = r.min ?? r.above;
  const hi = r.max ?? r.below;
  let bounds = '';
  if (r.above !== undefined && r.below !== undefined) bounds = ` strictly between ${r.above} and ${r.below}`;
  else if (lo !== undefined && hi !== undefined)
    bounds =
      r.min !== undefined && r.max !== undefined
        ? ` from ${lo} to ${hi}`
        : ` ${r.min !== undefined ? `≥ ${lo}` : `> ${lo}`} and ${r.max !== undefined ? `≤` : '<'} ${hi}`;
  else if (lo !== undefined) bounds = r.min !== undefined ? ` ≥ ${lo}` : ` > ${lo}`;
  else if (hi !== undefined) bounds = r.max !== undefined ? ` ≤ ${hi}` : ` < ${hi}`;
  return `${r.what ?? what}${bounds}${r.hint ? ` (${r.hint})` : ''}`;
}

function inRange(n: number, r: Range): boolean {
  return (
    Number.isFinite(n) &&
    (r.min === undefined || n >= r.min) &&
    (r.max === undefined || n <= r.max) &&
    (r.above === undefined || n > r.above) &&
    (r.below === undefined || n < r.below)
  );
}

/** A whole number written as digits, within `range`. */
export function intFlag(flag: string, value: string | undefined, range: Range = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = WHOLE.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || !inRange(n, range)) throw flagError(flag, expected(range, 'a whole number'), value);
  return n;
}

/** A number in decimal notation, within `range`. */
export function numberFlag(flag: string, value: string | undefined, range: Range = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = decimal(value);
  if (!inRange(n, range)) throw flagError(flag, expected(range, 'a number'), value);
  return n;
}

/** A share (a rate, a probability, a level): strictly between 0 and 1 with `open`, else from 0 to 1; `percent` also takes "10%". */
export function shareFlag(
  flag: string,
  value: string | undefined,
  o: { open?: boolean; percent?: boolean; what?: string; hint?: string } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  const n = o.percent && t.endsWith('%') ? decimal(t.slice(0, -1)) / 100 : decimal(t);
  const range: Range = o.open ? { above: 0, below: 1 } : { min: 0, max: 1 };
  const hint = [o.percent ? 'or a percentage such as 10%' : '', o.hint ?? ''].filter(Boolean).join('; ');
  if (!inRange(n, range)) throw flagError(flag, expected({ ...range, ...(o.what ? { what: o.what } : {}), ...(hint ? { hint } : {}) }, 'a number'), value);
  return n;
}

/** One of a few words: `expected fixed or sequential`, `expected count, report or off`. */
export function oneOfFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], o: { ignoreCase?: boolean } = {}): T | undefined {
  if (value === undefined) return undefined;
  const v = o.ignoreCase ? value.trim().toLowerCase() : value;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw flagError(flag, words(allowed), value);
}

/** "a", "a or b", "a, b or c". */
export function words(list: readonly string[]): string {
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

/** A duration such as 90s, 30m, 12h or 7d (or a number of seconds), in ms. */
export function durationFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === undefined) throw new UsageError(`${flag}: ${DURATION_EXPECTED}, found ${JSON.stringify(value)}`, { path: flag });
  return ms;
}

/** An amount of USD > 0, with or without "$". */
export function usdFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const usd = decimal(value.trim().replace(/^\$/, ''));
  if (!(usd > 0 && Number.isFinite(usd))) throw flagError(flag, 'an amount of USD > 0 such as 5 or 0.50', value);
  return usd;
}
