/**
 * The perturbation generator of `npm run bench:contradictions`: from a claim its evidence supports, make
 * claims that differ in exactly one detail (a number in digits or in words, a date, a unit or a
 * percentage, a name), keeping every other word; and restatements that keep the meaning (the number in
 * words, the quantity in another unit, a range around it), which must not be called contradictions.
 *
 * It is generic on purpose (it will run on data it has not seen) and independent of the detector: it finds
 * details with its own small patterns, not with mentions.ts, so a form the detector misreads is still
 * perturbed. Every choice comes from a seeded generator.
 */
export { mulberry32 as seededRandom } from '../../src/core/prng.js';

export const PERTURB_KINDS = ['digits', 'number_words', 'dates', 'units_or_percentages', 'entities'] as const;
export type PerturbKind = (typeof PERTURB_KINDS)[number];
export const RESTATE_KINDS = ['number_words', 'unit_conversion', 'range'] as const;
export type RestateKind = (typeof RESTATE_KINDS)[number];

export interface Variant<K extends string> {
  kind: K;
  claim: string;
  /** The detail as the source claim writes it, and as the variant writes it. */
  from: string;
  to: string;
}

/** A seed for one item from the run's seed and the item's id, so an item's variants do not depend on the others. */
export function itemSeed(seed: number, id: string): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const SMALL = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** A whole number below a hundred in words ("twenty-one"). */
export function inWords(n: number): string {
  if (n < 20) return SMALL[n];
  return TENS[Math.floor(n / 10)] + (n % 10 ? `-${SMALL[n % 10]}` : '');
}

const WORD_VALUES = new Map<string, number>();
for (let n = 2; n < 100; n++) WORD_VALUES.set(inWords(n), n);
const NUMBER_WORD_RE = new RegExp(`\\b(${[...WORD_VALUES.keys()].sort((a, b) => b.length - a.length).join('|')})\\b`, 'gi');

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Units a number may carry, by family; a unit perturbation moves to another unit of the family (no conversion). */
const UNIT_FAMILIES: string[][] = [
  ['seconds', 'minutes', 'hours'],
  ['minutes', 'hours', 'days'],
  ['days', 'weeks', 'months'],
  ['weeks', 'months', 'years'],
  ['months', 'years', 'decades'],
  ['millimetres', 'centimetres', 'metres'],
  ['metres', 'kilometres', 'miles'],
  ['kilometres', 'miles'],
  ['feet', 'metres', 'yards'],
  ['grams', 'kilograms', 'pounds'],
  ['kilograms', 'tonnes', 'pounds'],
  ['megabytes', 'gigabytes', 'terabytes'],
];
const SINGULAR: Record<string, string> = {
  seconds: 'second',
  minutes: 'minute',
  hours: 'hour',
  days: 'day',
  weeks: 'week',
  months: 'month',
  years: 'year',
  decades: 'decade',
  millimetres: 'millimetre',
  centimetres: 'centimetre',
  metres: 'metre',
  kilometres: 'kilometre',
  miles: 'mile',
  feet: 'foot',
  yards: 'yard',
  grams: 'gram',
  kilograms: 'kilogram',
  pounds: 'pound',
  tonnes: 'tonne',
  megabytes: 'megabyte',
  gigabytes: 'gigabyte',
  terabytes: 'terabyte',
};
const PLURAL = Object.fromEntries(Object.entries(SINGULAR).map(([p, s]) => [s, p]));
const UNIT_RE = new RegExp(
  `\\b(\\d[\\d,]*(?:\\.\\d+)?|${[...WORD_VALUES.keys()].join('|')}|one|a|an)([ -])(${Object.keys(SINGULAR).concat(Object.values(SINGULAR)).join('|')})\\b`,
  'gi',
);
const PERCENT_RE = /\b(\d+(?:\.\d+)?)(\s?%|\s(?:percent|per cent)\b)/gi;
const CURRENCY_RE = /([$€£])(\d[\d,]*(?:\.\d+)?)|\b(\d[\d,]*(?:\.\d+)?)\s(dollars|euros|pounds sterling)\b/g;
const SWAP_CURRENCY: Record<string, string> = { $: '€', '€': '£', '£': '$', dollars: 'euros', euros: 'dollars', 'pounds sterling': 'euros' };

/** Digit numbers that are not part of an identifier ("X200", "5G", "COVID-19") or a date. */
const DIGITS_RE =
  /(?<![\p{L}\p{N}.,/:–—-])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\p{L}\p{N}]|[.,/:–—-]\d)|(?<![\p{L}\p{N}.,/:–—-])\d+(?:\.\d+)?(?![\p{L}\p{N}]|[.,/:–—-]\d|-\p{L})/gu;
const isYear = (s: string) => /^\d{4}$/.test(s) && Number(s) >= 1000 && Number(s) <= 2100;
const MONTH_ALT = MONTHS.join('|');
const nextToMonth = (claim: string, start: number, end: number) =>
  new RegExp(`(${MONTH_ALT})\\s*$`).test(claim.slice(Math.max(0, start - 12), start)) ||
  new RegExp(`^\\s*(of\\s+)?(${MONTH_ALT})\\b`).test(claim.slice(end, end + 14));

interface Span {
  start: number;
  end: number;
  text: string;
}

function matches(re: RegExp, s: string): (Span & { m: RegExpMatchArray })[] {
  return [...s.matchAll(re)].map((m) => ({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, text: m[0], m }));
}

const splice = (s: string, sp: { start: number; end: number }, to: string) => s.slice(0, sp.start) + to + s.slice(sp.end);

/** Plain digit numbers that are neither years nor days of a month, as candidates. */
function digitNumbers(claim: string): Span[] {
  return matches(DIGITS_RE, claim).filter((d) => !isYear(d.text) && !nextToMonth(claim, d.start, d.end));
}

/** A clearly different value written like the original (thousands separators, decimals kept). */
export function changedValue(rnd: () => number, written: string): string {
  const plain = written.replace(/,/g, '');
  const decimals = plain.includes('.') ? plain.length - plain.indexOf('.') - 1 : 0;
  const v = Number(plain);
  let next = v;
  for (let tries = 0; next === v || next < 0; tries++) {
    const delta = Math.max(decimals ? 10 ** -decimals : 1, Math.abs(v) * (0.2 + 0.6 * rnd()));
    next = v - delta >= 0 && rnd() < 0.5 ? v - delta : v + delta;
    next = decimals ? Number(next.toFixed(decimals)) : Math.round(next);
    if (tries > 20) next = v + 1;
  }
  const s = decimals ? next.toFixed(decimals) : String(next);
  return written.includes(',') ? Number(s).toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }) : s;
}

/** Capitalised names of a text: runs of capitalised words not starting a sentence and not months (the generator's own rule). */
export function namesIn(text: string): Span[] {
  const out: Span[] = [];
  const re = /\b\p{Lu}[\p{L}'’-]*(?:\s+(?:(?:of|de|van|von|der|la|le|du)\s+)?\p{Lu}[\p{L}'’-]*)*/gu;
  for (const m of text.matchAll(re)) {
    const start = m.index ?? 0;
    const before = text.slice(Math.max(0, start - 3), start);
    if (start === 0 || /[.!?:"“]\s*$/.test(before) || /^\s*$/.test(text.slice(0, start))) continue;
    const name = m[0].replace(/['’]s$/, '');
    if (MONTHS.includes(name) || /^(I|A|The|In|On|At|He|She|It|They|We|This|That|His|Her|Its|Their|And|But|Or|Of|For)$/.test(name) || name.length < 3) continue;
    if (/^\p{Lu}+$/u.test(name) && name.length <= 3) continue;
    out.push({ start, end: start + name.length, text: name });
  }
  return out;
}

/** One variant per perturbation kind that applies to the claim (each kind picks one of its candidates at random). */
export function perturbations(claim: string, rnd: () => number, options: { names?: readonly string[]; evidence?: string } = {}): Variant<PerturbKind>[] {
  const out: Variant<PerturbKind>[] = [];
  const add = (kind: PerturbKind, sp: { start: number; end: number; text: string }, to: string) => {
    if (to !== sp.text) out.push({ kind, claim: splice(claim, sp, to), from: sp.text, to });
  };

  const digits = digitNumbers(claim);
  if (digits.length) {
    const d = pick(rnd, digits);
    add('digits', d, changedValue(rnd, d.text));
  }

  // a number in words becomes another; without one, a small whole number in digits is rewritten in words with another value
  const words = matches(NUMBER_WORD_RE, claim);
  const small = digits.filter((d) => /^\d{1,2}$/.test(d.text));
  if (words.length) {
    const w = pick(rnd, words);
    const v = WORD_VALUES.get(w.text.toLowerCase()) as number;
    let n = v;
    while (n === v) n = pick(rnd, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, 25, 30, 40, 50, 60, 75, 90]);
    const to = inWords(n);
    add('number_words', w, /^\p{Lu}/u.test(w.text) ? to[0].toUpperCase() + to.slice(1) : to);
  } else if (small.length) {
    const d = pick(rnd, small);
    let n = Number(d.text);
    while (n === Number(d.text) || n < 2) n = Number(changedValue(rnd, d.text));
    add('number_words', d, inWords(Math.min(n, 99)));
  }

  // a year moves, a month changes, or a day of a month changes
  const years = matches(/(?<![\p{L}\p{N}.,$€£-])\d{4}(?![\p{L}\p{N}]|[.,]\d)/gu, claim).filter((y) => isYear(y.text));
  const months = matches(new RegExp(`\\b(${MONTH_ALT})\\b`, 'g'), claim).filter((m) => m.text !== 'May' || /\d/.test(claim.slice(m.end, m.end + 4)));
  const days = matches(/\b([1-9]|[12]\d|3[01])\b/g, claim).filter((d) => nextToMonth(claim, d.start, d.end));
  const dateKinds = [years.length ? 'y' : '', months.length ? 'm' : '', days.length ? 'd' : ''].filter(Boolean);
  if (dateKinds.length) {
    const k = pick(rnd, dateKinds);
    if (k === 'y') {
      const y = pick(rnd, years);
      let shift = 0;
      while (shift === 0) shift = Math.round((rnd() * 2 - 1) * 15);
      add('dates', y, String(Number(y.text) + shift));
    } else if (k === 'm') {
      const m = pick(rnd, months);
      let to = m.text;
      while (to === m.text || to === 'May') to = pick(rnd, MONTHS);
      add('dates', m, to);
    } else {
      const d = pick(rnd, days);
      let to = Number(d.text);
      while (to === Number(d.text)) to = 1 + Math.floor(rnd() * 28);
      add('dates', d, String(to));
    }
  }

  // a unit becomes another of its family, a percentage changes, or a currency changes
  // "a second" is an ordinal as often as a unit
  const units = matches(UNIT_RE, claim).filter((x) => !(/^(a|an|one)$/i.test(x.m[1]) && /^seconds?$/i.test(x.m[3])));
  const percents = matches(PERCENT_RE, claim);
  const currencies = matches(CURRENCY_RE, claim);
  const unitKinds = [units.length ? 'u' : '', percents.length ? 'p' : '', currencies.length ? 'c' : ''].filter(Boolean);
  if (unitKinds.length) {
    const k = pick(rnd, unitKinds);
    if (k === 'u') {
      const u = pick(rnd, units);
      const unit = u.m[3].toLowerCase();
      const plural = PLURAL[unit] === undefined;
      const base = plural ? unit : PLURAL[unit];
      const family = pick(
        rnd,
        UNIT_FAMILIES.filter((f) => f.includes(base)),
      );
      let to = base;
      while (to === base) to = pick(rnd, family);
      const written = plural || u.m[2] === '-' ? (u.m[2] === '-' ? SINGULAR[to] : to) : SINGULAR[to];
      add('units_or_percentages', u, `${u.m[1]}${u.m[2]}${written}`);
    } else if (k === 'p') {
      const p = pick(rnd, percents);
      add('units_or_percentages', p, `${changedValue(rnd, p.m[1])}${p.m[2]}`);
    } else {
      const c = pick(rnd, currencies);
      add('units_or_percentages', c, c.m[1] ? `${SWAP_CURRENCY[c.m[1]]}${c.m[2]}` : `${c.m[3]} ${SWAP_CURRENCY[c.m[4]]}`);
    }
  }

  // a name becomes a name from elsewhere in the data that the evidence does not mention
  const names = namesIn(claim);
  if (names.length && options.names?.length) {
    const n = pick(rnd, names);
    const evidence = (options.evidence ?? '').toLowerCase();
    const words = n.text.split(/\s+/).length;
    const fits = options.names.filter((x) => x !== n.text && !evidence.includes(x.toLowerCase()) && !claim.includes(x));
    const same = fits.filter((x) => x.split(/\s+/).length === words);
    const pool = same.length ? same : fits;
    if (pool.length) add('entities', n, pick(rnd, pool));
  }
  return out;
}

/** Restatements that keep the claim's meaning: a digit number in words, a quantity in another unit, a range around a value. */
export function restatements(claim: string, rnd: () => number): Variant<RestateKind>[] {
  const out: Variant<RestateKind>[] = [];
  const small = digitNumbers(claim).filter((d) => /^\d{1,2}$/.test(d.text) && Number(d.text) >= 2);
  if (small.length) {
    const d = pick(rnd, small);
    out.push({ kind: 'number_words', claim: splice(claim, d, inWords(Number(d.text))), from: d.text, to: inWords(Number(d.text)) });
  }
  const conversions: [RegExp, (n: number) => string | null][] = [
    [/\b(\d+) days\b/g, (n) => (n % 7 === 0 ? `${n / 7} week${n === 7 ? '' : 's'}` : null)],
    [/\b(\d+) weeks\b/g, (n) => `${n * 7} days`],
    [/\b(\d+) hours\b/g, (n) => `${n * 60} minutes`],
    [/\b(\d+) minutes\b/g, (n) => (n % 60 === 0 ? `${n / 60} hour${n === 60 ? '' : 's'}` : `${n * 60} seconds`)],
    [/\b(\d+) years\b/g, (n) => `${n * 12} months`],
    [/\b(\d+) kilometres\b|\b(\d+) kilometers\b|\b(\d+) km\b/g, (n) => `${n * 1000} metres`],
    [/\b(\d+(?:\.\d+)?)%/g, (n) => `${n} percent`],
    [/\b(\d+(?:\.\d+)?) per ?cent\b/g, (n) => `${n}%`],
  ];
  const conv = conversions.flatMap(([re, f]) =>
    matches(re, claim)
      .map((m) => ({ m, to: f(Number(m.m[1] ?? m.m[2] ?? m.m[3])) }))
      .filter((x) => x.to !== null),
  );
  if (conv.length) {
    const c = pick(rnd, conv);
    out.push({ kind: 'unit_conversion', claim: splice(claim, c.m, c.to as string), from: c.m.text, to: c.to as string });
  }
  const plain = digitNumbers(claim).filter((d) => /^\d+$/.test(d.text) && Number(d.text) >= 4);
  if (plain.length) {
    const d = pick(rnd, plain);
    const v = Number(d.text);
    const w = Math.max(1, Math.round(v * (0.1 + 0.2 * rnd())));
    const to = `${v - w}–${v + w}`;
    out.push({ kind: 'range', claim: splice(claim, d, to), from: d.text, to });
  }
  return out;
}
