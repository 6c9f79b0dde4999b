/**
 * Numbers as a reader reads them, for the detail check: digits ("1,500", "3.5"), words ("five",
 * "twenty-one", "six hundred", "one thousand, five hundred", "a dozen", "half", "a third", "two and a
 * half"), scale words ("2.1 million", "1 thousand five hundred"),
 * each with the precision it is written to. The units they carry are read in units.ts.
 */
import type { Token } from './tokens.js';

const UNITS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINAL_UNITS =
  'zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth'.split(
    ' ',
  );
const ORDINAL_TENS = ['', '', 'twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];
export const SCALES: Record<string, number> = { hundred: 1e2, thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** Cardinal words below a hundred: "five" 5, "twenty" 20 ("twenty-one" is read as two words joined by a hyphen). */
export const CARDINALS = new Map<string, number>();
UNITS.forEach((w, i) => CARDINALS.set(w, i));
for (let t = 2; t < 10; t++) CARDINALS.set(TENS[t], t * 10);

/** Ordinal words: "ninth" 9, "twentieth" 20 ("twenty-first" is two words joined by a hyphen). */
export const ORDINALS = new Map<string, number>();
ORDINAL_UNITS.forEach((w, i) => ORDINALS.set(w, i));
for (let t = 2; t < 10; t++) ORDINALS.set(ORDINAL_TENS[t], t * 10);

/** Fractions written as words, by denominator ("a third", "two thirds", "three quarters"). */
const FRACTION_WORDS: Record<string, number> = {
  half: 2,
  halves: 2,
  third: 3,
  thirds: 3,
  quarter: 4,
  quarters: 4,
  fourth: 4,
  fourths: 4,
  fifth: 5,
  fifths: 5,
  tenth: 10,
  tenths: 10,
};
const VULGAR: Record<string, number> = { '½': 0.5, '⅓': 1 / 3, '⅔': 2 / 3, '¼': 0.25, '¾': 0.75 };

/** A number read from tokens [start, end): its value and the half-width of the rounding it is written with. */
export interface ReadNumber {
  value: number;
  /** Half a unit of the last written digit: "3.5" ±0.05, "2.1 million" ±50,000, "14" ±0. */
  precision: number;
  /** Trailing zeros of a whole number ("60", "50,000"): how coarsely it may have been rounded (conflicts only). */
  slack: number;
  start: number;
  end: number;
  words: boolean;
  ordinal: boolean;
  /** "a week", "an hour": a quantity implied by an article, never required to appear in the evidence. */
  implied?: boolean;
  /** "half", "a third", "two thirds": a share, compared with percentages when no unit follows. */
  fraction?: boolean;
}

const isWord = (t: Token | undefined, ...w: string[]) => t !== undefined && t.kind === 'word' && w.includes(t.lower);
const isMark = (t: Token | undefined, m: string) => t !== undefined && t.kind === 'mark' && t.text === m;

/** Half a unit of the last digit written ("3.50" → 0.005; "14" → 0). */
function digitPrecision(written: string): number {
  const dot = written.indexOf('.');
  return dot < 0 ? 0 : 0.5 * 10 ** -(written.length - dot - 1);
}

/** Rounding a whole number's trailing zeros may hide, capped at a tenth of it: "60" ±5, "50,000" ±5,000, "1000" ±100. */
function zeroSlack(written: string, value: number): number {
  if (written.includes('.')) return 0;
  const digits = written.replace(/,/g, '');
  const zeros = digits.length - digits.replace(/0+$/, '').length;
  return zeros === 0 || value === 0 ? 0 : Math.min(0.5 * 10 ** zeros, 0.1 * Math.abs(value));
}

/** A cardinal below a thousand in words at tokens[i]: "five", "twenty-one", "twenty one", "three hundred and six" ("a hundred and six" with `article`). */
function smallCardinal(tokens: Token[], i: number, article = false): { value: number; end: number; ordinal: boolean } | null {
  const t = tokens[i];
  if (t?.kind !== 'word') return null;
  let value: number;
  let end = i + 1;
  let ordinal = false;
  const card = article && isWord(t, 'a', 'an') ? 1 : CARDINALS.get(t.lower);
  if (card === undefined) return null;
  value = card;
  // "twenty-one", "twenty-first", "twenty one"
  if (card >= 20 && card % 10 === 0) {
    const hy = isMark(tokens[end], '-') && !tokens[end].spaced && tokens[end + 1] && !tokens[end + 1].spaced ? end + 1 : end;
    const u = tokens[hy];
    const uc = u?.kind === 'word' ? (CARDINALS.get(u.lower) ?? (hy > end ? ORDINALS.get(u.lower) : undefined)) : undefined;
    if (uc !== undefined && uc > 0 && uc < 10) {
      value += uc;
      ordinal = !CARDINALS.has(u.lower);
      end = hy + 1;
    }
  }
  // "three hundred (and) six"
  if (!ordinal && value > 0 && value < 10 && isWord(tokens[end], 'hundred')) {
    value *= 100;
    end++;
    const j = isWord(tokens[end], 'and') ? end + 1 : end;
    const rest = smallCardinal(tokens, j);
    if (rest && rest.value < 100 && rest.value > 0) {
      value += rest.value;
      end = rest.end;
      ordinal = rest.ordinal;
    }
  }
  return { value, end, ordinal };
}

/** "point two", "point seven five" at tokens[i]: the decimal part read digit by digit, and how many digits. */
function decimalWords(tokens: Token[], i: number): { value: number; digits: number; end: number } | null {
  if (!isWord(tokens[i], 'point')) return null;
  let value = 0;
  let digits = 0;
  let end = i + 1;
  for (
    let d = CARDINALS.get(tokens[end]?.lower ?? '');
    tokens[end]?.kind === 'word' && d !== undefined && d < 10;
    d = CARDINALS.get(tokens[end]?.lower ?? '')
  ) {
    digits++;
    value += d * 10 ** -digits;
    end++;
  }
  return digits ? { value, digits, end } : null;
}

/** A scale word at t ("thousand" 1e3, "million" 1e6), or 0. */
const scaleOf = (t: Token | undefined) => (t?.kind === 'word' ? (SCALES[t.lower] ?? 0) : 0);

/** "and a half", "and a quarter", "and three quarters" at tokens[i]: the fraction it adds and where it ends. */
export function andAFraction(tokens: Token[], i: number): { value: number; end: number } | null {
  if (!isWord(tokens[i], 'and')) return null;
  if (isWord(tokens[i + 1], 'a', 'an') && isWord(tokens[i + 2], 'half', 'quarter')) return { value: tokens[i + 2].lower === 'half' ? 0.5 : 0.25, end: i + 3 };
  if (isWord(tokens[i + 1], 'three') && isWord(tokens[i + 2], 'quarters')) return { value: 0.75, end: i + 3 };
  return null;
}

/**
 * The parts of a number after its first scale word, each below the scale before it: "[one thousand] five
 * hundred", "[two million], three hundred and six thousand and twelve", "[1 thousand] five hundred".
 * A part followed by a scale not smaller than the last ("one thousand, two thousand") starts another number;
 * after "between", "and" separates a range ("between one thousand and five hundred"). A last part below a
 * hundred joins only in words, after "and" or right after "thousand" ("a thousand and one", "two thousand
 * twenty", "eleven hundred one"): "$5 million two years ago" and "five million, three of them" are two numbers.
 */
function scaleTail(tokens: Token[], end: number, value: number, last: number, opts: { between: boolean; digits: boolean }): { value: number; end: number } {
  for (;;) {
    let k = end;
    const comma = isMark(tokens[k], ',');
    if (comma) k++;
    // after digits, parts only follow with a space ("$2 million, five hundred of which" is two numbers)
    if (comma && opts.digits) break;
    const and = isWord(tokens[k], 'and') && !opts.between && !opts.digits;
    if (and) k++;
    const part = smallCardinal(tokens, k);
    if (!part || part.ordinal || part.value === 0) break;
    const s = scaleOf(tokens[part.end]);
    if (s >= 1000 && s < last && s > part.value) {
      value += part.value * s;
      last = s;
      end = part.end + 1;
      continue;
    }
    // one before a scale it cannot take ("one thousand fifteen hundred") is no part
    if (s !== 0) break;
    const joins = part.value >= 100 || (!opts.digits && (and || (last <= 1000 && !comma)));
    if (joins) return { value: value + part.value, end: part.end };
    break;
  }
  return { value, end };
}

/**
 * A number in words at tokens[i], or null: cardinals with scales, however the parts are joined ("two
 * million", "a hundred and fifty", "one thousand, five hundred", "fifteen hundred", "a thousand and one"),
 * "a dozen", fractions ("half", "a third", "two thirds", "one and a half", "two and a half million").
 * "one" alone and the article alone are left to the quantity reader (readNumber in mentions.ts), since "one of
 * them" and "a" are no quantities.
 */
export function readNumberWords(tokens: Token[], i: number): ReadNumber | null {
  const t = tokens[i];
  if (t?.kind !== 'word') return null;
  const done = (value: number, end: number, ordinal = false, fraction = false): ReadNumber => ({
    value,
    precision: 0,
    slack: 0,
    start: i,
    end,
    words: true,
    ordinal,
    fraction,
  });
  // "half an hour", "a quarter of an hour": the article (and "of" before it) belongs to the unit; "a quarter of
  // the staff" keeps its "of the" and stays a share of the group
  const share = (value: number, end: number) => {
    const of = isWord(tokens[end], 'of') && isWord(tokens[end + 1], 'a', 'an') ? end + 1 : end;
    return done(value, isWord(tokens[of], 'a', 'an') && tokens[of + 1]?.kind === 'word' ? of + 1 : end, false, true);
  };
  const between = isWord(tokens[i - 1], 'between');
  // "a dozen", "a hundred (and six)", "a thousand (five hundred)", "a third of", "a half", "a quarter of"
  let small: { value: number; end: number; ordinal: boolean } | null = null;
  if (isWord(t, 'a', 'an') || isWord(t, 'one')) {
    const n = tokens[i + 1];
    if (isWord(n, 'dozen')) return done(12, i + 2);
    // "a thousand of them" is no number
    if (scaleOf(n) && isWord(tokens[i + 2], 'of')) return isWord(t, 'one') ? done(SCALES[n.lower], i + 2) : null;
    if (isWord(n, 'hundred')) small = smallCardinal(tokens, i, true);
    else if (scaleOf(n)) small = { value: 1, end: i + 1, ordinal: false };
    else if (isWord(n, 'half')) return share(0.5, i + 2);
    else if (isWord(n, 'third', 'quarter', 'fifth', 'tenth') && isWord(tokens[i + 2], 'of')) return share(1 / FRACTION_WORDS[n.lower], i + 2);
    else if (!isWord(t, 'one')) return null;
  }
  // "half a million" is a number, "half a day" a share of the unit
  if (isWord(t, 'half') && isWord(tokens[i + 1], 'a') && scaleOf(tokens[i + 2]) >= 1000) return done(0.5 * scaleOf(tokens[i + 2]), i + 3);
  if (isWord(t, 'half') && (isWord(tokens[i + 1], 'of', 'an', 'a', 'the') || isWord(tokens[i - 1], 'and', 'one'))) return share(0.5, i + 1);
  if (isWord(t, 'dozen') && !isWord(tokens[i - 1], 'a')) return null;
  small ??= smallCardinal(tokens, i);
  if (!small) return null;
  if (small.ordinal) return done(small.value, small.end, true);
  const point = decimalWords(tokens, small.end);
  if (point) {
    // "one point two million", "three point five": written to the last digit, like "1.2 million", "3.5"
    const s = scaleOf(tokens[point.end]);
    const scale = s >= 1000 ? s : 1;
    const precision = 0.5 * 10 ** -point.digits * scale;
    return { ...done((small.value + point.value) * scale, point.end + (scale > 1 ? 1 : 0)), precision };
  }
  const { value, end } = small;
  // "two thirds", "three quarters"
  const f = tokens[end];
  if (value > 0 && value < 10 && f?.kind === 'word' && FRACTION_WORDS[f.lower] && (value > 1 ? /s$/.test(f.lower) : true) && f.lower !== 'half') {
    if (value > 1 || isWord(tokens[end + 1], 'of')) return share(value / FRACTION_WORDS[f.lower], end + 1);
  }
  // "two dozen"
  if (isWord(tokens[end], 'dozen')) return done(value * 12, end + 1);
  // "two and a half", "two and a half million"
  const frac = andAFraction(tokens, end);
  if (frac) {
    const s = scaleOf(tokens[frac.end]);
    return s >= 1000 ? done((value + frac.value) * s, frac.end + 1) : done(value + frac.value, frac.end);
  }
  // "fifteen hundred (and six)", "two million", "six hundred thousand", "a hundred thousand", then the parts below
  const s = scaleOf(tokens[end]);
  if (s && s > value && value > 0) {
    const tail = scaleTail(tokens, end + 1, value * s, s, { between, digits: false });
    // "a million and a half", "two thousand and a half"
    const half = tail.end === end + 1 ? andAFraction(tokens, tail.end) : null;
    return half ? done(tail.value + half.value * s, half.end) : done(tail.value, tail.end);
  }
  return done(value, end);
}

/** A number in digits at tokens[i] ("1,500", "3.5", "½", "2 ½"), with its scale word ("2.1 million", "$3bn"). */
export function readDigits(tokens: Token[], i: number, money = false): ReadNumber | null {
  const t = tokens[i];
  if (t?.kind !== 'num') return null;
  let value = VULGAR[t.text] ?? Number(t.text.replace(/,/g, ''));
  if (!Number.isFinite(value)) return null;
  let precision = VULGAR[t.text] !== undefined ? 0 : digitPrecision(t.text);
  let slack = VULGAR[t.text] !== undefined ? 0 : zeroSlack(t.text, value);
  let end = i + 1;
  // "2 ½"
  if (VULGAR[tokens[end]?.text] !== undefined && tokens[end].spaced === false && !t.text.includes('.')) {
    value += VULGAR[tokens[end].text];
    end++;
  }
  const s = tokens[end];
  const scaleWord = s?.kind === 'word' ? s.lower : '';
  // "2.1 million", "3bn", "$5M", "$3B", "€2k": letter scales only glued to the number or after a currency
  const glued = s !== undefined && !s.spaced;
  const scale =
    SCALES[scaleWord] && (scaleWord !== 'hundred' || !t.text.includes('.'))
      ? SCALES[scaleWord]
      : (glued || money) && (scaleWord === 'bn' || (money && s?.text === 'B'))
        ? 1e9
        : (glued || money) && (scaleWord === 'mn' || scaleWord === 'mln' || (money && (s?.text === 'M' || s?.text === 'm')))
          ? 1e6
          : money && glued && (s?.text === 'k' || s?.text === 'K')
            ? 1e3
            : 0;
  if (scale) {
    value *= scale;
    // "2 million" is written to the million; "2.1 million" to the hundred thousand
    precision = precision ? precision * scale : 0;
    slack = precision ? 0 : Math.min(0.5 * scale, 0.1 * value);
    end++;
    // "1 thousand five hundred", "2 million three hundred thousand": the parts below in words
    if (scale >= 1000 && SCALES[scaleWord] && !precision && !t.text.includes('.')) {
      const tail = scaleTail(tokens, end, value, scale, { between: isWord(tokens[i - 1], 'between'), digits: true });
      if (tail.end > end) {
        value = tail.value;
        end = tail.end;
        slack = zeroSlack(String(value), value);
      }
    }
  }
  return { value, precision, slack, start: i, end, words: false, ordinal: false };
}
