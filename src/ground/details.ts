/**
 * The deterministic detail check (beyond the design's "cannot verify numerical precision"): the
 * numbers, dates and named entities of a claim must appear in its best evidence. Pure string work,
 * no model: numbers compare by value ("260,000" = "260000", "3.50" = "3.5"), month names and
 * capitalised names compare case-insensitively word by word.
 */

const MONTHS = new Set([
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);

/** Capitalised words that are not names (sentence starters, pronouns, titles of no identifying value). */
const NOT_NAMES = new Set(
  ('i a an the this that these those it its he she they we you his her their our my your there here then when where while ' +
    'what which who whom whose why how if in on at by for from of to with as and or but not no yes also however although ' +
    'after before during since until because so thus therefore both each every all some many most several such other ' +
    'mr mrs ms dr prof sir st').split(' '),
);

const NUMBER_RE = /(?<![\p{L}\p{N}])\d+(?:,\d{3})*(?:\.\d+)?(?![\p{N}])/gu;
const WORD_RE = /\p{L}[\p{L}\p{M}'’.-]*\p{L}|\p{L}/gu;

function numbers(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(NUMBER_RE)) out.set(String(Number(m[0].replace(/,/g, ''))), m[0]);
  return out;
}

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
    const sentenceStart = start === 0 || /[.!?:]\s*$/.test(text.slice(0, start)) || /^\s*$/.test(text.slice(0, start));
    if (!capital || NOT_NAMES.has(lower) || MONTHS.has(lower)) {
      flush();
      continue;
    }
    // A capitalised first word is a name only if it is an acronym or the next word continues the name.
    if (sentenceStart && run.length === 0 && !/^\p{Lu}{2,}$/u.test(w)) {
      const next = /^\s+(\p{Lu}\p{L}*)/u.exec(text.slice(prevEnd));
      if (!next || NOT_NAMES.has(next[1].toLowerCase())) continue;
    }
    run.push(w.replace(/[’']s$/, ''));
  }
  flush();
  return [...new Set(out)];
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
  numbers: Map<string, string>;
  words: Set<string>;
}

export function evidenceDetails(evidence: string): EvidenceDetails {
  return { numbers: numbers(evidence), words: wordSet(evidence) };
}

/** Details of `claim` (numbers, dates, names) absent from `evidence`, as they are written in the claim. */
export function unverifiedDetails(claim: string, evidence: string | EvidenceDetails): string[] {
  const ev = typeof evidence === 'string' ? evidenceDetails(evidence) : evidence;
  const missing: string[] = [];
  const evNumbers = ev.numbers;
  for (const [value, written] of numbers(claim)) if (!evNumbers.has(value)) missing.push(written);
  const evWords = ev.words;
  for (const m of claim.matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    if (MONTHS.has(w) && w.length > 3 && !evWords.has(w) && !evWords.has(w.slice(0, 3))) missing.push(m[0]);
  }
  for (const e of entities(claim)) {
    const parts = e.toLowerCase().split(/\s+/);
    if (parts.some((p) => !evWords.has(p))) missing.push(e);
  }
  return [...new Set(missing)];
}
