import { chunkDocument, validateChunkOptions, type ChunkOptions } from './chunk.js';
import type { KbEmbedder } from '../embedders/spec.js';
import { normalizeRows } from '../embedders/spec.js';
import { FlatIPIndex, type SearchHit } from './index/flat.js';

/**
 * The knowledge base in memory: documents, their chunks (retrieval unit) and sentence windows
 * (scoring unit), window vectors and chunk vectors (the normalised mean of a chunk's window vectors),
 * and an exact inner-product index over the chunk vectors. Persistence lives in kb-store.ts.
 */

export interface KbWindow {
  /** Character offsets in the document text. */
  start: number;
  end: number;
  tokens: number;
}

export interface KbChunkMeta {
  /** Character offsets in the document text. */
  start: number;
  end: number;
  tokens: number;
  /** Windows [from, to), numbered within the document. */
  windows: [number, number];
}

export interface KbDocument {
  /** Path as given at ingest, relative to the working directory, with forward slashes (the label in reports). */
  source: string;
  /**
   * The file's path relative to the KB directory, with forward slashes: how a re-ingest recognises the
   * same file from any working directory. Absent in KBs built from texts (tests, benchmarks).
   */
  path?: string;
  sha256: string;
  /** Extracted text; chunk and window texts are slices of it. */
  text: string;
  chunks: KbChunkMeta[];
  windows: KbWindow[];
}

/** A chunk resolved to global numbering. */
export interface KbChunk {
  /** "<source>#<index>" */
  id: string;
  doc: number;
  index: number;
  start: number;
  end: number;
  /** Global window numbers [from, to). */
  windows: [number, number];
}

export class KnowledgeBase {
  readonly chunks: KbChunk[] = [];
  /** For each global window: its document and range. */
  readonly windowDoc: Int32Array;
  readonly windowStart: Int32Array;
  readonly windowEnd: Int32Array;
  /** Exact inner-product index over the chunk vectors (retrieval). */
  readonly index: FlatIPIndex;
  /** The window vectors in the same kind of index, for scoring claims against the windows of retrieved chunks. */
  readonly windowIndex: FlatIPIndex;

  constructor(
    readonly embedder: KbEmbedder,
    readonly documents: KbDocument[],
    /** windows × dimension, row-major, L2-normalised (copied into the window index) */
    windowVectors: Float32Array,
    /** chunks × dimension, row-major, L2-normalised (copied into the chunk index) */
    chunkVectors: Float32Array,
    readonly chunkOptions: Required<ChunkOptions>,
  ) {
    const nw = documents.reduce((s, d) => s + d.windows.length, 0);
    this.windowDoc = new Int32Array(nw);
    this.windowStart = new Int32Array(nw);
    this.windowEnd = new Int32Array(nw);
    let w = 0;
    documents.forEach((d, di) => {
      const base = w;
      for (const win of d.windows) {
        this.windowDoc[w] = di;
        this.windowStart[w] = win.start;
        this.windowEnd[w] = win.end;
        w++;
      }
      d.chunks.forEach((c, ci) =>
        this.chunks.push({ id: `${d.source}#${ci}`, doc: di, index: ci, start: c.start, end: c.end, windows: [base + c.windows[0], base + c.windows[1]] }),
      );
    });
    const dim = embedder.dimension;
    if (windowVectors.length !== nw * dim) throw new Error(`window vectors hold ${windowVectors.length / dim} rows for ${nw} windows`);
    if (chunkVectors.length !== this.chunks.length * dim)
      throw new Error(`chunk vectors hold ${chunkVectors.length / dim} rows for ${this.chunks.length} chunks`);
    this.index = new FlatIPIndex(chunkVectors, dim);
    this.windowIndex = new FlatIPIndex(windowVectors, dim);
  }

  /** windows × dimension, row-major (the window index's storage: no second copy is kept). */
  get windowVectors(): Float32Array {
    return this.windowIndex.vectors;
  }

  /** chunks × dimension, row-major (the chunk index's storage). */
  get chunkVectors(): Float32Array {
    return this.index.vectors;
  }

  get windowCount(): number {
    return this.windowDoc.length;
  }

  windowText(w: number): string {
    return this.documents[this.windowDoc[w]].text.slice(this.windowStart[w], this.windowEnd[w]);
  }

  chunkText(c: number): string {
    const ch = this.chunks[c];
    return this.documents[ch.doc].text.slice(ch.start, ch.end);
  }

  /** Top-k chunks per query vector (queries packed row-major). */
  retrieve(queries: Float32Array, k: number): SearchHit[][] {
    return this.index.search(queries, k);
  }
}

export interface SourceText {
  source: string;
  sha256: string;
  text: string;
  path?: string;
}

/** Chunk and window one document's text with the embedder's tokenizer. */
export function segmentDocument(src: SourceText, embedder: KbEmbedder, options: ChunkOptions): KbDocument {
  const tokens = (s: string) => embedder.countTokens(s);
  const { chunks, windows, chunkWindows } = chunkDocument(src.text, tokens, options);
  return {
    source: src.source,
    ...(src.path === undefined ? {} : { path: src.path }),
    sha256: src.sha256,
    text: src.text,
    windows: windows.map((w) => ({ start: w.start, end: w.end, tokens: w.tokens })),
    chunks: chunks.map((c, i) => ({ start: c.start, end: c.end, tokens: c.tokens, windows: chunkWindows[i] })),
  };
}

/** Chunk vector = L2-normalised mean of its window vectors (all parts of the chunk count). */
export function chunkVectorsFromWindows(documents: KbDocument[], windowVectors: Float32Array, dim: number): Float32Array {
  const nChunks = documents.reduce((s, d) => s + d.chunks.length, 0);
  const out = new Float32Array(nChunks * dim);
  let c = 0;
  let base = 0;
  for (const d of documents) {
    for (const ch of d.chunks) {
      const row = out.subarray(c * dim, (c + 1) * dim);
      for (let w = base + ch.windows[0]; w < base + ch.windows[1]; w++) {
        const o = w * dim;
        for (let j = 0; j < dim; j++) row[j] += windowVectors[o + j];
      }
      c++;
    }
    base += d.windows.length;
  }
  return normalizeRows(out, dim);
}

export interface BuildOptions {
  chunk?: ChunkOptions;
  /** Window vectors already computed for unchanged documents (by sha256), reused when the embedder is not refitted. */
  reuse?: Map<string, Float32Array>;
  /** Embedding batch size. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Refit an embedder that learns from the KB (lexical IDF) on this KB's windows (default true). */
  fit?: boolean;
}

/**
 * Build a knowledge base in memory from already-segmented documents. An embedder with `fit` (lexical)
 * is refitted on all windows first, so its IDF matches the whole KB (and every vector is recomputed).
 */
export async function buildKnowledgeBase(documents: KbDocument[], base: KbEmbedder, options: BuildOptions = {}): Promise<KnowledgeBase> {
  const chunkOptions = validateChunkOptions(options.chunk ?? {});
  const windowTexts = (d: KbDocument) => d.windows.map((w) => d.text.slice(w.start, w.end));
  const refit = base.fit !== undefined && options.fit !== false;
  const embedder = refit && base.fit ? base.fit(documents.flatMap(windowTexts)) : base;
  const reuse = refit ? undefined : options.reuse;
  const dim = embedder.dimension;
  const total = documents.reduce((s, d) => s + d.windows.length, 0);
  const windowVectors = new Float32Array(total * dim);
  const batch = options.batchSize ?? 64;
  let offset = 0;
  let done = 0;
  for (const d of documents) {
    const cached = reuse?.get(d.sha256);
    if (cached && cached.length === d.windows.length * dim) {
      windowVectors.set(cached, offset * dim);
    } else {
      const texts = windowTexts(d);
      for (let i = 0; i < texts.length; i += batch) {
        const v = await embedder.embed(texts.slice(i, i + batch));
        windowVectors.set(v, (offset + i) * dim);
        options.onProgress?.(done + Math.min(i + batch, texts.length), total);
      }
    }
    offset += d.windows.length;
    done += d.windows.length;
    options.onProgress?.(done, total);
  }
  return new KnowledgeBase(embedder, documents, windowVectors, chunkVectorsFromWindows(documents, windowVectors, dim), chunkOptions);
}

/** Convenience for tests and benchmarks: a KB from raw texts, no disk. */
export async function knowledgeBaseFromTexts(
  texts: { source: string; text: string }[],
  embedder: KbEmbedder,
  options: BuildOptions = {},
): Promise<KnowledgeBase> {
  const docs = texts.map((t) => segmentDocument({ source: t.source, sha256: '', text: t.text }, embedder, options.chunk ?? {}));
  return buildKnowledgeBase(docs, embedder, options);
}
