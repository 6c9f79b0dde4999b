/**
 * Why cells are ERROR, readable at a glance: error messages grouped by what they say, with counts. Messages that
 * differ only in ids, timestamps or long numbers (a response id quoted in each message, a request id) are one
 * group; status codes, indices and short numbers are kept, since they tell errors apart.
 */

import { ANSWER } from '../providers/errors.js';

export interface ErrorGroup {
  /** The first message seen in the group, whole. */
  message: string;
  /** Errors in the group. */
  count: number;
  /** Distinct messages in the group (they differ only in ids or long numbers); capped at VARIANTS_CAP. */
  variants: number;
}

/** All the groups of a run's errors, most frequent first. */
export interface ErrorSummary {
  /** Errors counted (generation and validator errors). */
  total: number;
  /** Distinct groups (at most MAX_GROUPS are told apart; errors beyond them are counted in `total` only). */
  distinct: number;
  groups: ErrorGroup[];
}

/** Groups told apart; memory stays bounded on a run where every message differs in a way the key keeps. */
export const MAX_GROUPS = 1000;
const VARIANTS_CAP = 1000;

// Ids: an identifier with a digit in a tail of 6+ characters after a prefix (chatcmpl-9x…, req_01H…), UUIDs and
// hex strings of 8+ characters with a digit, ISO timestamps, and numbers of 6+ digits.
const VARIABLE = [
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b[A-Za-z]+[-_](?=[A-Za-z0-9]*\d)[A-Za-z0-9]{6,}\b/g,
  /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi,
  /\b\d{6,}\b/g,
];

/** The part of a message that says what went wrong: ids and long numbers replaced by "…", a quoted answer left out. */
export function errorKey(message: string): string {
  const quoted = message.indexOf(ANSWER);
  let key = (quoted >= 0 ? message.slice(0, quoted) : message).replace(/\s+/g, ' ').trim();
  for (const re of VARIABLE) key = key.replace(re, '…');
  return key;
}

export class ErrorGrouper {
  private readonly byKey = new Map<string, { message: string; count: number; seen: Set<string> }>();
  private total = 0;

  add(message: string): void {
    this.total++;
    const key = errorKey(message);
    const g = this.byKey.get(key);
    if (g) {
      g.count++;
      if (g.seen.size < VARIANTS_CAP) g.seen.add(message);
    } else if (this.byKey.size < MAX_GROUPS) {
      this.byKey.set(key, { message, count: 1, seen: new Set([message]) });
    }
  }

  /** The `top` most frequent groups (ties: first seen first), with the totals. */
  summary(top = Infinity): ErrorSummary {
    const groups = [...this.byKey.values()]
      .sort((a, b) => b.count - a.count)
      .slice(0, top)
      .map(({ message, count, seen }) => ({ message, count, variants: seen.size }));
    return { total: this.total, distinct: this.byKey.size, groups };
  }
}

/** Lines for a text report: the top groups (each message whole, on one line), then "and N more". */
export function errorSummaryLines(s: ErrorSummary, options: { top?: number; indent?: string; maxChars?: number } = {}): string[] {
  const top = options.top ?? 5;
  const indent = options.indent ?? '  ';
  const max = options.maxChars ?? 600;
  const lines = s.groups.slice(0, top).map((g) => {
    const flat = g.message.replace(/\s+/g, ' ').trim();
    const text = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
    return `${indent}error ×${g.count}${g.variants > 1 ? ` (${g.variants} variants: ids or quoted answers differ)` : ''}: ${text}`;
  });
  const shownGroups = Math.min(top, s.groups.length);
  const rest = s.total - s.groups.slice(0, top).reduce((n, g) => n + g.count, 0);
  const more = s.distinct - shownGroups;
  if (rest > 0) {
    const what = more > 0 ? `${more}${s.distinct >= MAX_GROUPS ? '+' : ''} more distinct message${more === 1 ? '' : 's'}` : 'more messages';
    lines.push(`${indent}and ${what} (${rest} error${rest === 1 ? '' : 's'}): see the JSON or HTML report`);
  }
  return lines;
}
