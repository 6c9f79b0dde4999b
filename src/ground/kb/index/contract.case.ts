import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../core/testing/prng.js';
import { naiveSearch, type VectorIndex } from './flat.js';

/** Shared VectorIndex contract: exact top-k by inner product, best first, against a brute-force reference. */
export function vectorIndexContract(name: string, make: (vectors: Float32Array, dimension: number) => VectorIndex): void {
  const rand = (seed: number) => {
    const u = mulberry32(seed);
    return () => u() - 0.5;
  };
  const matrix = (n: number, d: number, seed: number) => {
    const r = rand(seed);
    const m = new Float32Array(n * d);
    for (let i = 0; i < m.length; i++) m[i] = r();
    return m;
  };
  const rows = (m: Float32Array, d: number) => Array.from({ length: m.length / d }, (_, i) => Array.from(m.subarray(i * d, (i + 1) * d)));

  describe(`vector index contract: ${name}`, () => {
    it('returns the exact top-k of a brute-force search, best first, for batches of queries', () => {
      for (const [n, d, nq, k] of [
        [1000, 24, 13, 5],
        [257, 7, 3, 10],
        [5, 3, 9, 5],
      ]) {
        const v = matrix(n, d, n + d);
        const q = matrix(nq, d, 99 + n);
        const idx = make(v, d);
        expect(idx.size).toBe(n);
        expect(idx.dimension).toBe(d);
        const got = idx.search(q, k);
        expect(got.length).toBe(nq);
        const vr = rows(v, d);
        rows(q, d).forEach((qq, i) => {
          const want = naiveSearch(vr, qq, k);
          expect(got[i].map((h) => h.id)).toEqual(want.map((h) => h.id));
          got[i].forEach((h, j) => expect(h.score).toBeCloseTo(want[j].score, 4));
        });
      }
    });

    it('caps k at the index size and returns nothing for k = 0 or an empty index', () => {
      const idx = make(matrix(3, 4, 1), 4);
      expect(idx.search(matrix(1, 4, 2), 10)[0].length).toBe(3);
      expect(idx.search(matrix(2, 4, 2), 0)).toEqual([[], []]);
      expect(make(new Float32Array(0), 4).search(matrix(1, 4, 3), 5)).toEqual([[]]);
    });

    it('rejects queries whose length is not a multiple of the dimension', () => {
      expect(() => make(matrix(3, 4, 1), 4).search(new Float32Array(5), 1)).toThrow(/dimension/);
    });

    it('scores an identical normalised vector as 1', () => {
      const v = new Float32Array([1, 0, 0, 0, 0.6, 0.8]);
      const hits = make(v, 3).search(new Float32Array([0, 0.6, 0.8]), 2)[0];
      expect(hits[0]).toEqual({ id: 1, score: expect.closeTo(1, 6) });
      expect(hits[1].score).toBeCloseTo(0, 6);
    });
  });
}
