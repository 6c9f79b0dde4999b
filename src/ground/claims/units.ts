/**
 * The units a number may carry, for the detail check: units of a dimension with their exact conversions
 * (seconds to weeks, months to centuries, metric prefixes and imperial lengths and masses, areas, data,
 * speed, power, %), currencies by symbol, code and word, and the count noun a number counts ("500 employees").
 */
import { CARDINALS } from './numbers.js';
import { stem, type Token } from './tokens.js';

const isWord = (t: Token | undefined, ...w: string[]) => t !== undefined && t.kind === 'word' && w.includes(t.lower);
const isMark = (t: Token | undefined, m: string) => t !== undefined && t.kind === 'mark' && t.text === m;

/** Dimensions with their units and factors to a base unit. Units of one dimension convert exactly. */
interface UnitDef {
  dim: string;
  factor: number;
  /** The unit as shown ("days"). */
  name: string;
}
const U: Record<string, UnitDef> = {};
function unit(dim: string, factor: number, name: string, ...forms: string[]) {
  for (const f of [name, ...forms]) U[f] = { dim, factor, name };
}
// Time that converts exactly (seconds to weeks), and calendar time (months to centuries); weeks and months do not convert.
unit('time', 1e-3, 'milliseconds', 'millisecond', 'ms', 'msec');
unit('time', 1, 'seconds', 'second', 'sec', 'secs');
unit('time', 60, 'minutes', 'minute', 'min', 'mins');
unit('time', 3600, 'hours', 'hour', 'hr', 'hrs', 'h');
unit('time', 86400, 'days', 'day');
unit('time', 604800, 'weeks', 'week', 'wk', 'wks');
// Working days are not calendar days (ten working days may be two weeks or more): a dimension of their own.
unit('workday', 86400, 'working days', 'working day', 'business days', 'business day', 'work days', 'work day', 'workdays', 'workday');
unit('tradingday', 86400, 'trading days', 'trading day');
unit('schoolday', 86400, 'school days', 'school day');
unit('calendar', 1, 'months', 'month', 'mo', 'mos');
unit('calendar', 12, 'years', 'year', 'yr', 'yrs');
unit('calendar', 120, 'decades', 'decade');
unit('calendar', 1200, 'centuries', 'century');
unit('length', 1e-3, 'millimetres', 'millimetre', 'millimeters', 'millimeter', 'mm');
unit('length', 1e-2, 'centimetres', 'centimetre', 'centimeters', 'centimeter', 'cm');
unit('length', 1, 'metres', 'metre', 'meters', 'meter', 'm');
unit('length', 1e3, 'kilometres', 'kilometre', 'kilometers', 'kilometer', 'km', 'kms');
unit('length', 0.0254, 'inches', 'inch');
unit('length', 0.3048, 'feet', 'foot', 'ft');
unit('length', 0.9144, 'yards', 'yard', 'yd', 'yds');
unit('length', 1609.344, 'miles', 'mile', 'mi');
unit('mass', 1e-3, 'milligrams', 'milligram', 'mg');
unit('mass', 1, 'grams', 'gram', 'g');
unit('mass', 1e3, 'kilograms', 'kilogram', 'kg', 'kgs', 'kilos', 'kilo');
unit('mass', 1e6, 'tonnes', 'tonne', 'metric tons', 't');
unit('mass', 453.59237, 'lb', 'lbs');
unit('mass', 28.349523125, 'ounces', 'ounce', 'oz');
unit('volume', 1e-3, 'millilitres', 'millilitre', 'milliliters', 'milliliter', 'ml');
unit('volume', 1, 'litres', 'litre', 'liters', 'liter', 'l');
unit('area', 1e6, 'square kilometres', 'square kilometers', 'km2', 'km²', 'sq km');
unit('area', 1, 'square metres', 'square meters', 'm2', 'm²', 'sq m');
unit('area', 4046.8564224, 'acres', 'acre');
unit('area', 1e4, 'hectares', 'hectare', 'ha');
unit('area', 2589988.110336, 'square miles', 'sq mi');
unit('data', 1, 'bytes', 'byte');
unit('data', 1e3, 'KB', 'kilobytes', 'kilobyte', 'kB');
unit('data', 1e6, 'MB', 'megabytes', 'megabyte');
unit('data', 1e9, 'GB', 'gigabytes', 'gigabyte');
unit('data', 1e12, 'TB', 'terabytes', 'terabyte');
unit('speed', 1, 'km/h', 'kph', 'kmh', 'kilometres per hour', 'kilometers per hour');
unit('speed', 1.609344, 'mph', 'miles per hour');
unit('power', 1, 'watts', 'watt', 'W');
unit('power', 1e3, 'kilowatts', 'kilowatt', 'kW');
unit('power', 1e6, 'megawatts', 'megawatt', 'MW');
unit('power', 1e9, 'gigawatts', 'gigawatt', 'GW');
unit('frequency', 1e6, 'MHz', 'megahertz');
unit('frequency', 1e9, 'GHz', 'gigahertz');
unit('temperature-c', 1, 'degrees Celsius', '°C', 'celsius');
unit('temperature-f', 1, 'degrees Fahrenheit', '°F', 'fahrenheit');
unit('percent', 1, 'percent', '%', 'per cent', 'pct', 'percentage points', 'percentage point');
unit('multiple', 1, 'times', 'x', 'fold');

/** Units whose short form is case-sensitive ("m" metres vs "M" million, "t" vs "T", "W" watts): looked up as written. */
const CASE_SENSITIVE = new Set(['m', 't', 'h', 'g', 'l', 'W', 'kW', 'MW', 'GW', 'MHz', 'GHz', 'KB', 'kB', 'MB', 'GB', 'TB', 'ms', 'mi', 'ha', 'x']);

/** Currency symbols and codes, to a currency ("$" and "dollars" name a dollar whose country is unsaid). */
const CURRENCY_SYMBOLS: Record<string, string> = {
  $: 'dollar',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
};
const CURRENCY_CODES: Record<string, string> = {
  USD: 'USD',
  US$: 'USD',
  EUR: 'EUR',
  GBP: 'GBP',
  JPY: 'JPY',
  CNY: 'CNY',
  RMB: 'CNY',
  INR: 'INR',
  CAD: 'CAD',
  AUD: 'AUD',
  CHF: 'CHF',
  KRW: 'KRW',
  RUB: 'RUB',
  BRL: 'BRL',
  MXN: 'MXN',
  SEK: 'SEK',
  NOK: 'NOK',
  DKK: 'DKK',
  NZD: 'NZD',
  SGD: 'SGD',
  HKD: 'HKD',
  ZAR: 'ZAR',
};
/** A dollar prefixed by its country: "US$", "A$", "C$", "NZ$", "HK$", "S$". */
const DOLLAR_PREFIX: Record<string, string> = { us: 'USD', a: 'AUD', au: 'AUD', c: 'CAD', ca: 'CAD', nz: 'NZD', hk: 'HKD', s: 'SGD' };
const CURRENCY_WORDS: Record<string, string> = {
  dollar: 'dollar',
  dollars: 'dollar',
  euro: 'EUR',
  euros: 'EUR',
  yen: 'JPY',
  yuan: 'CNY',
  renminbi: 'CNY',
  rupee: 'INR',
  rupees: 'INR',
  francs: 'CHF',
  franc: 'CHF',
  won: 'KRW',
  rubles: 'RUB',
  roubles: 'RUB',
  pounds: 'GBP?',
  pound: 'GBP?',
};

/** Whether two currencies may be the same: "dollar" (country unsaid) is any dollar; "pounds" may be sterling. */
export function sameCurrency(a: string, b: string): boolean {
  const dollars = new Set(['dollar', 'USD', 'AUD', 'CAD', 'NZD', 'HKD', 'SGD']);
  if (a === b) return true;
  if ((a === 'dollar' && dollars.has(b)) || (b === 'dollar' && dollars.has(a))) return true;
  return (a === 'GBP?' && b === 'GBP') || (a === 'GBP' && b === 'GBP?');
}

export interface UnitRead {
  /** "time", "percent", "money:EUR", "noun:employee"... */
  dim: string;
  factor: number;
  name: string;
  end: number;
  known: boolean;
}

/** A currency written before a number at tokens[i-1…]: "$", "€", "US$", "USD", "EUR". Returns the currency and where it starts. */
export function currencyBefore(tokens: Token[], i: number): { currency: string; start: number } | null {
  const p = tokens[i - 1];
  if (!p) return null;
  if (p.kind === 'mark' && CURRENCY_SYMBOLS[p.text]) {
    const q = tokens[i - 2];
    if (p.text === '$' && q?.kind === 'word' && !p.spaced && DOLLAR_PREFIX[q.lower] && q.text === q.text.toUpperCase())
      return { currency: DOLLAR_PREFIX[q.lower], start: i - 2 };
    return { currency: CURRENCY_SYMBOLS[p.text], start: i - 1 };
  }
  if (p.kind === 'word' && CURRENCY_CODES[p.text]) return { currency: CURRENCY_CODES[p.text], start: i - 1 };
  return null;
}

/** Words that are not a count noun after a number ("in 5 of them", "3 to 4"). */
const NOT_NOUNS = new Set(
  'a an the of to and or but in on at by for from with as is are was were be been has have had will would can could may might per than that which who this these those its it their his her our your times later earlier ago old long'.split(
    ' ',
  ),
);

/** The unit after a number at tokens[i]: a known unit (converted), a currency word, or the count noun it counts ("employees"). */
export function unitAfter(tokens: Token[], i: number, allowSkip = true): UnitRead | null {
  const t = tokens[i];
  if (!t) return null;
  // two-word units first: "per cent", "square metres", "percentage points", "miles per hour"
  const two = t && tokens[i + 1] && tokens[i + 1].spaced ? `${t.lower} ${tokens[i + 1].lower}` : '';
  const three = two && tokens[i + 2] ? `${two} ${tokens[i + 2].lower}` : '';
  for (const [form, n] of [
    [three, 3],
    [two, 2],
  ] as const) {
    if (form && U[form] && !CASE_SENSITIVE.has(form)) return { ...U[form], end: i + n, known: true };
  }
  // "km/h", "m²", "°C"
  if (t.kind === 'mark' && t.text === '°' && tokens[i + 1] && !tokens[i + 1].spaced && /^[CF]$/.test(tokens[i + 1].text))
    return { ...U[`°${tokens[i + 1].text}`], end: i + 2, known: true };
  if (t.kind === 'word' && tokens[i + 1]?.text === '/' && tokens[i + 2] && !tokens[i + 1].spaced && !tokens[i + 2].spaced) {
    const form = `${t.lower}/${tokens[i + 2].lower}`;
    if (U[form]) return { ...U[form], end: i + 3, known: true };
  }
  if (t.kind === 'mark' && t.text === '%') return { ...U['%'], end: i + 1, known: true };
  if (t.kind !== 'word') return null;
  // short forms are read as written ("m" metres, "M" million; "W" watts, "w" nothing); other words in any case
  const def = CASE_SENSITIVE.has(t.text) ? U[t.text] : CASE_SENSITIVE.has(t.lower) ? undefined : U[t.lower];
  // a one-letter unit ("m", "h", "g", "t", "l") only glued to its number ("5m", "3h") or before a full stop or comma
  if (def && t.text.length === 1 && t.spaced && !/^[.,;)]$/.test(tokens[i + 1]?.text ?? '.')) return null;
  if (def) return { ...def, end: i + 1, known: true };
  const cur = CURRENCY_WORDS[t.lower];
  if (cur) return { dim: `money:${cur}`, factor: 1, name: t.lower, end: i + 1, known: true };
  // "14 calendar days", "5 more minutes": one word between a number and its unit
  if (allowSkip && /^\p{Ll}+$/u.test(t.text) && !NOT_NOUNS.has(t.lower) && !CARDINALS.has(t.lower)) {
    const next = unitAfter(tokens, i + 1, false);
    if (next?.known && tokens[i + 1].spaced) return next;
  }
  // a count noun: "500 employees", "three children" (lower case; not a function word, nor the next number)
  if (/^\p{Ll}[\p{Ll}'’-]*$/u.test(t.text) && !NOT_NOUNS.has(t.lower) && !CARDINALS.has(t.lower) && t.lower.length > 1)
    return { dim: `noun:${stem(t.lower)}`, factor: 1, name: t.lower, end: i + 1, known: false };
  return null;
}

/** A unit glued after a hyphen ("60-day", "3-year-old", "5-minute"): the unit, and the end past "-old". */
export function hyphenUnit(tokens: Token[], i: number): UnitRead | null {
  if (!(isMark(tokens[i], '-') && !tokens[i].spaced && tokens[i + 1] && !tokens[i + 1].spaced && tokens[i + 1].kind === 'word')) return null;
  const def = U[tokens[i + 1].lower];
  if (!def || def.name.length <= 2) return null;
  let end = i + 2;
  // "3-year-old": an age, in years
  if (isMark(tokens[end], '-') && isWord(tokens[end + 1], 'old')) end += 2;
  return { ...def, end, known: true };
}

/** A unit of time an article can stand for one of ("a week", "an hour"; not "a second", which is an ordinal as often). */
export function articleUnit(t: Token | undefined): UnitDef | null {
  if (!t || t.kind !== 'word') return null;
  return /^(minute|hour|day|week|fortnight|month|year|decade|century)$/.test(t.lower) ? U[t.lower] : null;
}
