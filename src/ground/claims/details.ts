/**
 * The detail check (beyond the design's "cannot verify numerical precision"): each number, quantity,
 * date, identifier and name of a claim is looked for in its evidence, after normalising (see mentions.ts).
 * A detail ends in one of three ways:
 * - verified: the evidence states it, in any written form ("two weeks" for "14 days", "five" for "5",
 *   a range the evidence value lies in, the same value rounded);
 * - contradicted: the evidence states a different value in the same place: a detail of the same kind
 *   (the same unit dimension, currency, date field, identifier family) in a sentence that matches the
 *   claim and in the same local context ("returned within 14 days" against "returned within 60 days");
 * - missing: the evidence does not mention it. That lowers support; it is not a contradiction.
 */
import { MONTHS, entities, initials } from './entities.js';
import { CARDINALS, ORDINALS, SCALES } from './numbers.js';
import { sameCurrency } from './units.js';
import { extractMentions, type DateMention, type DateReading, type Mention, type QuantityMention, type TextMentions } from './mentions.js';
import { STOPWORDS, type Token } from './tokens.js';
import { maxOf } from '../../core/arrays.js';
import { segmentClaimSpans } from './claims.js';

export { entities };

/** A claim's detail and the evidence's detail it conflicts with. */
export interface Conflict {
  claim: string;
  evidence: string;
}

export interface DetailCheck {
  /** Details the evidence does not mention, as written in the claim. */
  missing: string[];
  /** Details the evidence states differently. */
  conflicts: Conflict[];
  /**
   * With `restate`, when every detail is verified and one is written otherwise in the evidence ("two weeks" for
   * "14 days"): the claim with those details written as the evidence writes them, so its other words can be scored alone.
   */
  restated?: string;
}

interface Located {
  mention: Mention;
  left: string[];
  right: string[];
  /** Content stems of the sentence holding it. */
  sentence: Set<string>;
  /** The word just before it, lower-case ("in" of "in Brooklyn"). */
  before: string;
  /** It opens a bracket: for a name, another name of what precedes it ("the Senate (Eerste Kamer)"). */
  bracketed: boolean;
}

/** What the detail check needs from one evidence text; computed once per text and reused across claims. */
export interface EvidenceDetails {
  located: Located[];
  /** Every numeric value written (digits, number words, ordinals), for bare numbers of a claim. */
  numbers: Set<string>;
  words: Set<string>;
  /** Initials of capitalised runs, lower-case ("who" for "World Health Organization"). */
  acronyms: Set<string>;
  /** Letters and digits of every run of up to four tokens that mixes them ("gpt4o" for "GPT 4o"). */
  identifiers: Set<string>;
  /** Roots of the words ("president" for "President's" and "Presidents'"). */
  roots: Set<string>;
  /** Months named anywhere (1–12). */
  months: Set<number>;
}

const WORD_RE = /\p{L}[\p{L}\p{M}'’.-]*\p{L}|\p{L}/gu;

function wordSet(text: string): Set<string> {
  const s = new Set<string>();
  for (const m of text.matchAll(WORD_RE)) {
    const w = m[0].toLowerCase();
    s.add(w);
    // "pro-ukrainian" states "ukrainian" too
    if (w.includes('-')) for (const part of w.split('-')) if (part) s.add(part);
    // the word without a possessive 's (what w.replace(/['’]s$/, '') gives, without a regex per word)
    const n = w.length;
    if (n > 2 && w.charCodeAt(n - 1) === 115 && (w[n - 2] === "'" || w[n - 2] === '’')) s.add(w.slice(0, n - 2));
  }
  return s;
}

/** A word reduced for comparing contexts: "returned", "returns", "returning" → "return". */
function root(word: string): string {
  let w = word.toLowerCase().replace(/['’]s$/, '');
  for (const suffix of ['ing', 'ed', 'es', 's', 'ly']) {
    if (w.length - suffix.length >= 3 && w.endsWith(suffix) && !(suffix === 's' && /(ss|us|is)$/.test(w))) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w;
}

const CONTEXT = 4;
const BOUNDARY = '\u0000';
const STOPS = new Set(['.', '!', '?']);

/** Marks that end a clause or a list item: "68p for UKIP, 26p for Labour" gives each figure its own context. */
const CLAUSE = new Set([',', ';', '(', ')', ':', '—', '[', ']']);

/**
 * Up to CONTEXT words on one side of a detail, within its sentence (`sid`: the sentence of each token, from the
 * sentence splitter, so the full stop of "Warner Bros." ends nothing): a sentence end or a semicolon counts as a
 * context item, a clause mark ends the context (past two words); words of other figures ("p" of "26p") are skipped.
 */
function side(tokens: Token[], sid: Uint32Array, from: number, step: 1 | -1, skip: Uint8Array): string[] {
  const out: string[] = [];
  const own = sid[from - step] ?? sid[from];
  // at most a few tokens away, so a text of figures without words stays linear
  for (let k = from, n = 0; k >= 0 && k < tokens.length && out.length < CONTEXT && n < 6 * CONTEXT; k += step, n++) {
    const t = tokens[k];
    const last = k + 1 >= tokens.length || sid[k + 1] !== sid[k];
    if (sid[k] !== own || (t.kind === 'mark' && (t.text === ';' || (STOPS.has(t.text) && last)))) {
      out.push(BOUNDARY);
      return out;
    }
    // a clause mark ends the context once it holds two words ("…, to October 18, 2015," still reaches "aired")
    if (t.kind === 'mark' && CLAUSE.has(t.text) && out.length >= 2) return out;
    if (t.kind === 'word' && !skip[k]) out.push(root(t.text));
  }
  if (out.length < CONTEXT) out.push(BOUNDARY);
  return out;
}

function contentStems(tokens: Token[], from: number, to: number): Set<string> {
  const s = new Set<string>();
  for (let k = from; k < to; k++) if (tokens[k].kind === 'word' && !STOPWORDS.has(tokens[k].lower)) s.add(root(tokens[k].text));
  return s;
}

/**
 * Each mention with its context and the content words of its sentence. Evidence sentences are the sentence
 * splitter's (abbreviations, initials and decimals do not end one); a claim is one sentence.
 */
function locate(tm: TextMentions, split: boolean): Located[] {
  const { tokens } = tm;
  const sid = new Uint32Array(tokens.length);
  if (split) {
    const ends = segmentClaimSpans(tm.text, { all: true }).map((s) => s.end);
    for (let k = 0, s = 0; k < tokens.length; k++) {
      while (s < ends.length && tokens[k].start >= ends[s]) s++;
      sid[k] = s;
    }
  }
  const sentenceOf: Set<string>[] = new Array(tokens.length);
  for (let from = 0, k = 1; k <= tokens.length; k++) {
    if (k < tokens.length && sid[k] === sid[from]) continue;
    const set = contentStems(tokens, from, k);
    for (let x = from; x < k; x++) sentenceOf[x] = set;
    from = k;
  }
  const figures = new Uint8Array(tokens.length);
  for (const m of tm.mentions) if (m.kind !== 'name') figures.fill(1, m.t0, m.t1);
  return tm.mentions.map((mention) => ({
    mention,
    left: side(tokens, sid, mention.t0 - 1, -1, figures),
    right: side(tokens, sid, mention.t1, 1, figures),
    sentence: sentenceOf[mention.t0] ?? new Set(),
    before: mention.t0 > 0 && tokens[mention.t0 - 1].kind === 'word' ? tokens[mention.t0 - 1].lower : '',
    bracketed: mention.t0 > 0 && tokens[mention.t0 - 1].text === '(',
  }));
}

export function evidenceDetails(evidence: string): EvidenceDetails {
  const tm = extractMentions(evidence, { anyCase: true });
  const located = locate(tm, true);
  const numbers = new Set<string>();
  const months = new Set<number>();
  const add = (v: number) => numbers.add(String(Math.round(v * 1e6) / 1e6));
  for (const { mention: m } of located) {
    if (m.kind === 'quantity') m.raw.forEach(add);
    if (m.kind === 'quantity' && Number.isFinite(m.lo) && Number.isFinite(m.hi)) [m.lo, m.hi].forEach(add);
    if (m.kind === 'date')
      for (const r of m.readings) {
        if (r.year && m.basis !== 'fiscal') r.year.forEach(add);
        if (r.day) add(r.day);
        if (r.month) months.add(r.month);
      }
    // "Position 8", "Series 4": the number of a named identifier
    if (m.kind === 'identifier' && /\s/.test(m.written)) add(Number(m.written.replace(/^.*\s/, '')));
  }
  const words = wordSet(evidence);
  // number words anywhere ("ninth", "hundred"), as before
  for (const w of words) {
    const v = CARDINALS.get(w) ?? ORDINALS.get(w) ?? SCALES[w];
    if (v !== undefined) add(v);
  }
  const acronyms = new Set<string>();
  initials(evidence, acronyms);
  const identifiers = new Set<string>();
  const { tokens } = tm;
  for (let i = 0; i < tokens.length; i++) {
    let s = '';
    for (let k = i; k < Math.min(tokens.length, i + 4); k++) {
      if (tokens[k].kind === 'mark' && !/^[-./_+]$/.test(tokens[k].text)) break;
      if (tokens[k].kind !== 'mark') s += tokens[k].lower;
      if (/\p{L}/u.test(s) && /[0-9]/.test(s)) identifiers.add(s);
    }
  }
  const roots = new Set<string>();
  for (const w of words) roots.add(root(w));
  // month names anywhere, in any case ("start of february")
  for (const w of words) {
    const m = MONTHS.get(w.replace(/\.$/, ''));
    if (m !== undefined && w.length > 3) months.add(m);
  }
  return { located, numbers, months, words, acronyms, identifiers, roots };
}

/** 'kind': the same value in a kind that does not convert (a fiscal year for a calendar one, real money for nominal). */
type Relation = 'agree' | 'disjoint' | 'overlap' | 'kind';

const EPS = 1e-9;
const CROSS_SYSTEM = new Set(['length', 'mass', 'area', 'volume', 'speed']);

/** How an evidence quantity relates to a claim quantity, or null when they measure different things. */
function quantityRelation(c: QuantityMention, e: QuantityMention): Relation | null {
  let conv = 0;
  if (c.dim !== e.dim) {
    const money = c.dim?.startsWith('money:') && e.dim?.startsWith('money:');
    if (money && !sameCurrency(c.dim!.slice(6), e.dim!.slice(6))) return 'disjoint';
    // a bare number of the evidence may state a counted or measured value ("she was 15"), but never contradicts one
    if (!money) return e.dim === null && e.raw.length === c.raw.length && c.raw.every((v, k) => e.raw[k] === v) ? 'agree' : null;
  }
  if (c.unit && e.unit && c.unit !== e.unit && c.dim && (CROSS_SYSTEM.has(c.dim) || c.dim === 'data')) {
    conv = (c.dim === 'data' ? 0.025 : 0.01) * maxOf([c.lo, c.hi, e.lo, e.hi].filter(Number.isFinite).map(Math.abs), 0);
  }
  const point = (q: QuantityMention) => q.lo === q.hi;
  // a range ("10–14") or a bound ("more than 50", "up to 20%"): stated figures, to be matched as stated
  const range = (q: QuantityMention) => q.lo < q.hi;
  const tol = (x: number) => conv + EPS * Math.max(1, Math.abs(x));
  if (point(c) && point(e)) {
    if (Math.abs(c.lo - e.lo) <= Math.max(c.precision, e.precision) + tol(c.lo)) return 'agree';
  } else if (range(c) && range(e)) {
    const p = Math.max(c.precision, e.precision);
    const same = (x: number, y: number) => x === y || Math.abs(x - y) <= p + tol(x);
    if (same(c.lo, e.lo) && same(c.hi, e.hi)) return 'agree';
  } else if (e.lo - e.precision >= c.lo - c.precision - tol(c.lo) && e.hi + e.precision <= c.hi + c.precision + tol(c.hi)) {
    // the evidence's value lies in the claim's range or bound ("10–14 days" for 12, "more than 50" for 60)
    return 'agree';
  }
  // two bounds the same way ("over 200" and "over 500") state figures: different figures differ
  const bound = (q: QuantityMention) => (q.lo === -Infinity) !== (q.hi === Infinity);
  if (bound(c) && bound(e) && (c.lo === -Infinity) === (e.lo === -Infinity)) {
    const [x, y] = c.lo === -Infinity ? [c.hi, e.hi] : [c.lo, e.lo];
    return Math.abs(x - y) > Math.max(c.slack, e.slack) + c.precision + e.precision + conv + EPS ? 'disjoint' : 'overlap';
  }
  const cLo = c.lo - c.precision - c.slack - conv;
  const cHi = c.hi + c.precision + c.slack + conv;
  const eLo = e.lo - e.precision - e.slack - conv;
  const eHi = e.hi + e.precision + e.slack + conv;
  return cHi < eLo - EPS || eHi < cLo - EPS ? 'disjoint' : 'overlap';
}

function readingRelation(c: DateReading, e: DateReading): Relation {
  let differ = false;
  let unsaid = false;
  if (c.year) {
    const range = (y: [number, number]) => y[0] < y[1];
    if (!e.year) unsaid = true;
    else if (e.year[1] < c.year[0] || e.year[0] > c.year[1]) differ = true;
    else if (!(e.year[0] >= c.year[0] && e.year[1] <= c.year[1])) unsaid = true;
    // "2018–19" is a period, not "some year of the two": it needs the same period (a decade takes any year in it)
    else if (range(c.year) && !c.decade && !(e.year[0] === c.year[0] && e.year[1] === c.year[1])) unsaid = true;
  }
  for (const f of ['month', 'day'] as const) {
    if (c[f] === undefined) continue;
    if (e[f] === undefined) unsaid = true;
    else if (e[f] !== c[f]) differ = true;
  }
  // a day of another month is no conflict of days
  if (c.day !== undefined && e.day !== undefined && c.day !== e.day && c.month !== undefined && e.month !== undefined && c.month !== e.month) differ = true;
  return differ ? 'disjoint' : unsaid ? 'overlap' : 'agree';
}

function dateRelation(c: DateMention, e: DateMention): Relation | null {
  // dates relate when they share a field: a year with a year, a month with a month
  const fields = (r: DateReading) => [r.year ? 'y' : '', r.month !== undefined ? 'm' : ''].join('');
  if (!c.readings.some((r) => e.readings.some((s) => [...fields(r)].some((f) => fields(s).includes(f))))) return null;
  const rel = c.readings.flatMap((r) => e.readings.map((s) => readingRelation(r, s)));
  return rel.includes('agree') ? 'agree' : rel.every((r) => r === 'disjoint') ? 'disjoint' : 'overlap';
}

function relation(c: Mention, e: Mention): Relation | null {
  // a fiscal year and a calendar year, real and nominal money: values of kinds that do not convert never verify or
  // contradict each other; the same figure of the other kind may be what the claim meant (it blocks a contradiction)
  if ((c.kind === 'date' || c.kind === 'quantity') && c.kind === e.kind && c.basis !== e.basis) {
    const same = relation({ ...c, basis: undefined } as Mention, { ...e, basis: undefined } as Mention);
    return same === 'disjoint' || same === null ? null : 'kind';
  }
  if (c.kind === 'quantity' && e.kind === 'quantity') return quantityRelation(c, e);
  if (c.kind === 'date' && e.kind === 'date') return dateRelation(c, e);
  if (c.kind === 'date' && e.kind === 'quantity' && e.dim === null)
    return c.readings.some((r) => r.year && r.month === undefined && r.year[0] === r.year[1] && e.raw.includes(r.year[0])) ? 'agree' : null;
  if (c.kind === 'identifier' && e.kind === 'identifier') return c.norm === e.norm ? 'agree' : c.family && c.family === e.family ? 'disjoint' : null;
  if (c.kind === 'name' && e.kind === 'name') {
    const initialsOf = (parts: string[]) =>
      parts
        .filter((p) => !/^(of|and|for|the|on|&)$/.test(p))
        .map((p) => p[0])
        .join('');
    if ((c.acronym && initialsOf(e.parts) === c.parts[0]) || (e.acronym && initialsOf(c.parts) === e.parts[0])) return 'agree';
    return c.parts.some((p) => e.parts.some((q) => root(q) === root(p))) ? 'overlap' : 'disjoint';
  }
  return null;
}

/** Whether the evidence states a claim detail somewhere, by the sets built once per evidence text. */
function statedAnywhere(c: Mention, ev: EvidenceDetails): boolean {
  const has = (v: number) => ev.numbers.has(String(Math.round(v * 1e6) / 1e6));
  if (c.kind === 'name') {
    if (c.parts.every((p) => ev.words.has(p) || ev.roots.has(root(p)))) return true;
    return c.parts.length === 1 && c.acronym && ev.acronyms.has(c.parts[0]);
  }
  if (c.kind === 'identifier') return ev.identifiers.has(c.norm);
  // a date whose year, month and day each appear somewhere (a dateline "March 2, 2017" and "on the 1st")
  if (c.kind === 'date')
    return c.readings.some(
      (r) => (!r.year || (has(r.year[0]) && has(r.year[1]))) && (r.month === undefined || ev.months.has(r.month)) && (r.day === undefined || has(r.day)),
    );
  // a bare or counted number, as before: its value written anywhere, in digits or words (the word after a
  // number is too often an adjective, "77,984 confirmed cases", to demand the same noun)
  if (c.kind === 'quantity' && (c.dim === null || c.dim.startsWith('noun:') || c.dim.startsWith('ordinal'))) return c.raw.every(has);
  return false;
}

/** How well one side of two contexts lines up: shared words (function words count little, a sentence edge a half). */
function sideScore(x: string[], y: string[]): number {
  let s = 0;
  const ys = new Set(y);
  for (const w of new Set(x)) if (ys.has(w)) s += w === BOUNDARY ? 0.5 : STOPWORDS.has(w) ? 0.25 : 1;
  return s;
}

/** Whether a differing evidence detail stands where the claim's detail stands: enough shared context, on both sides for a name. */
function samePlace(c: Located, e: Located): number | null {
  const l = sideScore(c.left, e.left);
  const r = sideScore(c.right, e.right);
  const m = c.mention;
  if (m.kind === 'name') return l >= 0.5 && r >= 0.5 && l + r >= 2 ? l + r : null;
  const need = m.kind === 'quantity' && (m.dim === null || m.dim.startsWith('noun:')) ? 1.5 : 1;
  return l + r >= need ? l + r : null;
}

/** Share of the claim's content words that the evidence sentence holds (iterating the smaller set). */
function sentenceMatch(claim: Set<string>, sentence: Set<string>): number {
  if (claim.size === 0) return 0;
  let n = 0;
  if (sentence.size < claim.size) {
    for (const w of sentence) if (claim.has(w)) n++;
  } else for (const w of claim) if (sentence.has(w)) n++;
  return n / claim.size;
}

const significantDigits = (v: number) => String(Math.abs(v)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;

/** Details that agree by chance rarely, when stated whole: a date with day, month and year; a figure of three or more significant digits. */
function specific(m: Mention): boolean {
  if (m.kind === 'date') return m.readings.every((r) => r.year && r.month !== undefined && r.day !== undefined);
  return m.kind === 'quantity' && m.raw.every((v) => significantDigits(v) >= 3);
}

/** Words before a place: a differing name after them may name a place that holds the other (Brooklyn, New York). */
const LOCATIVE = new Set(['in', 'at', 'near', 'from', 'outside', 'inside', 'across', 'throughout', 'within', 'into', 'around', 'born', 'based']);

/**
 * Whether a differing evidence detail states the same attribute of the same subject as the claim's: its sentence
 * names the claim's other names that the evidence knows (a figure of another person or product is another
 * statement), and a differing name is not a place (a district and its city are both right) nor another name given in
 * brackets (an alias: "the Senate (Eerste Kamer)").
 */
function sameStatement(c: Located, e: Located, subjects: { parts: string[]; of?: Located }[]): boolean {
  if (c.mention.kind === 'name' && (LOCATIVE.has(c.before) || LOCATIVE.has(e.before) || e.bracketed)) return false;
  return subjects.every((s) => s.of === c || s.parts.every((p) => STOPWORDS.has(p) || e.sentence.has(root(p))));
}

/** Share of the claim's content words its evidence sentence must hold for that sentence to "otherwise match". */
const SENTENCE_MATCH = 0.3;

/** The detail check of one claim against one evidence text. */
export function checkDetails(claim: string, evidence: string | EvidenceDetails, options: { restate?: boolean } = {}): DetailCheck {
  const ev = typeof evidence === 'string' ? evidenceDetails(evidence) : evidence;
  const tm = extractMentions(claim);
  const located = locate(tm, false);
  const missing: string[] = [];
  const conflicts: Conflict[] = [];
  const rewrites: { start: number; end: number; text: string }[] = [];
  const matches = new Map<Set<string>, number>();
  const matchOf = (claimSentence: Set<string>, sentence: Set<string>) => {
    let m = matches.get(sentence);
    if (m === undefined) matches.set(sentence, (m = sentenceMatch(claimSentence, sentence)));
    return m;
  };
  // the claim's names the evidence knows: a differing value counts only in a sentence about them (the same subject)
  const subjects: { parts: string[]; of?: Located }[] = located
    .filter((c) => c.mention.kind === 'name' && statedAnywhere(c.mention, ev))
    .map((c) => ({ parts: (c.mention as { parts: string[] }).parts, of: c }));
  // a capitalised first word is a name the name reader leaves out ("Smith scored…")
  const first = tm.tokens[0];
  if (
    first?.kind === 'word' &&
    /^\p{Lu}/u.test(first.text) &&
    !STOPWORDS.has(first.lower) &&
    !tm.mentions.some((m) => m.t0 === 0) &&
    ev.roots.has(root(first.text))
  )
    subjects.push({ parts: [first.lower] });
  for (const c of located) {
    const stated = statedAnywhere(c.mention, ev);
    // a name the evidence states is verified: who did what to whom is beyond a lexical check
    if (stated && c.mention.kind === 'name') continue;
    // An agreeing detail in a sentence that otherwise matches the claim verifies it. Stated only elsewhere
    // (or as a bare number word, score 0), it verifies unless a differing detail stands clearly better placed:
    // a year or a small number may recur by chance.
    let verified = false;
    let agreeBest = stated ? 0 : -Infinity;
    let agreeAt = -Infinity;
    let agreeWith: Located | null = null;
    let otherBest = -Infinity;
    let conflictBest: { score: number; e: Located } | null = null;
    // a differing value in the claim's place that is not the same attribute of the same subject: it unverifies, never contradicts
    let differBest = -Infinity;
    // the claim's value stated in another kind (real money, a fiscal year) in a matching sentence: the claim may mean that one
    let otherKind = false;
    for (const e of ev.located) {
      const rel = relation(c.mention, e.mention);
      if (rel === null) continue;
      const match = matchOf(c.sentence, e.sentence);
      const local = sideScore(c.left, e.left) + sideScore(c.right, e.right);
      const score = local + 2 * match;
      if (rel === 'agree') {
        if (score > agreeAt) agreeWith = e;
        agreeBest = Math.max(agreeBest, score);
        agreeAt = Math.max(agreeAt, score);
        if (match >= SENTENCE_MATCH) verified = true;
      } else if (rel === 'overlap') otherBest = Math.max(otherBest, score);
      else if (rel === 'kind') otherKind ||= match >= SENTENCE_MATCH;
      else if (match >= SENTENCE_MATCH && samePlace(c, e) !== null) {
        if (sameStatement(c, e, subjects) && (!conflictBest || score > conflictBest.score)) conflictBest = { score, e };
        else differBest = Math.max(differBest, score);
      }
    }
    // a detail too specific to recur by chance (a full date, a figure of three or more significant digits) is settled by any agreement
    if (verified || (agreeAt > -Infinity && specific(c.mention))) {
      const w = agreeWith?.mention.written;
      if (w !== undefined && w.toLowerCase() !== c.mention.written.toLowerCase()) rewrites.push({ start: c.mention.start, end: c.mention.end, text: w });
      continue;
    }
    const beats = (score: number) => score > otherBest && score >= agreeBest + (agreeBest > -Infinity ? 1 : 0);
    // a contradiction needs a differing detail better placed than any that agrees or might agree
    if (conflictBest && !otherKind && beats(conflictBest.score)) {
      conflicts.push({ claim: c.mention.written, evidence: conflictBest.e.mention.written });
    } else if ((agreeBest === -Infinity || beats(differBest) || otherKind) && !(c.mention.kind === 'quantity' && c.mention.implied)) {
      missing.push(c.mention.written);
    }
  }
  const out: DetailCheck = { missing: [...new Set(missing)], conflicts: dedupe(conflicts) };
  if (options.restate && rewrites.length > 0 && missing.length === 0 && conflicts.length === 0) {
    let text = claim;
    for (const r of rewrites.sort((a, b) => b.start - a.start)) text = text.slice(0, r.start) + r.text + text.slice(r.end);
    out.restated = text;
  }
  return out;
}

function dedupe(conflicts: Conflict[]): Conflict[] {
  const seen = new Set<string>();
  return conflicts.filter((c) => {
    const k = `${c.claim}\u0000${c.evidence}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** Details of `claim` the evidence does not state (missing or contradicted), as they are written in the claim. */
export function unverifiedDetails(claim: string, evidence: string | EvidenceDetails): string[] {
  const r = checkDetails(claim, evidence);
  return [...new Set([...r.missing, ...r.conflicts.map((c) => c.claim)])];
}

/** "60 days; evidence says 14 days": how a contradiction is shown everywhere. */
export function describeConflict(c: Conflict): string {
  return `${c.claim}; evidence says ${c.evidence}`;
}
