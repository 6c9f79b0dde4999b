/**
 * Names for the detail check: runs of capitalised words and acronyms, with their offsets. A capitalised
 * first word of a sentence is a name only when it is an acronym or the name continues into the next word.
 */

export const MONTHS = new Map<string, number>([
  ['january', 1],
  ['february', 2],
  ['march', 3],
  ['april', 4],
  ['may', 5],
  ['june', 6],
  ['july', 7],
  ['august', 8],
  ['september', 9],
  ['october', 10],
  ['november', 11],
  ['december', 12],
  ['jan', 1],
  ['feb', 2],
  ['mar', 3],
  ['apr', 4],
  ['jun', 6],
  ['jul', 7],
  ['aug', 8],
  ['sep', 9],
  ['sept', 9],
  ['oct', 10],
  ['nov', 11],
  ['dec', 12],
] as const);

/** Capitalised words that are not names (sentence starters, pronouns, titles of no identifying value). */
export const NOT_NAMES = new Set(
  (
    'i a an the this that these those it its he she they we you his her their our my your there here then when where while ' +
    'what which who whom whose why how if in on at by for from of to with as and or but not no yes also however although after before during since until because so thus therefore both each every all some many most several such other ' +
    'another any either neither ' +
    'mr mrs ms dr prof sir st'
  ).split(' '),
);

const WORD_RE = /\p{L}[\p{L}\p{M}'’.-]*\p{L}|\p{L}/gu;

/**
 * Whether `start` begins a sentence: only whitespace before it back to the text's start or a . ! ? or :
 * (scanned backwards over the whitespace only, so a long claim stays linear).
 */
export function afterSentenceEnd(text: string, start: number): boolean {
  let i = start;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i === 0 || '.!?:'.includes(text[i - 1]);
}

/** A capitalised word after whitespace, matched in place (sticky) rather than on a copy of the rest. */
const NEXT_CAPITAL = /\s+(\p{Lu}\p{L}*)/uy;

export interface NameSpan {
  text: string;
  start: number;
  end: number;
}

/** Named-entity candidates with offsets: runs of capitalised words (or acronyms), skipping a sentence-initial common word. */
export function nameSpans(text: string): NameSpan[] {
  const out: NameSpan[] = [];
  let run: string[] = [];
  let runStart = 0;
  let runEnd = 0;
  let prevEnd = -1;
  const flush = () => {
    if (run.length) out.push({ text: run.join(' '), start: runStart, end: runEnd });
    run = [];
  };
  for (const m of text.matchAll(WORD_RE)) {
    let w = m[0];
    let start = m.index ?? 0;
    // "pro-Ukrainian", "anti-Trump": a lower-case prefix hyphenated to a name; the name is the part after it
    const prefixed = /^\p{Ll}[\p{L}\p{M}]*-(?=\p{Lu})/u.exec(w);
    if (prefixed) {
      start += prefixed[0].length;
      w = w.slice(prefixed[0].length);
    }
    const gap = text.slice(prevEnd, start);
    if (prevEnd >= 0 && !/^[\s]+$/.test(gap)) flush();
    prevEnd = start + w.length;
    const lower = w.toLowerCase();
    const capital = /^\p{Lu}/u.test(w);
    const acronym = /^\p{Lu}{2,}$/u.test(w);
    const sentenceStart = afterSentenceEnd(text, start);
    // "3B", "5G": a letter glued to a number is a unit or part of an identifier, not a name on its own
    const glued = (start > 0 && /[\p{N}#]/u.test(text[start - 1])) || /[\p{N}#]/u.test(text[prevEnd] ?? '');
    if (!capital || glued || (NOT_NAMES.has(lower) && !acronym) || MONTHS.has(lower.replace(/\.$/, ''))) {
      flush();
      continue;
    }
    // A capitalised first word is a name only if it is an acronym or the next word continues the name.
    if (sentenceStart && run.length === 0 && !acronym) {
      NEXT_CAPITAL.lastIndex = prevEnd;
      const next = NEXT_CAPITAL.exec(text);
      if (!next || NOT_NAMES.has(next[1].toLowerCase())) continue;
    }
    if (run.length === 0) runStart = start;
    run.push(w.replace(/[’']s$/, ''));
    runEnd = start + w.length;
  }
  flush();
  return out;
}

/** Named-entity candidates: runs of capitalised words (or acronyms), skipping a sentence-initial common word. */
export function entities(text: string): string[] {
  return [...new Set(nameSpans(text).map((s) => s.text))];
}

const MAX_ACRONYM = 12;

/** Initials of capitalised runs ("World Health Organization" → "who"; "of", "and", "for", "the" may sit inside). */
export function initials(text: string, into: Set<string>): void {
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
