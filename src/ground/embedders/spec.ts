import type { Embedder } from '../types.js';

/**
 * How a knowledge base records its embedder: kind + the settings that change vectors. Querying a KB
 * with an embedder whose spec differs is an error (vectors from different spaces do not compare).
 */
export interface EmbedderSpec {
  kind: 'lexical' | 'transformers' | 'openai';
  id: string;
  dimension: number;
  /** Settings that change the vectors (model, pooling, max tokens, feature set, …). */
  settings: Record<string, unknown>;
}

/** An embedder the knowledge base can persist and check; `fit`/`state` only for embedders that learn from the KB. */
export interface KbEmbedder extends Embedder {
  spec(): EmbedderSpec;
  /** Learn corpus statistics (the lexical IDF) from the KB's texts; returns a new embedder. */
  fit?(texts: string[]): KbEmbedder;
  /** Binary state stored with the KB (the lexical IDF table). */
  state?(): Uint8Array;
  /** The same embedder with a stored state loaded (inverse of `state`). */
  withState?(bytes: Uint8Array): KbEmbedder;
}

/** Stable comparison of two specs (settings compared as sorted JSON). */
export function sameSpec(a: EmbedderSpec, b: EmbedderSpec): boolean {
  return a.kind === b.kind && a.id === b.id && a.dimension === b.dimension && stableJson(a.settings) === stableJson(b.settings);
}

export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** L2-normalise each row of a row-major matrix in place; zero rows stay zero. */
export function normalizeRows(m: Float32Array, dimension: number): Float32Array {
  for (let r = 0; r * dimension < m.length; r++) {
    let s = 0;
    const o = r * dimension;
    for (let d = 0; d < dimension; d++) s += m[o + d] * m[o + d];
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let d = 0; d < dimension; d++) m[o + d] *= inv;
    }
  }
  return m;
}
