/**
 * The details of a text the detail check compares: quantities (numbers in digits or words, with their
 * unit, currency, range, bound or "about"), dates, identifiers with digits (X200, 5G, GPT-4o, ISO 9001:
 * one entity each, never split into quantities) and names. One linear pass over the tokens.
 */
import { MONTHS, NOT_NAMES, afterSentenceEnd, nameSpans } from './entities.js';
import { andAFraction, readDigits, readNumberWords, type ReadNumber } from './numbers.js';
import { articleUnit, currencyBefore, hyphenUnit, unitAfter, type UnitRead } from './units.js';
import { stem, tokenize, type Token } from './tokens.js';

interface Span {
  /** As written in the text (a quantity with its unit and currency, without "about" or "more than"). */
  written: string;
  start: number;
  end: number;
  /** Token range [t0, t1). */
  t0: number;
  t1: number;
}

export interface QuantityMention extends Span {
  kind: 'quantity';
  /** "time", "calendar", "length", "percent", "money:EUR", "ordinal", "noun:employee"; null for a bare number. */
  dim: string | null;
  /** The interval it asserts, in the dimension's base unit (±Infinity for "more than" and "up to"). */
  lo: number;
  hi: number;
  /** Rounding of the written value, in base units ("3.5" ±0.05, "about 5" ±10%). */
  precision: number;
  /** Further rounding the written form may hide ("60" ±5), for deciding a conflict only. */
  slack: number;
  /** The values as written, before units ("60" of "60 days"): a bare number of the evidence may verify them. */
  raw: number[];
  /** The unit named differs in system from a base conversion (miles ↔ km): rounding of the conversion is allowed. */
  unit: string;
  /** "a week": implied by an article, checked for conflicts but never required to appear in the evidence. */
  implied: boolean;
  /** Money stated in real terms ("adjusted for inflation", "in 2020 dollars"): it never compares with a nominal figure. */
  basis?: 'real';
}

export interface DateReading {
  /** Inclusive year interval (a decade is ten years). */
  year?: [number, number];
  /** The year interval is a decade ("the 1860s"): any year in it agrees; an explicit range ("2018–19") must match whole. */
  decade?: boolean;
  month?: number;
  day?: number;
}

export interface DateMention extends Span {
  kind: 'date';
  /** One reading, or two for a day/month order the text leaves open (03/04/2020). */
  readings: DateReading[];
  /** A fiscal year ("fiscal 2020", "FY 2020"): it never compares with a calendar year. */
  basis?: 'fiscal';
}

export interface IdentifierMention extends Span {
  kind: 'identifier';
  /** Lower case, letters and digits only: "GPT-4o" and "gpt 4o" are the same identifier. */
  norm: string;
  /** The letters before the first digit ("gpt", "x", "iso"): X200 and X300 are of one family. */
  family: string;
}

export interface NameMention extends Span {
  kind: 'name';
  parts: string[];
  acronym: boolean;
}

export type Mention = QuantityMention | DateMention | IdentifierMention | NameMention;

export interface TextMentions {
  text: string;
  tokens: Token[];
  mentions: Mention[];
}

const isWord = (t: Token | undefined, ...w: string[]) => t !== undefined && t.kind === 'word' && w.includes(t.lower);
const isMark = (t: Token | undefined, ...m: string[]) => t !== undefined && t.kind === 'mark' && m.includes(t.text);
const CONNECTORS = ['-', '.', '/', '_', '+'];
const DASHES = ['-', '–', '—', '--'];
const ORDINAL_SUFFIX = new Set(['st', 'nd', 'rd', 'th']);

const yearLike = (t: Token | undefined) => t?.kind === 'num' && /^[0-9]{4}$/.test(t.text) && Number(t.text) >= 1000 && Number(t.text) <= 2100;

/** A glued run of words, numbers and inner connectors ("GPT-4o", "X200", "2018-03-04", "60-day"): [start, end). */
function gluedRun(tokens: Token[], i: number): number {
  let j = i + 1;
  while (j < tokens.length && !tokens[j].spaced) {
    const t = tokens[j];
    if (t.kind !== 'mark') j++;
    // a full stop before a capitalised word ends a sentence ("£1,027,339.The figures"), it joins nothing
    else if (
      CONNECTORS.includes(t.text) &&
      tokens[j + 1] &&
      !tokens[j + 1].spaced &&
      tokens[j + 1].kind !== 'mark' &&
      !(t.text === '.' && /^\p{Lu}\p{Ll}/u.test(tokens[j + 1].text))
    )
      j++;
    else break;
  }
  return j;
}

/** Approximations and bounds before a number: "about", "nearly", "more than", "up to", "at least", "~", "<". */
function qualifierBefore(tokens: Token[], i: number): { kind: 'about' | 'nearly' | 'gt' | 'ge' | 'lt' | 'le'; start: number } | null {
  const a = tokens[i - 1];
  const b = tokens[i - 2];
  const two = a && b ? `${b.lower} ${a.lower}` : '';
  if (['more than', 'greater than', 'higher than', 'larger than', 'upwards of', 'in excess of'].includes(two)) return { kind: 'gt', start: i - 2 };
  if (['less than', 'fewer than', 'lower than', 'smaller than'].includes(two)) return { kind: 'lt', start: i - 2 };
  if (two === 'at least' || two === 'no less than') return { kind: 'ge', start: i - 2 };
  if (two === 'at most' || two === 'up to' || two === 'no more than') return { kind: 'le', start: i - 2 };
  if (two === 'as many as' || two === 'as much as') return { kind: 'about', start: i - 2 };
  if (!a) return null;
  if (isWord(a, 'about', 'around', 'approximately', 'roughly', 'some', 'circa', 'approx', 'ca', 'c', 'estimated') || isMark(a, '~', '≈'))
    return { kind: 'about', start: i - 1 };
  if (isWord(a, 'nearly', 'almost')) return { kind: 'nearly', start: i - 1 };
  if (isWord(a, 'over', 'above', 'exceeding') || isMark(a, '>')) return { kind: 'gt', start: i - 1 };
  if (isWord(a, 'under', 'below') || isMark(a, '<')) return { kind: 'lt', start: i - 1 };
  if (isMark(a, '≥')) return { kind: 'ge', start: i - 1 };
  if (isMark(a, '≤')) return { kind: 'le', start: i - 1 };
  return null;
}

/** Nouns a year-like number counts rather than dates ("1500 people", "2000 employees"): plural count nouns. */
const countsNotYear = (u: UnitRead | null) =>
  u !== null && (u.known || (/s$/.test(u.name) && !/ss$/.test(u.name)) || /^(people|men|women|children)$/.test(u.name));

/** Month abbreviations that take a full stop ("Sept.", "Jan."). */
const ABBREVIATED = new Set(['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);

/** `anyCase`: read lower-case month names too (evidence text may be lower-cased; a claim's "may" is a verb). */
export function extractMentions(text: string, options: { anyCase?: boolean } = {}): TextMentions {
  const tokens = tokenize(text);
  const used = new Uint8Array(tokens.length);
  const mentions: Mention[] = [];
  const span = (t0: number, t1: number) => ({
    written: text.slice(tokens[t0].start, tokens[t1 - 1].end),
    start: tokens[t0].start,
    end: tokens[t1 - 1].end,
    t0,
    t1,
  });
  const use = (t0: number, t1: number) => used.fill(1, t0, t1);
  const sentenceStart = (i: number) => afterSentenceEnd(text, tokens[i].start);

  // 1. Glued runs holding digits: dates (2018-03-04, 03/04/2018), decades (1990s), identifiers (X200, 5G, GPT-4o).
  for (let i = 0; i < tokens.length;) {
    const t = tokens[i];
    if (t.kind === 'mark') {
      i++;
      continue;
    }
    const j = gluedRun(tokens, i);
    const run = tokens.slice(i, j);
    const nums = run.filter((x) => x.kind === 'num');
    const words = run.filter((x) => x.kind === 'word');
    if (nums.length === 0 || j - i === 1) {
      i = j;
      continue;
    }
    const seps = run.filter((x) => x.kind === 'mark').map((x) => x.text);
    const n = (k: number) => Number(run[k].text);
    // ISO date 2018-03-04; day-first or month-first 04/03/2018
    if (words.length === 0 && run.length === 5 && seps.every((s) => s === seps[0] && (s === '-' || s === '/' || s === '.'))) {
      const [a, b, c] = [n(0), n(2), n(4)];
      const readings: DateReading[] = [];
      if (/^[0-9]{4}$/.test(run[0].text) && b >= 1 && b <= 12 && c >= 1 && c <= 31) readings.push({ year: [a, a], month: b, day: c });
      else if (/^[0-9]{4}$/.test(run[4].text)) {
        if (b >= 1 && b <= 12 && a >= 1 && a <= 31) readings.push({ year: [c, c], month: b, day: a });
        if (a >= 1 && a <= 12 && b >= 1 && b <= 31 && a !== b) readings.push({ year: [c, c], month: a, day: b });
      }
      if (readings.length) {
        mentions.push({ kind: 'date', ...span(i, j), readings });
        use(i, j);
        i = j;
        continue;
      }
    }
    // "1990s", "1990's"
    if (run.length === 2 && run[1].text === 's' && /^[0-9]{3}0$/.test(run[0].text)) {
      const y = n(0);
      mentions.push({ kind: 'date', ...span(i, j), readings: [{ year: [y, y + 9], decade: true }] });
      use(i, j);
      i = j;
      continue;
    }
    // A number with its glued unit, ordinal suffix, scale or hyphenated unit is a quantity (read below); so is a range "10-14".
    const first = run[0];
    const quantityLike =
      first.kind === 'num' &&
      (words.length === 0 ||
        (run.length === 2 &&
          (ORDINAL_SUFFIX.has(run[1].lower) ||
            unitAfter(tokens, i + 1, false)?.known ||
            /^(bn|mn|mln|am|pm|p)$/i.test(run[1].text) ||
            (currencyBefore(tokens, i) !== null && /^[kmb]$/i.test(run[1].text)))) ||
        (run[1]?.text === '-' && run[2]?.kind === 'word'));
    if (quantityLike) {
      i = j;
      continue;
    }
    // Anything else with letters and digits is an identifier, compared whole.
    if (words.length > 0) {
      const written = text.slice(tokens[i].start, tokens[j - 1].end);
      const norm = written.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
      mentions.push({ kind: 'identifier', ...span(i, j), norm, family: norm.replace(/[0-9].*$/, '') });
      use(i, j);
    }
    i = j;
  }

  // 2. Dates around month names: "3 March 1866", "March 3, 1866", "3rd of March", "March 1866", "in March".
  // A claim's months are capitalised ("march" and "may" are verbs); evidence may be lower-cased text.
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (used[i] || t.kind !== 'word' || !(/^\p{Lu}/u.test(t.text) || (options.anyCase && t.lower.length > 3 && t.lower !== 'march'))) continue;
    const month = MONTHS.get(t.lower);
    if (month === undefined) continue;
    let t0 = i;
    let t1 = i + 1;
    if (isMark(tokens[t1], '.') && !tokens[t1].spaced && ABBREVIATED.has(t.lower)) t1++;
    let day: number | undefined;
    let year: number | undefined;
    const dayAt = (k: number): number | null => {
      const d = tokens[k];
      if (d?.kind !== 'num' || used[k] || !/^[0-9]{1,2}$/.test(d.text) || Number(d.text) < 1 || Number(d.text) > 31) return null;
      return Number(d.text);
    };
    // day before: "3 March", "3rd March", "3rd of March", "the 3rd of March"
    let k = i - 1;
    if (isWord(tokens[k], 'of')) k--;
    if (ORDINAL_SUFFIX.has(tokens[k]?.lower ?? '') && !tokens[k].spaced) k--;
    if (dayAt(k) !== null) {
      day = dayAt(k) as number;
      t0 = k;
    }
    // day after: "March 3", "March 3rd"
    if (day === undefined && dayAt(t1) !== null && !yearLike(tokens[t1])) {
      day = dayAt(t1) as number;
      t1++;
      if (ORDINAL_SUFFIX.has(tokens[t1]?.lower ?? '') && !tokens[t1].spaced) t1++;
    }
    // "March 6–7", "6–7 March": days of a range name the month only
    if (day !== undefined && isMark(tokens[t1], ...DASHES) && dayAt(t1 + 1) !== null && !yearLike(tokens[t1 + 1])) {
      day = undefined;
      t1 += 2;
    } else if (day !== undefined && t0 < i && isMark(tokens[t0 - 1], ...DASHES) && dayAt(t0 - 2) !== null) {
      day = undefined;
      t0 -= 2;
    }
    // year after: "March 1866", "March 3, 1866", "March of 1866"
    let y = t1;
    if (isMark(tokens[y], ',') || isWord(tokens[y], 'of')) y++;
    if (yearLike(tokens[y]) && !used[y]) {
      year = Number(tokens[y].text);
      t1 = y + 1;
    }
    // "May", "Mar", "Jan" are words too ("May I", "Jan Smith"): months only next to a number
    if ((t.lower.length <= 3 || t.lower === 'sept') && day === undefined && year === undefined) continue;
    const reading: DateReading = { month };
    if (day !== undefined) reading.day = day;
    if (year !== undefined) reading.year = [year, year];
    mentions.push({ kind: 'date', ...span(t0, t1), readings: [reading] });
    use(t0, t1);
  }

  // 3. "ISO 9001", "Boeing 747", "Windows 11", "Wi-Fi 6", "Wi-Fi 6E": a name (a hyphenated one whole) followed by a
  // number, or by an identifier that starts with one, is one identifier.
  const gluedIds = new Map<number, IdentifierMention>();
  for (const m of mentions) if (m.kind === 'identifier' && tokens[m.t0].kind === 'num') gluedIds.set(m.t0, m);
  const dropped = new Set<IdentifierMention>();
  for (let i = 0; i + 1 < tokens.length; i++) {
    const w = tokens[i];
    const d = tokens[i + 1];
    if (used[i] || w.kind !== 'word' || d.kind !== 'num' || !d.spaced || !/^[0-9]+$/.test(d.text)) continue;
    // "6E" of "Wi-Fi 6E" was read in pass 1 as an identifier of its own: it joins the name
    const glued = used[i + 1] ? gluedIds.get(i + 1) : undefined;
    if (used[i + 1] && !glued) continue;
    const s = wordRunStart(tokens, i);
    const acronym = /^\p{Lu}{2,}$/u.test(w.text);
    const hyphenated = s < i;
    if (!/^\p{Lu}/u.test(tokens[s].text) || NOT_NAMES.has(w.lower) || MONTHS.has(w.lower) || w.lower === 'fy') continue;
    if (!acronym && !hyphenated && (sentenceStart(i) || yearLike(d))) continue;
    const end = glued ? glued.t1 : i + 2;
    if (!glued) {
      const after = tokens[i + 2];
      if (after && !after.spaced && (after.kind !== 'mark' || !/^[.,;:)!?]$/.test(after.text))) continue;
      if (unitAfter(tokens, i + 2, false)?.known || isMark(after, '%') || (after?.kind === 'word' && /^(million|billion|thousand|hundred)$/i.test(after.text)))
        continue;
      if (currencyBefore(tokens, i + 1)) continue;
    } else dropped.add(glued);
    const sp = span(s, end);
    const family = text
      .slice(tokens[s].start, w.end)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]/gu, '');
    mentions.push({ kind: 'identifier', ...sp, norm: sp.written.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''), family });
    use(s, end);
  }
  if (dropped.size) {
    let k = 0;
    for (const m of mentions) if (!dropped.has(m as IdentifierMention)) mentions[k++] = m;
    mentions.length = k;
  }

  // 4. Quantities.
  for (let i = 0; i < tokens.length; i++) {
    if (used[i]) continue;
    const q = readQuantity(text, tokens, i, used, sentenceStart);
    if (!q) continue;
    mentions.push(q.mention);
    use(q.t0, q.t1);
    i = q.t1 - 1;
  }

  // 5. Names, with every span read above masked, so "X200" yields no "X" and "5 GB" no "GB".
  const masked = maskSpans(text, mentions);
  for (const s of nameSpans(masked)) {
    const t0 = tokenAt(tokens, s.start);
    const t1 = tokenAt(tokens, s.end - 1) + 1;
    mentions.push({
      kind: 'name',
      written: s.text,
      start: s.start,
      end: s.end,
      t0,
      t1,
      parts: s.text.toLowerCase().split(/\s+/),
      acronym: /^\p{Lu}{2,}$/u.test(s.text),
    });
  }
  for (const m of mentions) {
    if (m.kind === 'date' && fiscalYear(tokens, m)) m.basis = 'fiscal';
    if (m.kind === 'quantity' && m.dim?.startsWith('money:') && realMoney(tokens, m)) m.basis = 'real';
  }
  mentions.sort((a, b) => a.start - b.start);
  return { text, tokens, mentions };
}

/** "fiscal 2020", "fiscal year 2020", "FY 2020", "the 2020 fiscal year": a year of accounts, not a calendar year. */
function fiscalYear(tokens: Token[], m: DateMention): boolean {
  if (!m.readings.some((r) => r.year)) return false;
  const b = tokens[m.t0 - 1];
  if (isWord(b, 'fiscal', 'fy') || (isWord(b, 'year', 'years') && isWord(tokens[m.t0 - 2], 'fiscal'))) return true;
  return isWord(tokens[m.t1], 'fiscal', 'fy');
}

const CLAUSE_MARKS = new Set([',', ';', '(', ')', ':', '—', '.', '!', '?']);

/**
 * Money in real terms: "inflation-adjusted $5 million", "$5 million adjusted for inflation", "$5 million in real terms",
 * "in constant dollars", "in today's dollars", "in 2020 dollars" (within the figure's clause).
 */
function realMoney(tokens: Token[], m: QuantityMention): boolean {
  for (let k = m.t0 - 1, n = 0; k >= 0 && n < 3 && !(tokens[k].kind === 'mark' && CLAUSE_MARKS.has(tokens[k].text)); k--, n++)
    if (isWord(tokens[k], 'inflation', 'real')) return true;
  for (let k = m.t1, n = 0; k < tokens.length && n < 6 && !(tokens[k].kind === 'mark' && CLAUSE_MARKS.has(tokens[k].text)); k++, n++) {
    const t = tokens[k];
    if (isWord(t, 'inflation')) return true;
    if (isWord(t, 'real', 'constant') && isWord(tokens[k + 1], 'terms', 'dollars', 'prices', 'pounds', 'euros')) return true;
    if (
      isWord(tokens[k + 1], 'dollars', 'pounds', 'euros', 'prices') &&
      (isWord(t, "today's", 'today’s', 'todays') || (t.kind === 'num' && /^[12][0-9]{3}$/.test(t.text)))
    )
      return true;
  }
  return false;
}

/** The first token of the hyphenated word run ending at word token i ("Wi" of "Wi-Fi"); i when none. */
function wordRunStart(tokens: Token[], i: number): number {
  let s = i;
  while (s >= 2 && !tokens[s].spaced && isMark(tokens[s - 1], '-') && !tokens[s - 1].spaced && tokens[s - 2].kind === 'word') s -= 2;
  return s;
}

function maskSpans(text: string, mentions: Mention[]): string {
  if (mentions.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const m of [...mentions].sort((a, b) => a.start - b.start)) {
    if (m.start < at) continue;
    parts.push(text.slice(at, m.start), '#'.repeat(m.end - m.start));
    at = m.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** The token holding character `pos` (binary search on starts). */
function tokenAt(tokens: Token[], pos: number): number {
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tokens[mid].start <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Number at tokens[i] in digits or words, or null ("one" and articles only before a unit of time). */
function readNumber(tokens: Token[], i: number, money: boolean, sentenceStart: (i: number) => boolean): ReadNumber | null {
  const t = tokens[i];
  if (t.kind === 'num') return readDigits(tokens, i, money);
  if (t.kind !== 'word') return null;
  // a capitalised number word inside a sentence is part of a name ("Big Ten", "Seven Network")
  if (/^\p{Lu}/u.test(t.text) && !sentenceStart(i) && t.text !== t.text.toUpperCase()) return null;
  if (/^\p{Lu}/u.test(t.text) && t.text.length > 1 && t.text === t.text.toUpperCase()) return null;
  const r = readNumberWords(tokens, i);
  if (r) {
    // "one" alone is a pronoun as often as a number: only "one week", "one hundred", "one and a half"
    if (t.lower === 'one' && r.end === i + 1 && !unitAfter(tokens, i + 1, false)?.known && !hyphenUnit(tokens, i + 1)) return null;
    return r;
  }
  // "a mile and a half", "an hour and a half": one unit and a fraction, stated
  if (isWord(t, 'a', 'an')) {
    const u = unitAfter(tokens, i + 1, false);
    if (u?.known && andAFraction(tokens, u.end)) return { value: 1, precision: 0, slack: 0, start: i, end: i + 1, words: true, ordinal: false };
  }
  // "a week", "an hour": one of a unit of time, implied (not after "once a", "twice a", "per")
  if (isWord(t, 'a', 'an') && articleUnit(tokens[i + 1]) && !isWord(tokens[i - 1], 'once', 'twice', 'thrice', 'times', 'per', 'every', 'each', 'half')) {
    if (/^(seconds?|sec)$/.test(tokens[i + 1].lower)) return null;
    return { value: 1, precision: 0, slack: 0, start: i, end: i + 1, words: true, ordinal: false, implied: true };
  }
  return null;
}

function readQuantity(
  text: string,
  tokens: Token[],
  i: number,
  used: Uint8Array,
  sentenceStart: (i: number) => boolean,
): { mention: QuantityMention | DateMention; t0: number; t1: number } | null {
  const cur = currencyBefore(tokens, i);
  const first = readNumber(tokens, i, cur !== null, sentenceStart);
  if (!first) return null;
  let end = first.end;
  // ordinal: "3rd", "21st", "twenty-first"
  let ordinal = first.ordinal;
  if (tokens[end] && !tokens[end].spaced && ORDINAL_SUFFIX.has(tokens[end].lower) && tokens[i].kind === 'num') {
    ordinal = true;
    end++;
  }
  // time of day ("3 pm", "10:30") is not a quantity the check compares
  if (isWord(tokens[end], 'am', 'pm', 'a.m', 'p.m') || (isMark(tokens[end], ':') && tokens[end + 1]?.kind === 'num' && !tokens[end].spaced)) return null;
  // a range: "10–14", "10 to 14", "between 10 and 14", "from 10 to 14"
  let second: ReadNumber | null = null;
  const between = isWord(tokens[(cur ? cur.start : i) - 1], 'between');
  const sep = tokens[end];
  if (!ordinal && sep && (isMark(sep, ...DASHES) || isWord(sep, 'to') || (between && isWord(sep, 'and'))) && tokens[end + 1] && !used[end + 1]) {
    const cur2 = currencyBefore(tokens, end + 2) ? 1 : 0;
    const s = readNumber(tokens, end + 1 + (isMark(tokens[end + 1], '$', '€', '£') ? cur2 : 0), cur !== null, sentenceStart);
    if (s && (tokens[i].kind === 'num') === (tokens[end + 1].kind === 'num' || cur2 === 1)) second = s;
  }
  // "between £3.35 and £4.5 million", "2 to 3 billion": a scale written once applies to both ends
  if (second && first.end === i + 1 && second.end > second.start + 1 && tokens[second.end - 1].kind === 'word') {
    const scale = second.value / Number(tokens[second.start].text.replace(/,/g, ''));
    if (scale >= 100 && Number.isFinite(scale)) first.value *= scale;
  }
  const numEnd = second ? second.end : end;
  // a year: a bare four-digit number from 1000 to 2100 with no unit, currency or count noun
  let unitRead = cur ? null : (hyphenUnit(tokens, numEnd) ?? unitAfter(tokens, numEnd));
  const datePreposition = isWord(tokens[i - 1], 'in', 'since', 'by', 'from', 'until', 'till', 'of', 'during', 'before', 'after', 'early', 'late', 'mid');
  // "the 2018–19 academic year", "2019 fiscal year": a year names the year, where "1500 years" counts them
  const namesYear = unitRead?.known === true && /^(year|season)$/.test(tokens[unitRead.end - 1]?.lower ?? '');
  if (!cur && !first.words && !ordinal && yearLike(tokens[i]) && first.end === i + 1 && (datePreposition || namesYear || !countsNotYear(unitRead))) {
    let t1 = i + 1;
    let hi = first.value;
    if (second && (yearLike(tokens[second.start]) || /^[0-9]{2}$/.test(tokens[second.start].text)) && second.end === second.start + 1) {
      const v = second.value < 100 ? Math.floor(first.value / 100) * 100 + second.value : second.value;
      if (v > first.value) {
        hi = v;
        t1 = second.end;
      }
    }
    return { mention: { kind: 'date', ...spanOf(text, tokens, i, t1), readings: [{ year: [first.value, hi] }] }, t0: i, t1 };
  }
  // "a 5-star hotel": a number hyphenated to a word counts that word
  if (!unitRead && isMark(tokens[numEnd], '-') && !tokens[numEnd].spaced && tokens[numEnd + 1]?.kind === 'word' && !tokens[numEnd + 1].spaced) {
    unitRead = { dim: `noun:${tokens[numEnd + 1].lower}`, factor: 1, name: tokens[numEnd + 1].lower, end: numEnd + 2, known: false };
  }
  if (unitRead && /^money:/.test(unitRead.dim) && cur) unitRead = null;
  // "aged 15", "at the age of 15": years
  if (!cur && !unitRead && !first.words && (isWord(tokens[i - 1], 'aged', 'ages') || (isWord(tokens[i - 1], 'of') && isWord(tokens[i - 2], 'age'))))
    unitRead = { dim: 'calendar', factor: 12, name: 'years', end: numEnd, known: true };
  // "68p": pence, glued to the number
  if (!cur && !unitRead && tokens[numEnd]?.text === 'p' && !tokens[numEnd].spaced && tokens[i].kind === 'num')
    unitRead = { dim: 'money:GBP', factor: 0.01, name: 'p', end: numEnd + 1, known: true };
  // a share with no unit ("half of the staff", "a third of voters") is a percentage
  const share = first.fraction === true && !second && !unitRead?.known;
  if (share) unitRead = null;
  let dim: string | null = cur ? `money:${cur.currency}` : share ? 'percent' : unitRead ? unitRead.dim : null;
  if (ordinal) dim = unitRead ? `ordinal:${stem(unitRead.name)}` : 'ordinal';
  const factor = share ? 100 : unitRead?.known && !ordinal ? unitRead.factor : 1;
  // the implied "a week" needs its unit; a count noun is not part of the written detail (it is its context)
  if (first.implied && !unitRead?.known) return null;
  const t0 = cur ? cur.start : i;
  let t1 = unitRead && (unitRead.known || ordinal) ? unitRead.end : numEnd;
  // "two days and a half", "a year and a half": the fraction follows the unit
  const after = unitRead?.known && !second && !ordinal && !share && Number.isInteger(first.value) ? andAFraction(tokens, unitRead.end) : null;
  if (after) {
    first.value += after.value;
    t1 = after.end;
  }
  // "about", "nearly", "more than", "up to"
  const qual = qualifierBefore(tokens, cur ? cur.start : i);
  const v1 = first.value * factor;
  const v2 = (second ? second.value : first.value) * factor;
  let lo = Math.min(v1, v2);
  let hi = Math.max(v1, v2);
  // a share in words is a round figure: "a third" is 33%, "half" about 50%
  let precision = share ? 0.5 : Math.max(first.precision, second?.precision ?? 0) * factor;
  let slack = share ? 5 : Math.max(first.slack, second?.slack ?? 0) * factor;
  if (qual && !second) {
    const ten = 0.1 * Math.abs(v1);
    if (qual.kind === 'about') precision = Math.max(precision, ten);
    else if (qual.kind === 'nearly') lo = v1 - ten;
    else if (qual.kind === 'gt' || qual.kind === 'ge') hi = Infinity;
    else lo = -Infinity;
    slack = Math.max(slack, ten);
  }
  const written = text.slice(tokens[t0].start, tokens[t1 - 1].end);
  return {
    mention: {
      kind: 'quantity',
      written,
      start: tokens[t0].start,
      end: tokens[t1 - 1].end,
      t0,
      t1,
      dim,
      lo,
      hi,
      precision,
      slack,
      raw: second ? [first.value, second.value] : [first.value],
      unit: unitRead?.known ? unitRead.name : '',
      implied: first.implied === true,
    },
    t0,
    t1,
  };
}

function spanOf(text: string, tokens: Token[], t0: number, t1: number): Span {
  return { written: text.slice(tokens[t0].start, tokens[t1 - 1].end), start: tokens[t0].start, end: tokens[t1 - 1].end, t0, t1 };
}
