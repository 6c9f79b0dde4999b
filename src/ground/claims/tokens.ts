/**
 * The token stream the detail check reads: words, numbers and single marks with their offsets, in one
 * linear pass (a regex with no nested quantifier, so no input shape makes it slow).
 */

export interface Token {
  text: string;
  lower: string;
  start: number;
  end: number;
  kind: 'word' | 'num' | 'mark';
  /** Whitespace stands between this token and the previous one (or it is the first token). */
  spaced: boolean;
}

/** Words (letters and marks, with inner apostrophes), numbers with thousands separators and decimals, vulgar fractions, "--" (a dash in plain text), single marks. */
const TOKEN_RE = /\p{L}[\p{L}\p{M}]*(?:['’]\p{L}[\p{L}\p{M}]*)?|[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?|[½⅓⅔¼¾]|--|[^\s\p{L}\p{N}\p{M}]|\p{N}/gu;

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let prevEnd = 0;
  for (const m of text.matchAll(TOKEN_RE)) {
    const start = m.index ?? 0;
    const t = m[0];
    const kind = /^[0-9]/.test(t) || '½⅓⅔¼¾'.includes(t) ? 'num' : /^\p{L}/u.test(t) ? 'word' : 'mark';
    out.push({ text: t, lower: t.toLowerCase(), start, end: start + t.length, kind, spaced: out.length === 0 || start > prevEnd });
    prevEnd = start + t.length;
  }
  return out;
}

/** Function words: they count for little when two contexts are compared. */
export const STOPWORDS = new Set(
  (
    'a an the this that these those it its he she they we you i his her their our my your there here then when where while what which who whom ' +
    'whose why how if in on at by for from of to with as and or but not no yes also however although after before during since until because ' +
    'so thus therefore both each every all some many most several such other is are was were be been being has have had do does did will would ' +
    'can could may might shall should must than into onto over under about around up down out off again further once only own same too very ' +
    'just per via within without between among across through'
  ).split(' '),
);

/** A word reduced for comparison: lower case, a plural or possessive s dropped. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = w.slice(0, -3) + 'y';
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  return w;
}
