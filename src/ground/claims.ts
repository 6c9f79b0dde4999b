/**
 * Claim decomposition (design §3.3): sentence-level segmentation that keeps the original wording.
 * No rewriting: every claim is a verbatim substring of the answer (only list bullets and heading
 * markers in front of it are left out). Robust to abbreviations (Dr., U.S., e.g.), decimals,
 * initials, ellipses, quotes and brackets after the full stop, numbered lists and markdown.
 */

/** Abbreviations after which a full stop does not end a sentence (compared lower-case, without the dot). */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al approx ca no nos fig figs vol vols p pp ed eds ' +
    'inc ltd co corp dept univ gov gen col lt sgt capt cmdr adm rep sen hon rev est op ch sec art para ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun ' +
    'u.s u.k u.n e.u u.s.a ph.d m.d b.a m.a b.sc m.sc a.m p.m d.c n.y l.a'
  ).split(/\s+/),
);
/** Abbreviations that commonly end a sentence too: split when a capitalised word follows. */
const TERMINAL_ABBREVIATIONS = new Set(['etc', 'al', 'inc', 'ltd', 'co', 'corp']);

export interface ClaimSpan {
  text: string;
  /** Character offsets into the original answer. */
  start: number;
  end: number;
}

const CLOSERS = `"'”’)]»`;

/** Split one block of prose (no line structure) into sentence spans, offsets relative to `base`. */
function splitProse(text: string, base: number, out: ClaimSpan[]): void {
  let start = 0;
  const re = /[.!?…]+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    let end = m.index + m[0].length;
    while (end < text.length && CLOSERS.includes(text[end])) end++;
    // A boundary needs whitespace (or the end) after it: "3.14", "e.g.," and "U.S.-based" never split.
    if (end < text.length && !/\s/.test(text[end])) continue;
    const rest = text.slice(end).replace(/^\s+/, '');
    if (rest.length > 0 && m[0] === '.' && !isBoundaryAfterPeriod(text.slice(start, m.index), rest)) continue;
    // "!" or "?" followed by a lower-case word is a quoted exclamation inside a sentence.
    if (rest.length > 0 && m[0] !== '.' && /^[a-z]/.test(rest)) continue;
    push(text, start, end, base, out);
    start = end;
  }
  push(text, start, text.length, base, out);
}

function isBoundaryAfterPeriod(before: string, rest: string): boolean {
  const word = /([\p{L}\p{N}.'’-]*)$/u.exec(before)?.[1] ?? '';
  const lower = word.toLowerCase();
  const nextCapital = /^[\p{Lu}"“'‘([]/u.test(rest) || /^\d/.test(rest);
  if (!nextCapital) return false; // "approx. five", "e.g. the" and lower-case continuations
  if (/^\p{Lu}$/u.test(word)) return false; // an initial: "J. R. R. Tolkien"
  if (/^(\p{L}\.)+\p{L}$/u.test(word)) return false; // "U.S" "e.g" style dotted abbreviations
  if (ABBREVIATIONS.has(lower)) return TERMINAL_ABBREVIATIONS.has(lower) && /^\p{Lu}\p{Ll}/u.test(rest);
  return true;
}

function push(text: string, from: number, to: number, base: number, out: ClaimSpan[]): void {
  const raw = text.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (!/[\p{L}\p{N}]/u.test(trimmed)) return; // punctuation or markup only: nothing to verify
  out.push({ text: trimmed, start: base + from + lead, end: base + from + lead + trimmed.length });
}

const LIST_MARKER = /^(\s*)([-*+•]|\d{1,3}[.)]|[a-zA-Z][.)](?=\s))\s+/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const FENCE = /^\s*(```|~~~)/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;

/**
 * Segment an answer into claims. Markdown structure decides blocks first: each list item and each
 * paragraph is segmented on its own; headings, code fences, horizontal rules and table rules are no claims.
 */
export function segmentClaimSpans(answer: string): ClaimSpan[] {
  const out: ClaimSpan[] = [];
  const lines = answer.split('\n');
  let offset = 0;
  let inFence = false;
  let para: { text: string; start: number } | null = null;
  const flush = () => {
    if (para) splitProse(para.text, para.start, out);
    para = null;
  };
  for (const line of lines) {
    const lineStart = offset;
    offset += line.length + 1;
    if (FENCE.test(line)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (line.trim() === '' || HEADING.test(line) || /^\s*([-*_]\s*){3,}$/.test(line) || TABLE_RULE.test(line)) {
      flush();
      continue;
    }
    const marker = LIST_MARKER.exec(line) ?? /^\s*>\s?/.exec(line);
    if (marker) {
      // A list item (or quote line) starts a new block; its text begins after the marker.
      flush();
      para = { text: line.slice(marker[0].length), start: lineStart + marker[0].length };
      continue;
    }
    if (para) para.text += '\n' + line;
    else para = { text: line, start: lineStart };
  }
  flush();
  return out;
}

/** Claims as strings, in answer order (design: extract_claims(answer) -> List[str]). */
export function extractClaims(answer: string): string[] {
  return segmentClaimSpans(answer).map((c) => c.text);
}
