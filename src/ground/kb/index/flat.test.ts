import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../core/testing/prng.js';
import { vectorIndexContract } from './contract.case.js';
import { FlatIPIndex, naiveSearch } from './flat.js';
import { kernelModule, kernelModuleBytes } from './wasm-simd.js';

vectorIndexContract('FlatIPIndex (WebAssembly SIMD kernel)', (v, d) => new FlatIPIndex(v, d, { kernel: 'wasm-simd' }));
vectorIndexContract('FlatIPIndex (JavaScript kernel)', (v, d) => new FlatIPIndex(v, d, { kernel: 'js' }));

/** Seeded uniform numbers in [-0.5, 0.5). */
const xorshift = (seed: number) => {
  const u = mulberry32(seed);
  return () => u() - 0.5;
};

describe('FlatIPIndex', () => {
  it('rejects data whose length is not a multiple of the dimension', () => {
    expect(() => new FlatIPIndex(new Float32Array(7), 3)).toThrow(/multiple/);
  });

  it('emits a valid WebAssembly module and uses it by default on Node 20+', () => {
    expect(WebAssembly.validate(kernelModuleBytes())).toBe(true);
    expect(kernelModule()).not.toBeNull();
    expect(new FlatIPIndex(new Float32Array(8), 4).kernelKind).toBe('wasm-simd');
  });

  it('matches the naive loop on normalised 384-d vectors across block, batch and tile edges', () => {
    // 1,000 rows: 7 full row blocks + a partial one; 131 queries: 2 full query batches + 3, odd tile tail.
    const n = 1000;
    const d = 384;
    const r = xorshift(42);
    const v = new Float32Array(n * d).map(() => r());
    for (let i = 0; i < n; i++) {
      const row = v.subarray(i * d, (i + 1) * d);
      const norm = Math.hypot(...row);
      row.forEach((x, j) => (row[j] = x / norm));
    }
    const nq = 131;
    const q = new Float32Array(nq * d).map(() => r());
    const rows = Array.from({ length: n }, (_, i) => Array.from(v.subarray(i * d, (i + 1) * d)));
    for (const kernel of ['wasm-simd', 'js'] as const) {
      const got = new FlatIPIndex(v, d, { kernel }).search(q, 5);
      for (let i = 0; i < nq; i++) {
        const want = naiveSearch(rows, Array.from(q.subarray(i * d, (i + 1) * d)), 5);
        expect(
          got[i].map((h) => h.id),
          `${kernel} query ${i}`,
        ).toEqual(want.map((h) => h.id));
        got[i].forEach((h, j) => expect(Math.abs(h.score - want[j].score)).toBeLessThan(1e-5));
      }
    }
  });

  it('keeps the lower id first among equal scores, like a stable sort', () => {
    const v = new Float32Array([0.6, 0.8, 0, 1, 0.6, 0.8, 0.6, 0.8]);
    for (const kernel of ['wasm-simd', 'js'] as const) {
      const hits = new FlatIPIndex(v, 2, { kernel }).search(new Float32Array([0.6, 0.8]), 3)[0];
      expect(hits.map((h) => h.id)).toEqual([0, 2, 3]);
    }
  });

  it('exposes its rows unchanged, including a dimension that is not a multiple of 4', () => {
    for (const d of [4, 5]) {
      const v = new Float32Array(3 * d).map((_, i) => i / 7);
      const idx = new FlatIPIndex(v, d);
      expect(Array.from(idx.vectors)).toEqual(Array.from(v));
    }
  });

  it('bestInRanges finds the best row of each query within its ranges, as a naive scan does', () => {
    const n = 600;
    const d = 37;
    const r = xorshift(9);
    const v = new Float32Array(n * d).map(() => r());
    const nq = 70; // more than one query batch
    const q = new Float32Array(nq * d).map(() => r());
    const ranges = Array.from({ length: nq }, (_, i) => (i % 7 === 0 ? [] : [i * 3, i * 3 + 1 + (i % 5) * 40, 500, 600, 10, 10]));
    for (const kernel of ['wasm-simd', 'js'] as const) {
      const got = new FlatIPIndex(v, d, { kernel }).bestInRanges(q, ranges);
      ranges.forEach((rs, i) => {
        let want: { id: number; score: number } | null = null;
        for (let p = 0; p < rs.length; p += 2) {
          for (let row = rs[p]; row < rs[p + 1]; row++) {
            let s = 0;
            for (let j = 0; j < d; j++) s += q[i * d + j] * v[row * d + j];
            if (!want || s > want.score) want = { id: row, score: s };
          }
        }
        if (want === null) expect(got[i], `${kernel} query ${i}`).toBeNull();
        else {
          expect(got[i]?.id, `${kernel} query ${i}`).toBe(want.id);
          expect(got[i]?.score).toBeCloseTo(want.score, 5);
        }
      });
    }
  });

  it('bestInRanges scores a range that starts off the tile grid at the very end of the memory', () => {
    // 928 × 16-d rows fill the WebAssembly memory to its last byte; a 4-row tile starting at row 927 reads past row 928.
    const d = 16;
    const n = 928;
    const v = new Float32Array(n * d).map((_, i) => Math.sin(i * 0.37));
    const idx = new FlatIPIndex(v, d);
    const q = v.slice((n - 1) * d, n * d);
    for (const start of [n - 1, n - 2, n - 3, n - 5]) {
      const got = idx.bestInRanges(q, [[start, n]])[0];
      let want = { id: -1, score: -Infinity };
      for (let r = start; r < n; r++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += q[j] * v[r * d + j];
        if (s > want.score) want = { id: r, score: s };
      }
      expect(got?.id).toBe(want.id);
      expect(got?.score).toBeCloseTo(want.score, 4);
    }
  });

  it('bestInRanges gives a tie to the row met first and rejects a wrong number of range lists', () => {
    const v = new Float32Array([1, 0, 0, 1, 1, 0]);
    const idx = new FlatIPIndex(v, 2);
    expect(idx.bestInRanges(new Float32Array([1, 0]), [[2, 3, 0, 2]])[0]).toEqual({ id: 2, score: 1 });
    expect(idx.bestInRanges(new Float32Array([1, 0]), [[0, 3]])[0]).toEqual({ id: 0, score: 1 });
    expect(() => idx.bestInRanges(new Float32Array([1, 0]), [])).toThrow(/range lists/);
  });
});
