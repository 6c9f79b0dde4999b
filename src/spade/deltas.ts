/**
 * Prompt deltas (SPADE §2): the sentence-level difference between consecutive prompt versions.
 * Pure: no I/O. A changed sentence is a deletion plus an addition. A sentence that only moved is
 * neither (it asks nothing new of the output); moves are reported apart, in `moved`.
 */

export interface PromptVersion {
  /** A label: version number, commit hash, file name. */
  id: string;
  text: string;
}

export interface PromptDelta {
  /** Index of the newer version in the list (the delta goes from index-1 to index). */
  index: number;
  from: string;
  to: string;
  added: string[];
  deleted: string[];
  /** Sentences present in both versions whose relative order changed. */
  moved: string[];
}

/** Whitespace-normalised form used to compare sentences (case and punctuation are kept: they can matter). */
function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

// After . ! ? (and any closing quotes or brackets) and a space, before a capital letter of any script,
// a digit, an opening quote or bracket; or right after a CJK full stop, exclamation or question mark.
const SENTENCE_BREAK = /(?<=[.!?…]["'”’»)\]]*)\s+(?=[\p{Lu}\p{Lt}\p{N}"'“‘«([{])|(?<=[。！？])\s*/u;

/**
 * Split a prompt into sentences. Lines are units first (prompts are full of bullets, headers and
 * template lines without terminal punctuation); within a line, split after . ! ? (and closing quotes)
 * followed by space and an upper-case letter of any script, digit, quote or bracket, or after 。！？.
 * Decorative lines (only dashes, `=`, `#`, `*`) are dropped.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = norm(rawLine);
    if (!line || /^[-=_*#~`]+$/.test(line)) continue;
    for (const part of line.split(SENTENCE_BREAK)) {
      const s = norm(part);
      if (s) out.push(s);
    }
  }
  return out;
}

/** Longest common subsequence of two string lists, as index pairs. */
function lcs(a: string[], b: string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const t = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (t[i + 1][j] >= t[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/**
 * Split `list` into the items matched against the multiset `pool` (each pool item matches once) and
 * the rest, both in `list` order.
 */
function matchAgainst(list: string[], pool: string[]): { common: string[]; rest: string[] } {
  const remaining = new Map<string, number>();
  for (const s of pool) remaining.set(s, (remaining.get(s) ?? 0) + 1);
  const common: string[] = [];
  const rest: string[] = [];
  for (const s of list) {
    const c = remaining.get(s) ?? 0;
    if (c > 0) {
      remaining.set(s, c - 1);
      common.push(s);
    } else rest.push(s);
  }
  return { common, rest };
}

/**
 * The delta between two versions. Sentences are compared as multisets: a sentence occurring k times
 * before and k' times after is added k'-k times (or deleted k-k'), wherever it sits.
 */
export function diffVersions(oldText: string, newText: string): Omit<PromptDelta, 'index' | 'from' | 'to'> {
  const a = splitSentences(oldText);
  const b = splitSentences(newText);
  const { common: commonNew, rest: added } = matchAgainst(b, a);
  const { common: commonOld, rest: deleted } = matchAgainst(a, commonNew);
  // Common sentences outside the LCS of the two orders are the ones that moved.
  const kept = new Set(lcs(commonOld, commonNew).map(([, j]) => j));
  const moved = commonNew.filter((_, j) => !kept.has(j));
  return { added, deleted, moved };
}

/**
 * Deltas between consecutive versions. As in the paper, version 0 is the empty prompt, so by default
 * the list starts with the initial delta (every sentence of the first version is an addition): a
 * single version still yields criteria. `initial: false` gives only the n-1 deltas between versions.
 * Identical consecutive versions give empty deltas.
 */
export function promptDeltas(versions: PromptVersion[], options: { initial?: boolean } = {}): PromptDelta[] {
  const out: PromptDelta[] = [];
  if ((options.initial ?? true) && versions.length) out.push(initialDelta(versions[0]));
  for (let k = 1; k < versions.length; k++) {
    out.push({ index: k, from: versions[k - 1].id, to: versions[k].id, ...diffVersions(versions[k - 1].text, versions[k].text) });
  }
  return out;
}

/** The delta from the empty prompt (the paper's version 0) to the first version: all of it is added. */
export function initialDelta(first: PromptVersion): PromptDelta {
  return { index: 0, from: '(empty)', to: first.id, ...diffVersions('', first.text) };
}

/** Render a delta the way the paper shows it: `+ sentence` / `- sentence`. */
export function formatDelta(d: PromptDelta): string {
  const lines = [`# ${d.from} → ${d.to}`];
  for (const s of d.deleted) lines.push(`- ${s}`);
  for (const s of d.added) lines.push(`+ ${s}`);
  if (d.moved.length) lines.push(`# moved (not a change): ${d.moved.length}`);
  if (!d.added.length && !d.deleted.length) lines.push('(no change)');
  return lines.join('\n');
}
