/**
 * The deterministic detail check (beyond the design's "cannot verify numerical precision"): the
 * numbers, dates and named entities of a claim must appear in its best evidence. Pure string work,
 * no model:
 * - numbers compare by value: "260,000" = "260000", "3.50" = "3.5", "2.1 million" = "2,100,000", and the
 *   evidence's number words count too ("twelve", "ninth", "sixty-six"); "2018–19" also reads as 2019;
 * - month names (capitalised; "May" and three-letter forms only next to a number) compare by name;
 * - names (runs of capitalised words, acronyms) compare case-insensitively word by word, and an acronym
 *   is also found as the initials of a capitalised run in the evidence ("WHO" in "World Health Organization").
 */

const MONTHS = new Set([
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/** Capitalised words that are not names (sentence starters, pronouns, titles of no identifying value). */
const NOT_NAMES = new Set(
  (
    'i a an the this that these those it its he she they we you his her their our my your there here then when where while ' +
    'what which who whom whose why how if in on at by for from of to with as and or but not no yes also however although ' +
    'after before during since until because so thus therefore both each every all some many most several such other ' +
    'mr mrs ms dr prof sir st'
  ).split(' '),
);

const UNITS = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINAL_UNITS =
  'zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth'.split(
    ' ',
  );
const ORDINAL_TENS = ['', '', 'twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];
const SCALES: Record<string, number> = { hundred: 1e2, thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** Number words of the evidence and their values ("twelve" 12, "ninth" 9, "sixty-six" 66, "hundred" 100). */
const NUMBER_WORDS = new Map<string, number>();
UNITS.forEach((w, i) => NUMBER_WORDS.set(w, i));
ORDINAL_UNITS.forEach((w, i) => NUMBER_WORDS.set(w, i));
for (let t = 2; t < 10; t++) {
  NUMBER_WORDS.set(TENS[t], t * 10);
  NUMBER_WORDS.set(ORDINAL_TENS[t], t * 10);
  for (let u = 1; u < 10; u++) {
    NUMBER_WORDS.set(`${TENS[t]}-${UNITS[u]}`, t * 10 + u);
    NUMBER_WORDS.set(`${TENS[t]}-${ORDINAL_UNITS[u]}`, t * 10 + u);
  }
}
for (const [w, v] of Object.entries(SCALES)) NUMBER_WORDS.set(w, v);

const NUMBER_RE = /(?<![\p{L}\p{N}])\d+(?:,\d{3})*(?:\.\d+)?(?![\p{N}])/gu;
const WORD_RE = /\p{L}[\p{L}\p{M}'’.-]*\p{L}|\p{L}/gu;
const SCALE_AFTER = /^\s*(hundred|thousand|million|billion|trillion)\b/i;
const YEAR_RANGE_BEFORE = /(\d{2})\d{2}\s*[–-]\s*$/;

/** Each number of a text: as written, and the values it may stand for. */
function numberMentions(text: string): { written: string; values: string[] }[] {
  const out: { written: string; values: string[] }[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    const value = Number(m[0].replace(/,/g, ''));
    const values = [String(value)];
    const end = (m.index ?? 0) + m[0].length;
    const scale = SCALE_AFTER.exec(text.slice(end, end + 12));
    if (scale) values.push(String(Math.round(value * SCALES[scale[1].toLowerCase()] * 1e6) / 1e6));
    // "2018–19": the second year written with two digits
    const century = m[0].length === 2 ? YEAR_RANGE_BEFORE.exec(text.slice(Math.max(0, (m.index ?? 0) - 8), m.index))?.[1] : undefined;
    if (century) values.push(String(Number(century) * 100 + value));
    out.push({ written: m[0], values });
  }
  return out;
}

/** Whether the word at `start` stands next to a number ("May 2018", "1 May"): then "May" is a month. */
function nextToNumber(text: string, start: number, end: number): boolean {
  return /\d[\s,.]*$/.test(text.slice(Math.max(0, start - 6), start)) || /^[\s,.]*\d/.test(text.slice(end, end + 6));
}

/**
 * Whether `start` begins a sentence: only whitespace before it back to the text's start or a . ! ? or :
 * (scanned backwards over the whitespace only, so a long claim stays linear).
 */
function afterSentenceEnd(text: string, start: number): boolean {
  let i = start;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i === 0 || '.!?:'.includes(text[i - 1]);
}

/** A capitalised word after whitespace, matched in place (sticky) rather than on a copy of the rest. */
const NEXT_CAPITAL = /\s+(\p{Lu}\p{L}*)/uy;

/** Named-entity candidates: runs of capitalised words (or acronyms), skipping a sentence-initial common word. */
export function entities(text: string): string[] {
  const out: string[] = [];
  let run: string[] = [];
  let prevEnd = -1;
  const flush = () => {
    if (run.length) out.push(run.join(' '));
    run = [];
  };
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0];
    const start = m.index ?? 0;
    const gap = text.slice(prevEnd, start);
    if (prevEnd >= 0 && !/^[\s]+$/.test(gap)) flush();
    prevEnd = start + w.length;
    const lower = w.toLowerCase();
    const capital = /^\p{Lu}/u.test(w);
    const acronym = /^\p{Lu}{2,}$/u.test(w);
    const sentenceStart = afterSentenceEnd(text, start);
    // "3B", "5G": a letter glued to a number is a unit or a model name, not a name on its own
    const glued = start > 0 && /\p{N}/u.test(text[start - 1]);
    if (!capital || glued || (NOT_NAMES.has(lower) && !acronym) || MONTHS.has(lower)) {
      flush();
      continue;
    }
    // A capitalised first word is a name only if it is an acronym or the next word continues the name.
    if (sentenceStart && run.length === 0 && !acronym) {
      NEXT_CAPITAL.lastIndex = prevEnd;
      const next = NEXT_CAPITAL.exec(text);
      if (!next || NOT_NAMES.has(next[1].toLowerCase())) continue;
    }
    run.push(w.replace(/[’']s$/, ''));
  }
  flush();
  return [...new Set(out)];
}

const MAX_ACRONYM = 12;

/** Initials of capitalised runs ("World Health Organization" → "who"; "of", "and", "for", "the" may sit inside). */
function initials(text: string, into: Set<string>): void {
  const runs = text.split(/[^\p{L}\p{M}'’&-]+/u);
  let caps: string[] = [];
  const flush = () => {
    // Acronyms are short: a run of hundreds of capitalised words must not add every one of its sub-runs.
    for (let i = 0; i < caps.length; i++) for (let j = i + 2; j <= Math.min(caps.length, i + MAX_ACRONYM); j++) into.add(caps.slice(i, j).join(''));
    caps = [];
  };
  for (const w of runs) {
    if (/^\p{Lu}/u.test(w)) caps.push(w[0].toLowerCase());
    else if (!(caps.length && /^(of|and|for|the|on|&)$/.test(w))) flush();
  }
  flush();
}

function wordSet(text: string): Set<string> {
  const s = new Set<string>();
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    s.add(w);
    // the word without a possessive 's (what w.replace(/['’]s$/, '') gives, without a regex per word)
    const n = w.length;
    if (n > 2 && w.charCodeAt(n - 1) === 115 && (w[n - 2] === "'" || w[n - 2] === '’')) s.add(w.slice(0, n - 2));
  }
  return s;
}

/** What the detail check needs from one evidence text; computed once per text and reused across claims. */
export interface EvidenceDetails {
  /** Values of the numbers and number words. */
  numbers: Set<string>;
  words: Set<string>;
  /** Initials of capitalised runs, lower-case. */
  acronyms: Set<string>;
  /** Months named in the evidence, by their first three letters ("sep" for September and Sept.). */
  months: Set<string>;
}

export function evidenceDetails(evidence: string): EvidenceDetails {
  const numbers = new Set<string>();
  for (const n of numberMentions(evidence)) for (const v of n.values) numbers.add(v);
  const words = wordSet(evidence);
  for (const w of words) {
    const v = NUMBER_WORDS.get(w);
    if (v !== undefined) numbers.add(String(v));
  }
  // "six hundred", "two million": scaled number words
  for (const m of evidence.toLowerCase().matchAll(/\b([a-z]+(?:-[a-z]+)?)\s+(hundred|thousand|million|billion|trillion)\b/g)) {
    const v = NUMBER_WORDS.get(m[1]);
    if (v !== undefined) numbers.add(String(v * SCALES[m[2]]));
  }
  const acronyms = new Set<string>();
  initials(evidence, acronyms);
  const months = new Set<string>();
  for (const w of words) if (MONTHS.has(w)) months.add(w.slice(0, 3));
  return { numbers, words, acronyms, months };
}

/** Details of `claim` (numbers, dates, names) absent from `evidence`, as they are written in the claim. */
export function unverifiedDetails(claim: string, evidence: string | EvidenceDetails): string[] {
  const ev = typeof evidence === 'string' ? evidenceDetails(evidence) : evidence;
  const missing: string[] = [];
  for (const n of numberMentions(claim)) if (!n.values.some((v) => ev.numbers.has(v))) missing.push(n.written);
  const evWords = ev.words;
  for (const m of claim.matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    if (!MONTHS.has(w) || !/^\p{Lu}/u.test(m[0])) continue; // "march" or "may" in lower case are verbs
    const start = m.index ?? 0;
    if ((w.length <= 3 || w === 'sept') && !nextToNumber(claim, start, start + m[0].length)) continue; // "May" the modal, "Jan" the name
    if (!ev.months.has(w.slice(0, 3))) missing.push(m[0]);
  }
  for (const e of entities(claim)) {
    const parts = e.toLowerCase().split(/\s+/);
    if (parts.every((p) => evWords.has(p))) continue;
    if (parts.length === 1 && /^\p{Lu}{2,}$/u.test(e) && ev.acronyms.has(parts[0])) continue;
    missing.push(e);
  }
  return [...new Set(missing)];
}
