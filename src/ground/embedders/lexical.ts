import type { SupportThresholds } from '../types.js';
import { countWordTokens, fnv1a, mix32, words } from '../claims/text.js';
import type { EmbedderSpec, KbEmbedder } from './spec.js';
import { ArgumentError } from '../../errors.js';

/**
 * The built-in embedder: no weights, no network. Hashed word unigrams, word bigrams and character
 * 3–5-grams (inside word boundaries, as fastText does), each weighted by sublinear tf (1 + ln tf) × idf,
 * projected to `dimension` signed buckets (the hashing trick), each feature group L2-normalised and
 * mixed with fixed weights, then L2-normalised. IDF comes from the knowledge base (`fit`) and is stored
 * with it, in a table of 2^18 feature buckets.
 */

export interface LexicalOptions {
  dimension?: number;
  thresholds?: SupportThresholds;
  /** Squared-norm share of each feature group in the final vector. */
  weights?: { word: number; bigram: number; char: number };
}

/** A priori defaults (lexical cosines run lower than MiniLM's 0.75/0.50); fit per KB with `assay calibrate` (docs/grounding.md). */
export const LEXICAL_DEFAULT_THRESHOLDS: SupportThresholds = { strong: 0.6, weak: 0.35 };
const IDF_BITS = 18;
const IDF_SIZE = 1 << IDF_BITS;
const DEFAULT_WEIGHTS = { word: 0.5, bigram: 0.2, char: 0.3 };
const STATE_MAGIC = 0x4c584931; // "LXI1"

interface Features {
  word: Map<number, number>;
  bigram: Map<number, number>;
  char: Map<number, number>;
}

function features(text: string): Features {
  const ws = words(text);
  const f: Features = { word: new Map(), bigram: new Map(), char: new Map() };
  const add = (m: Map<number, number>, key: string) => {
    const h = fnv1a(key);
    m.set(h, (m.get(h) ?? 0) + 1);
  };
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    add(f.word, 'w' + w);
    if (i > 0) add(f.bigram, 'b' + ws[i - 1] + ' ' + w);
    const padded = `<${w}>`;
    for (let n = 3; n <= 5; n++) {
      for (let s = 0; s + n <= padded.length; s++) add(f.char, 'c' + padded.slice(s, s + n));
    }
  }
  return f;
}

export class LexicalEmbedder implements KbEmbedder {
  readonly dimension: number;
  readonly thresholds: SupportThresholds;
  private readonly weights: { word: number; bigram: number; char: number };
  /** idf per feature bucket; all ones before fitting. */
  private readonly idf: Float32Array;
  private readonly docs: number;

  constructor(options: LexicalOptions = {}, idf?: Float32Array, docs = 0) {
    this.dimension = options.dimension ?? 384;
    if (!Number.isInteger(this.dimension) || this.dimension < 8)
      throw new ArgumentError(`lexical dimension must be an integer ≥ 8, got ${this.dimension}`, { key: 'dimension' });
    this.thresholds = options.thresholds ?? LEXICAL_DEFAULT_THRESHOLDS;
    this.weights = options.weights ?? DEFAULT_WEIGHTS;
    this.idf = idf ?? new Float32Array(IDF_SIZE).fill(1);
    this.docs = docs;
  }

  get id(): string {
    return `lexical:v1:d${this.dimension}`;
  }

  spec(): EmbedderSpec {
    return { kind: 'lexical', id: this.id, dimension: this.dimension, settings: { weights: this.weights, ngrams: [3, 5], idfBits: IDF_BITS } };
  }

  /** The fitted idf of a lower-cased word (as `words()` yields it), for the claim features' weighted coverage. */
  wordIdf(word: string): number {
    return this.idf[fnv1a('w' + word) & (IDF_SIZE - 1)];
  }

  countTokens(text: string): number {
    return countWordTokens(text);
  }

  /** Smoothed idf = ln((N + 1) / (df + 1)) + 1 over the given documents. */
  fit(texts: string[]): LexicalEmbedder {
    const df = new Uint32Array(IDF_SIZE);
    const seen = new Uint8Array(IDF_SIZE);
    const touched: number[] = [];
    for (const t of texts) {
      const f = features(t);
      for (const m of [f.word, f.bigram, f.char]) {
        for (const h of m.keys()) {
          const b = h & (IDF_SIZE - 1);
          if (!seen[b]) {
            seen[b] = 1;
            touched.push(b);
            df[b]++;
          }
        }
      }
      for (const b of touched) seen[b] = 0;
      touched.length = 0;
    }
    const n = texts.length;
    const idf = new Float32Array(IDF_SIZE);
    for (let b = 0; b < IDF_SIZE; b++) idf[b] = Math.log((n + 1) / (df[b] + 1)) + 1;
    return new LexicalEmbedder({ dimension: this.dimension, thresholds: this.thresholds, weights: this.weights }, idf, n);
  }

  state(): Uint8Array {
    const out = new Uint8Array(8 + IDF_SIZE * 4);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, STATE_MAGIC, true);
    dv.setUint32(4, this.docs, true);
    out.set(new Uint8Array(this.idf.buffer, this.idf.byteOffset, this.idf.byteLength), 8);
    return out;
  }

  withState(bytes: Uint8Array): LexicalEmbedder {
    return LexicalEmbedder.fromState(bytes, { dimension: this.dimension, thresholds: this.thresholds, weights: this.weights });
  }

  static fromState(bytes: Uint8Array, options: LexicalOptions = {}): LexicalEmbedder {
    if (bytes.byteLength !== 8 + IDF_SIZE * 4) throw new Error(`lexical state has ${bytes.byteLength} bytes, expected ${8 + IDF_SIZE * 4}`);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (dv.getUint32(0, true) !== STATE_MAGIC) throw new Error('lexical state has a wrong magic number');
    const idf = new Float32Array(IDF_SIZE);
    new Uint8Array(idf.buffer).set(bytes.subarray(8));
    return new LexicalEmbedder(options, idf, dv.getUint32(4, true));
  }

  async embed(texts: string[]): Promise<Float32Array> {
    return this.embedSync(texts);
  }

  embedSync(texts: string[]): Float32Array {
    const d = this.dimension;
    const out = new Float32Array(texts.length * d);
    const group = new Float32Array(d);
    for (let r = 0; r < texts.length; r++) {
      const f = features(texts[r]);
      const row = out.subarray(r * d, (r + 1) * d);
      let total = 0;
      for (const [name, m] of [
        ['word', f.word],
        ['bigram', f.bigram],
        ['char', f.char],
      ] as const) {
        if (m.size === 0) continue;
        group.fill(0);
        for (const [h, tf] of m) {
          const w = (1 + Math.log(tf)) * this.idf[h & (IDF_SIZE - 1)];
          const x = mix32(h);
          group[x % d] += x & 0x80000000 ? -w : w;
        }
        let s = 0;
        for (let i = 0; i < d; i++) s += group[i] * group[i];
        if (s === 0) continue;
        const scale = Math.sqrt(this.weights[name] / s);
        for (let i = 0; i < d; i++) row[i] += group[i] * scale;
        total += 1;
      }
      if (total === 0) continue;
      let s = 0;
      for (let i = 0; i < d; i++) s += row[i] * row[i];
      const inv = 1 / Math.sqrt(s);
      for (let i = 0; i < d; i++) row[i] *= inv;
    }
    return out;
  }
}

export function createLexicalEmbedder(options: LexicalOptions = {}): LexicalEmbedder {
  return new LexicalEmbedder(options);
}
