/**
 * Claim decomposition (design §3.3): sentence-level segmentation that keeps the original wording.
 * No rewriting: every claim is a verbatim substring of the answer (only list bullets and quote markers
 * in front of it are left out). Robust to abbreviations (Dr., U.S., e.g.), decimals, initials,
 * ellipses, quotes and brackets after the full stop, numbered lists and markdown. What cannot be
 * verified is not a claim (design: "a declarative sentence"): questions, headings, code, table header
 * rows, and a lead-in ending with a colon that introduces a list ("Key facts:").
 */

/**
 * Abbreviations after which a full stop does not end a sentence unless a sentence starter follows (compared
 * lower-case, without the last dot). The segmenter (Unicode's sentence rules) knows none of them.
 */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms messrs dr prof sr jr st ste mt ft vs v etc e.g i.e cf al approx ca no nos fig figs vol vols p pp ed eds ' +
    'inc ltd co corp bros llc plc dept univ gov gen col lt sgt capt cmdr adm rep sen hon rev est op ch sec art para ' +
    'ave blvd rd jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun ' +
    'u.s u.k u.n e.u u.s.a ph.d m.d b.a m.a b.sc m.sc a.m p.m d.c n.y l.a'
  ).split(/\s+/),
);
/** Abbreviations that often end a sentence: there a capitalised word after them starts a new one ("…, pears, etc. Bread…"). */
const TERMINAL_ABBREVIATIONS = new Set(['etc', 'al']);
/**
 * Words that start sentences but never continue a name: after "U.S.", "Bros." or an initial they mark a new
 * sentence ("…released in the U.S. The film…"), where "U.S. Army", "Warner Bros. Pictures" or "J. R. R. Tolkien" do not.
 */
const SENTENCE_STARTERS = new Set(
  'the it its this that these those there he she they we i you his her their our my a an in on at for however but and so then also after before during when while if although as yet today later'.split(
    ' ',
  ),
);

export interface ClaimSpan {
  text: string;
  /** Character offsets into the original answer. */
  start: number;
  end: number;
}

const CLOSERS = `"'”’)]»`;
const SPACE = /\s/;
const TERMINAL = '.!?…';
const BLOCK = 2_000;

let sentenceSegmenter: Intl.Segmenter | undefined;

/**
 * Split one block of prose (no line structure) into sentence spans, offsets relative to `base`.
 * Candidate boundaries come from `Intl.Segmenter` (Unicode's sentence rules, as ICU keeps them: decimals,
 * "e.g. the", "U.S.A" and quotes after a full stop are handled there); the abbreviation list and initials
 * then take back the boundaries the segmenter puts after "Bros.", "Inc.", "St.", "U.S." or "J." when no sentence
 * starter follows. Two boundaries Unicode's rules leave out are added: after an ellipsis "…" before a capital,
 * and a full stop glued to the next sentence ("…at sea level.The ice…"). Linear: every decision looks at the
 * word before a boundary and the one after it.
 */
function splitProse(text: string, base: number, out: ClaimSpan[], claimsOnly: boolean): void {
  sentenceSegmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  let start = 0;
  const consider = (at: number) => {
    // `at` is just past a run of terminal marks (and any closers after it)
    let end = at;
    while (end < text.length && CLOSERS.includes(text[end])) end++;
    let marks = at;
    while (marks > start && TERMINAL.includes(text[marks - 1])) marks--;
    if (marks === at) return;
    const stop = text.slice(marks, at);
    const period = stop === '.';
    if (end < text.length && !SPACE.test(text[end]) && !(period && gluedSentence(text, start, marks, end))) return;
    let rest = end;
    while (rest < text.length && SPACE.test(text[rest])) rest++;
    if (rest >= text.length) return; // the block's end closes the last sentence anyway
    if (period && !isBoundaryAfterPeriod(wordBefore(text, start, marks), text, rest)) return;
    // "!" or "?" followed by a lower-case word is a quoted exclamation inside a sentence.
    if (!period && /[a-z]/.test(text[rest])) return;
    push(text, start, end, base, out, claimsOnly);
    start = end;
  };
  // V8 walks the segments of a long string in time that grows with its length at every step: feed it blocks of
  // about BLOCK characters, cut at a space (a boundary there is decided below like any other).
  for (let from = 0; from < text.length;) {
    let to = Math.min(text.length, from + BLOCK);
    for (let k = to; k < Math.min(text.length, to + 256); k++)
      if (SPACE.test(text[k])) {
        to = k + 1;
        break;
      }
    for (const { index: i, segment } of sentenceSegmenter.segment(text.slice(from, to))) {
      const index = from + i;
      // the segmenter's boundary is after the trailing spaces; the sentence ends at its last terminal mark and closers
      const segEnd = index + segment.length;
      // inside the segment: an ellipsis or a full stop the segmenter does not split at
      for (let k = index; k < segEnd; k++) {
        const c = text[k];
        if ((c === '…' || c === '.') && k + 1 < segEnd && !TERMINAL.includes(text[k + 1]) && k + 1 > start) {
          let j = k + 1;
          while (j < segEnd && CLOSERS.includes(text[j])) j++;
          if (c === '…' ? j < segEnd && SPACE.test(text[j]) : j < segEnd && !SPACE.test(text[j])) consider(k + 1);
        }
      }
      if (segEnd >= text.length) break;
      let e = segEnd;
      while (e > index && SPACE.test(text[e - 1])) e--;
      while (e > index && CLOSERS.includes(text[e - 1])) e--;
      if (e > start && TERMINAL.includes(text[e - 1])) consider(e);
    }
    from = to;
  }
  push(text, start, text.length, base, out, claimsOnly);
}

/** The code point ending at `i` (exclusive), and its length in code units. */
function codePointBefore(text: string, i: number): string {
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text[i - 1];
}

/** The code point starting at `i`. */
function codePointAt(text: string, i: number): string {
  const cp = text.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

const LOWER = /^\p{Ll}$/u;
const UPPER = /^\p{Lu}$/u;
const WORD_CHAR = /^[\p{L}\p{N}.'’-]$/u;

/** "level.The ice": a lower-case word (not part of a file name, URL or e-mail) glued to a capitalised word. */
function gluedSentence(text: string, from: number, dot: number, after: number): boolean {
  // the whole non-space run before the dot (within the block) must be two or more lower-case letters
  let i = dot;
  let letters = 0;
  while (i > from && !SPACE.test(text[i - 1])) {
    const c = codePointBefore(text, i);
    if (!LOWER.test(c)) return false;
    i -= c.length;
    letters++;
  }
  if (letters < 2) return false;
  // then a capitalised word: an upper-case letter, lower-case letters, and a space, , ; : or the end
  let j = after;
  const first = codePointAt(text, j);
  if (!UPPER.test(first)) return false;
  j += first.length;
  let lower = 0;
  for (let c = codePointAt(text, j); c !== '' && LOWER.test(c); c = codePointAt(text, j)) {
    j += c.length;
    lower++;
  }
  return lower > 0 && (j >= text.length || /[\s,;:]/.test(text[j]));
}

/** The run of letters, digits, dots, apostrophes and hyphens ending at `to` (not before `from`). */
function wordBefore(text: string, from: number, to: number): string {
  let i = to;
  while (i > from) {
    const c = codePointBefore(text, i);
    if (!WORD_CHAR.test(c)) break;
    i -= c.length;
  }
  return text.slice(i, to);
}

/** The run of letters and apostrophes starting at `at`, lower-cased: a candidate sentence starter. */
function wordAfter(text: string, at: number): string {
  let j = at;
  for (let c = codePointAt(text, j); c !== '' && /^[\p{L}']$/u.test(c); c = codePointAt(text, j)) j += c.length;
  return text.slice(at, j).toLowerCase();
}

function isBoundaryAfterPeriod(word: string, text: string, rest: number): boolean {
  const lower = word.toLowerCase();
  const head = text.slice(rest, rest + 4); // enough for the first two code points
  const nextCapital = /^[\p{Lu}"“'‘([]/u.test(head) || /^\d/.test(head);
  if (!nextCapital) return false; // "approx. five", "e.g. the" and lower-case continuations
  const starter = SENTENCE_STARTERS.has(wordAfter(text, rest));
  if (/^\p{Lu}$/u.test(word)) return starter; // an initial ("J. R. R. Tolkien"), unless a sentence starts ("vitamin D. The")
  if (/^(\p{Lu}\.)+\p{Lu}$/u.test(word)) return starter; // "U.S. Army", but "in the U.S. The film"
  if (/^(\p{L}\.)+\p{L}$/u.test(word)) return false; // "e.g", "i.e", "Ph.D" style dotted abbreviations
  if (TERMINAL_ABBREVIATIONS.has(lower)) return /^\p{Lu}\p{Ll}/u.test(head);
  if (ABBREVIATIONS.has(lower)) return starter; // "Warner Bros. Pictures", "St. Louis", but "made by Warner Bros. The film"
  return true;
}

function push(text: string, from: number, to: number, base: number, out: ClaimSpan[], claimsOnly: boolean): void {
  const raw = text.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (!/[\p{L}\p{N}]/u.test(trimmed)) return; // punctuation or markup only: nothing to verify
  if (claimsOnly && /\?[\s"'”’)\]»*_]*$/.test(trimmed)) return; // a question asserts nothing
  out.push({ text: trimmed, start: base + from + lead, end: base + from + lead + trimmed.length });
}

// Letter items: "a." "a)" "A)", but not "A." (an initial: "A. Einstein developed…").
const LIST_MARKER = /^(\s*)([-*+•]|\d{1,3}[.)]|[a-z][.)](?=\s)|[A-Z]\)(?=\s))\s+/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const FENCE = /^\s*(```|~~~)/;
// One run of whitespace before the pipe and one after it: `\s*\|?\s*` split a run of spaces between its two halves
// in every way, quadratic on 100,000 spaces (issue 17).
const TABLE_RULE = /^\s*(?:\|\s*)?:?-{3,}/;

/** A lead-in such as "Key facts:" or "**Effects:**" (ends with a colon, markup aside). */
const LEAD_IN = /:[*_\s]*$/;

/**
 * Segment an answer into claims. Markdown structure decides blocks first: each list item and each
 * paragraph is segmented on its own; headings, code fences, horizontal rules and table rules are no claims.
 * With `all` (the knowledge base's sentence windows), nothing with words is dropped: headings, code lines,
 * table header rows, questions and lead-ins are spans too, so every part of a document can be evidence.
 */
export function segmentClaimSpans(answer: string, options: { all?: boolean } = {}): ClaimSpan[] {
  const claimsOnly = !options.all;
  const out: ClaimSpan[] = [];
  const lines = answer.split('\n');
  let offset = 0;
  let inFence = false;
  let para: { text: string; start: number } | null = null;
  // Index in `out` of a lead-in that ended the previous block; dropped if a list item follows it.
  let leadIn = -1;
  const flush = () => {
    if (para) {
      const n = out.length;
      splitProse(para.text, para.start, out, claimsOnly);
      leadIn = claimsOnly && out.length > n && LEAD_IN.test(out[out.length - 1].text) ? out.length - 1 : -1;
    }
    para = null;
  };
  lines.forEach((line, i) => {
    const lineStart = offset;
    offset += line.length + 1;
    if (FENCE.test(line)) {
      flush();
      leadIn = -1;
      inFence = !inFence;
      return;
    }
    if (inFence && claimsOnly) return;
    const header = claimsOnly && line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes('-');
    if (line.trim() === '' || (claimsOnly && HEADING.test(line)) || /^\s*([-*_]\s*){3,}$/.test(line) || TABLE_RULE.test(line) || header) {
      flush();
      if (line.trim() !== '') leadIn = -1;
      return;
    }
    if (!claimsOnly && (HEADING.test(line) || inFence)) {
      // windows: a heading or a code line is a block of its own
      flush();
      splitProse(line, lineStart, out, false);
      return;
    }
    const item = LIST_MARKER.exec(line);
    const marker = item ?? /^\s*>\s?/.exec(line);
    if (marker) {
      // A list item (or quote line) starts a new block; its text begins after the marker.
      flush();
      if (item && leadIn >= 0) out.splice(leadIn, 1);
      leadIn = -1;
      para = { text: line.slice(marker[0].length), start: lineStart + marker[0].length };
      return;
    }
    if (para) para.text += '\n' + line;
    else {
      leadIn = -1;
      para = { text: line, start: lineStart };
    }
  });
  flush();
  return out;
}

/** Claims as strings, in answer order (design: extract_claims(answer) -> List[str]). */
export function extractClaims(answer: string): string[] {
  return segmentClaimSpans(answer).map((c) => c.text);
}
