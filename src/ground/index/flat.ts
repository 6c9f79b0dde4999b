/**
 * Exact inner-product search (FAISS's IndexFlatIP) over one contiguous row-major Float32Array.
 * On L2-normalised vectors the inner product is the cosine. Queries are processed in blocks against
 * blocks of rows (a blocked matrix–matrix product), so each block of rows is read from memory once per
 * block of queries; top-k is kept per query in a small sorted buffer, never by sorting all scores.
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

const QUERY_BLOCK = 8;
const ROW_BLOCK = 128;

export class FlatIPIndex implements VectorIndex {
  readonly size: number;

  constructor(
    readonly vectors: Float32Array,
    readonly dimension: number,
  ) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
    if (vectors.length % dimension !== 0) throw new RangeError(`vector data length ${vectors.length} is not a multiple of dimension ${dimension}`);
    this.size = vectors.length / dimension;
  }

  search(queries: Float32Array, k: number): SearchHit[][] {
    const d = this.dimension;
    if (queries.length % d !== 0) throw new RangeError(`query data length ${queries.length} is not a multiple of dimension ${d}`);
    const nq = queries.length / d;
    const kk = Math.max(0, Math.min(Math.floor(k), this.size));
    const results: SearchHit[][] = [];
    if (kk === 0) return Array.from({ length: nq }, () => []);
    const scores = new Float32Array(QUERY_BLOCK * ROW_BLOCK);
    for (let q0 = 0; q0 < nq; q0 += QUERY_BLOCK) {
      const qn = Math.min(QUERY_BLOCK, nq - q0);
      const topIds = Array.from({ length: qn }, () => new Int32Array(kk).fill(-1));
      const topScores = Array.from({ length: qn }, () => new Float32Array(kk).fill(-Infinity));
      for (let r0 = 0; r0 < this.size; r0 += ROW_BLOCK) {
        const rn = Math.min(ROW_BLOCK, this.size - r0);
        this.block(queries, q0, qn, r0, rn, scores);
        for (let qi = 0; qi < qn; qi++) {
          const ts = topScores[qi];
          const ti = topIds[qi];
          const base = qi * ROW_BLOCK;
          for (let ri = 0; ri < rn; ri++) {
            const s = scores[base + ri];
            if (s <= ts[kk - 1]) continue;
            // insertion into the sorted top-k buffer (k is small)
            let p = kk - 1;
            while (p > 0 && ts[p - 1] < s) {
              ts[p] = ts[p - 1];
              ti[p] = ti[p - 1];
              p--;
            }
            ts[p] = s;
            ti[p] = r0 + ri;
          }
        }
      }
      for (let qi = 0; qi < qn; qi++) {
        const hits: SearchHit[] = [];
        for (let p = 0; p < kk; p++) if (topIds[qi][p] >= 0) hits.push({ id: topIds[qi][p], score: topScores[qi][p] });
        results.push(hits);
      }
    }
    return results;
  }

  /**
   * scores[qi * ROW_BLOCK + ri] = <query q0+qi, row r0+ri>. A 4 × 4 register tile (four queries against
   * four rows) does 16 multiply-adds per 8 loads; edges fall back to one query × one row.
   */
  private block(queries: Float32Array, q0: number, qn: number, r0: number, rn: number, out: Float32Array): void {
    const d = this.dimension;
    const v = this.vectors;
    let qi = 0;
    for (; qi + 4 <= qn; qi += 4) {
      const qa = (q0 + qi) * d;
      const qb = qa + d;
      const qc = qb + d;
      const qd = qc + d;
      const ob = qi * ROW_BLOCK;
      let ri = 0;
      for (; ri + 4 <= rn; ri += 4) {
        const a = (r0 + ri) * d;
        const b = a + d;
        const c = b + d;
        const e = c + d;
        let s00 = 0, s01 = 0, s02 = 0, s03 = 0;
        let s10 = 0, s11 = 0, s12 = 0, s13 = 0;
        let s20 = 0, s21 = 0, s22 = 0, s23 = 0;
        let s30 = 0, s31 = 0, s32 = 0, s33 = 0;
        for (let j = 0; j < d; j++) {
          const va = v[a + j];
          const vb = v[b + j];
          const vc = v[c + j];
          const ve = v[e + j];
          const x0 = queries[qa + j];
          const x1 = queries[qb + j];
          const x2 = queries[qc + j];
          const x3 = queries[qd + j];
          s00 += x0 * va; s01 += x0 * vb; s02 += x0 * vc; s03 += x0 * ve;
          s10 += x1 * va; s11 += x1 * vb; s12 += x1 * vc; s13 += x1 * ve;
          s20 += x2 * va; s21 += x2 * vb; s22 += x2 * vc; s23 += x2 * ve;
          s30 += x3 * va; s31 += x3 * vb; s32 += x3 * vc; s33 += x3 * ve;
        }
        const o = ob + ri;
        out[o] = s00; out[o + 1] = s01; out[o + 2] = s02; out[o + 3] = s03;
        out[o + ROW_BLOCK] = s10; out[o + ROW_BLOCK + 1] = s11; out[o + ROW_BLOCK + 2] = s12; out[o + ROW_BLOCK + 3] = s13;
        out[o + 2 * ROW_BLOCK] = s20; out[o + 2 * ROW_BLOCK + 1] = s21; out[o + 2 * ROW_BLOCK + 2] = s22; out[o + 2 * ROW_BLOCK + 3] = s23;
        out[o + 3 * ROW_BLOCK] = s30; out[o + 3 * ROW_BLOCK + 1] = s31; out[o + 3 * ROW_BLOCK + 2] = s32; out[o + 3 * ROW_BLOCK + 3] = s33;
      }
      for (; ri < rn; ri++) for (let t = 0; t < 4; t++) out[(qi + t) * ROW_BLOCK + ri] = dotAt(queries, qa + t * d, v, (r0 + ri) * d, d);
    }
    for (; qi < qn; qi++) {
      const qo = (q0 + qi) * d;
      const ob = qi * ROW_BLOCK;
      let ri = 0;
      for (; ri + 4 <= rn; ri += 4) {
        const a = (r0 + ri) * d;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (let j = 0; j < d; j++) {
          const x = queries[qo + j];
          s0 += x * v[a + j];
          s1 += x * v[a + d + j];
          s2 += x * v[a + 2 * d + j];
          s3 += x * v[a + 3 * d + j];
        }
        out[ob + ri] = s0; out[ob + ri + 1] = s1; out[ob + ri + 2] = s2; out[ob + ri + 3] = s3;
      }
      for (; ri < rn; ri++) out[ob + ri] = dotAt(queries, qo, v, (r0 + ri) * d, d);
    }
  }
}

function dotAt(x: Float32Array, xo: number, y: Float32Array, yo: number, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += x[xo + j] * y[yo + j];
  return s;
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
