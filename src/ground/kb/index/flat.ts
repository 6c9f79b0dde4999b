import { JsDotKernel } from './js-kernel.js';
import { QUERY_BATCH, ROW_BLOCK, WasmDotKernel, type DotKernel } from './wasm-simd.js';
import { ArgumentError } from '../../../errors.js';

/**
 * Exact inner-product search (FAISS's IndexFlatIP) over one contiguous row-major Float32Array.
 * On L2-normalised vectors the inner product is the cosine. The dot products run in a WebAssembly
 * SIMD kernel (wasm-simd.ts; a plain-JS kernel where that is unavailable), as a blocked matrix–matrix
 * product; top-k is kept per query in a small sorted buffer, never by sorting all scores.
 */

export interface SearchHit {
  /** Row number in the index. */
  id: number;
  score: number;
}

export interface VectorIndex {
  readonly dimension: number;
  readonly size: number;
  /** Top-k rows by inner product for each query (queries packed row-major), best first. */
  search(queries: Float32Array, k: number): SearchHit[][];
}

export interface FlatIndexOptions {
  /** Dot-product kernel: WebAssembly SIMD where available (default 'auto'), or plain JavaScript. */
  kernel?: 'auto' | 'wasm-simd' | 'js';
}

export class FlatIPIndex implements VectorIndex {
  readonly size: number;
  private readonly kernel: DotKernel;

  /** The rows are copied into the kernel's memory; later changes to `vectors` are not seen. */
  constructor(
    vectors: Float32Array,
    readonly dimension: number,
    options: FlatIndexOptions = {},
  ) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw new ArgumentError(`dimension must be a positive integer, got ${dimension}`, { key: 'dimension' });
    if (vectors.length % dimension !== 0)
      throw new ArgumentError(`vector data length ${vectors.length} is not a multiple of dimension ${dimension}`, { key: 'vectors' });
    this.size = vectors.length / dimension;
    const want = options.kernel ?? 'auto';
    let kernel: DotKernel | undefined;
    if (want !== 'js') {
      try {
        kernel = new WasmDotKernel(vectors, dimension);
      } catch (err) {
        if (want === 'wasm-simd') throw err;
      }
    }
    this.kernel = kernel ?? new JsDotKernel(vectors, dimension);
  }

  /** The indexed rows, n × dimension, row-major (the kernel's copy when it keeps one). */
  get vectors(): Float32Array {
    return this.kernel.vectors;
  }

  get kernelKind(): DotKernel['kind'] {
    return this.kernel.kind;
  }

  /**
   * Blocked scan: for each batch of queries, each block of rows is scored against every query of the
   * batch while it is in cache; each query keeps its top-k in a small sorted buffer (no full sort).
   */
  search(queries: Float32Array, k: number): SearchHit[][] {
    const d = this.dimension;
    if (queries.length % d !== 0) throw new ArgumentError(`query data length ${queries.length} is not a multiple of dimension ${d}`, { key: 'queries' });
    const nq = queries.length / d;
    const kk = Math.max(0, Math.min(Math.floor(k), this.size));
    if (kk === 0) return Array.from({ length: nq }, () => []);
    const tops = Array.from({ length: nq }, () => new TopK(kk));
    const kernel = this.kernel;
    const out = kernel.out;
    const g = kernel.group;
    for (let b0 = 0; b0 < nq; b0 += QUERY_BATCH) {
      const bn = Math.min(QUERY_BATCH, nq - b0);
      kernel.loadQueries(queries, b0, bn);
      for (let r0 = 0; r0 < this.size; r0 += ROW_BLOCK) {
        const rn = Math.min(ROW_BLOCK, this.size - r0);
        for (let qi = 0; qi < bn; qi += g) {
          const qn = Math.min(g, bn - qi);
          kernel.score(qi, qn, r0, rn);
          for (let t = 0; t < qn; t++) tops[b0 + qi + t].offer(out, t * ROW_BLOCK, rn, r0);
        }
      }
    }
    return tops.map((t) => t.hits());
  }

  /**
   * For each query, the row with the highest inner product among its row ranges, given flat as
   * [from0, to0, from1, to1, …] (half-open); null when the ranges hold no row. Ranges are scanned in the
   * order given and a later row must score strictly higher to win, so ties go to the first row seen.
   */
  bestInRanges(queries: Float32Array, ranges: readonly (readonly number[])[]): (SearchHit | null)[] {
    const d = this.dimension;
    const nq = queries.length / d;
    if (!Number.isInteger(nq) || ranges.length !== nq)
      throw new ArgumentError(`expected ${nq} range lists for ${nq} queries, got ${ranges.length}`, { key: 'ranges' });
    const kernel = this.kernel;
    const out = kernel.out;
    const best: (SearchHit | null)[] = [];
    for (let b0 = 0; b0 < nq; b0 += QUERY_BATCH) {
      const bn = Math.min(QUERY_BATCH, nq - b0);
      kernel.loadQueries(queries, b0, bn);
      for (let qi = 0; qi < bn; qi++) {
        const rs = ranges[b0 + qi];
        let id = -1;
        let score = -Infinity;
        for (let p = 0; p + 1 < rs.length; p += 2) {
          const from = Math.max(0, rs[p]);
          const to = Math.min(this.size, rs[p + 1]);
          for (let r0 = from; r0 < to; r0 += ROW_BLOCK) {
            const rn = Math.min(ROW_BLOCK, to - r0);
            kernel.score(qi, 1, r0, rn);
            for (let i = 0; i < rn; i++) {
              if (out[i] > score || id < 0) {
                score = out[i];
                id = r0 + i;
              }
            }
          }
        }
        best.push(id < 0 ? null : { id, score });
      }
    }
    return best;
  }
}

/** The k best (id, score) pairs seen so far, best first; ties keep the lower id first, as a stable sort does. */
class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private filled = 0;

  constructor(private readonly k: number) {
    this.ids = new Int32Array(k).fill(-1);
    this.scores = new Float64Array(k).fill(-Infinity);
  }

  /** Offer scores[from .. from + n) for rows firstId .. firstId + n. */
  offer(scores: Float32Array, from: number, n: number, firstId: number): void {
    const ts = this.scores;
    const ti = this.ids;
    const last = this.k - 1;
    let threshold = ts[last];
    for (let i = 0; i < n; i++) {
      const s = scores[from + i];
      if (!(s > threshold)) continue; // also skips NaN
      let p = last;
      while (p > 0 && ts[p - 1] < s) {
        ts[p] = ts[p - 1];
        ti[p] = ti[p - 1];
        p--;
      }
      ts[p] = s;
      ti[p] = firstId + i;
      if (this.filled < this.k) this.filled++;
      threshold = ts[last];
    }
  }

  hits(): SearchHit[] {
    const out: SearchHit[] = [];
    for (let p = 0; p < this.filled; p++) out.push({ id: this.ids[p], score: this.scores[p] });
    return out;
  }
}

/** The naive baseline for benchmarks and tests: vectors as arrays of numbers, all scores sorted. */
export function naiveSearch(vectors: number[][], query: number[], k: number): SearchHit[] {
  const all: SearchHit[] = [];
  for (let i = 0; i < vectors.length; i++) {
    let s = 0;
    for (let j = 0; j < query.length; j++) s += query[j] * vectors[i][j];
    all.push({ id: i, score: s });
  }
  all.sort((a, b) => b.score - a.score);
  return all.slice(0, k);
}
