/** Small text helpers shared by the lexical embedder, chunking and the detail check. */

/** Word-level tokens: letter runs, digit runs (with inner . or , as in 3.5 or 1,000) and single marks. */
const TOKEN_RE = /\p{L}[\p{L}\p{M}]*|\p{N}+(?:[.,]\p{N}+)*|[^\s\p{L}\p{N}]/gu;
const WORD_RE = /\p{L}[\p{L}\p{M}]*(?:['’]\p{L}+)?|\p{N}+(?:[.,]\p{N}+)*/gu;

/** Number of word-level tokens (words, numbers, punctuation marks), like BERT's basic tokenizer. */
export function countWordTokens(text: string): number {
  let n = 0;
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.exec(text) !== null) n++;
  return n;
}

/** Lower-cased words and numbers of a text (no punctuation). */
export function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD_RE) ?? [];
}

/** 32-bit FNV-1a hash of a string. */
export function fnv1a(s: string, seed = 2166136261): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** A second, independent mix of a hash (murmur3 finaliser), for the bucket and the sign. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
