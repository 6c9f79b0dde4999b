import { segmentClaimSpans } from '../claims/claims.js';
import { ArgumentError } from '../../errors.js';

/**
 * Chunking (design §3.2): fixed-size overlapping chunks of 500–700 tokens with 10–15% overlap, counted
 * with the embedder's own tokenizer. Chunks are the retrieval unit; sentence windows are the scoring
 * unit. all-MiniLM-L6-v2 sees at most 256 word pieces, so a 600-token chunk would be truncated: every
 * chunk is therefore also cut into sentence windows of at most `windowTokens` tokens, a claim is scored
 * against the windows of its retrieved chunks, and a chunk's vector is the normalised mean of its
 * windows' vectors — so every part of a chunk is visible to retrieval and to scoring.
 */

export interface ChunkOptions {
  /** Target chunk size in tokens (500–700). */
  size?: number;
  /** Overlap as a fraction of size (0.10–0.15). */
  overlap?: number;
  /** Largest window in tokens (below the embedder's limit; MiniLM: 256 word pieces). */
  windowTokens?: number;
}

export interface Span {
  start: number;
  end: number;
  tokens: number;
}

export interface ChunkedDocument {
  chunks: Span[];
  /** Sentence windows of the whole document, in order; sentences are never cut by chunk edges. */
  windows: Span[];
  /** For chunk c, windows [from, to) overlap its character range. */
  chunkWindows: [number, number][];
}

export const DEFAULT_CHUNK_OPTIONS = { size: 600, overlap: 0.125, windowTokens: 128 } as const;

interface Unit {
  start: number;
  end: number;
  tokens: number;
}

/** Whitespace-delimited words with their token counts (sub-word tokenizers never merge across spaces). */
function units(text: string, countTokens: (s: string) => number, from = 0, to = text.length): Unit[] {
  const out: Unit[] = [];
  const re = /\S+/g;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null && m.index < to) {
    const end = Math.min(m.index + m[0].length, to);
    out.push({ start: m.index, end, tokens: countTokens(text.slice(m.index, end)) });
  }
  return out;
}

export function validateChunkOptions(o: ChunkOptions): Required<ChunkOptions> {
  const r = { ...DEFAULT_CHUNK_OPTIONS, ...o };
  if (!(r.size >= 500 && r.size <= 700)) throw new ArgumentError(`chunk size must be within 500–700 tokens, got ${r.size}`, { key: 'size' });
  if (!(r.overlap >= 0.1 && r.overlap <= 0.15)) throw new ArgumentError(`chunk overlap must be within 0.10–0.15, got ${r.overlap}`, { key: 'overlap' });
  if (!(r.windowTokens >= 16 && r.windowTokens <= 256))
    throw new ArgumentError(`window size must be within 16–256 tokens, got ${r.windowTokens}`, { key: 'windowTokens' });
  return r;
}

export function chunkDocument(text: string, countTokens: (s: string) => number, options: ChunkOptions = {}): ChunkedDocument {
  const o = validateChunkOptions(options);
  const us = units(text, countTokens);
  const chunks: Span[] = [];
  const overlapTokens = Math.round(o.size * o.overlap);
  let i = 0;
  while (i < us.length) {
    let j = i;
    let tokens = 0;
    while (j < us.length && (tokens + us[j].tokens <= o.size || j === i)) tokens += us[j++].tokens;
    chunks.push({ start: us[i].start, end: us[j - 1].end, tokens });
    if (j >= us.length) break;
    // Step back over the last units until they hold the overlap; always advance at least one unit.
    let back = j;
    let carried = 0;
    while (back > i + 1 && carried + us[back - 1].tokens <= overlapTokens) carried += us[--back].tokens;
    i = back;
  }
  const windows = sentenceWindows(text, countTokens, o.windowTokens);
  const chunkWindows: [number, number][] = [];
  let w0 = 0;
  for (const c of chunks) {
    while (w0 < windows.length && windows[w0].end <= c.start) w0++;
    let w1 = w0;
    while (w1 < windows.length && windows[w1].start < c.end) w1++;
    chunkWindows.push([w0, w1]);
  }
  return { chunks, windows, chunkWindows };
}

/** One window per sentence; a sentence longer than `max` tokens is cut into consecutive pieces. */
export function sentenceWindows(text: string, countTokens: (s: string) => number, max: number): Span[] {
  const out: Span[] = [];
  for (const s of segmentClaimSpans(text, { all: true })) {
    const tokens = countTokens(s.text);
    if (tokens <= max) {
      out.push({ start: s.start, end: s.end, tokens });
      continue;
    }
    let cur: Span | null = null;
    for (const u of units(text, countTokens, s.start, s.end)) {
      if (cur && cur.tokens + u.tokens > max) {
        out.push(cur);
        cur = null;
      }
      cur = cur ? { start: cur.start, end: u.end, tokens: cur.tokens + u.tokens } : { ...u };
    }
    if (cur) out.push(cur);
  }
  return out;
}
