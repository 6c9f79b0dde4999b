import { ROW_BLOCK, type DotKernel } from './wasm-simd.js';

/**
 * The plain-JavaScript fallback of the dot-product kernel (where WebAssembly SIMD is unavailable, or the
 * rows exceed 4 GiB): a 4 × 4 register tile, four queries against four rows, 16 multiply-adds per 8 loads.
 */
export class JsDotKernel implements DotKernel {
  readonly kind = 'js';
  readonly group = 4;
  readonly out = new Float32Array(4 * ROW_BLOCK);
  private queries: Float32Array = new Float32Array(0);
  private q0 = 0;

  constructor(
    readonly vectors: Float32Array,
    private readonly dimension: number,
  ) {}

  loadQueries(queries: Float32Array, from: number): void {
    this.queries = queries;
    this.q0 = from;
  }

  score(qi: number, qn: number, r0: number, rn: number): void {
    const d = this.dimension;
    const v = this.vectors;
    const q = this.queries;
    const out = this.out;
    const qa = (this.q0 + qi) * d;
    if (qn < 4) {
      for (let t = 0; t < qn; t++) for (let ri = 0; ri < rn; ri++) out[t * ROW_BLOCK + ri] = dotAt(q, qa + t * d, v, (r0 + ri) * d, d);
      return;
    }
    const qb = qa + d;
    const qc = qb + d;
    const qd = qc + d;
    let ri = 0;
    for (; ri + 4 <= rn; ri += 4) {
      const a = (r0 + ri) * d;
      const b = a + d;
      const c = b + d;
      const e = c + d;
      let s00 = 0,
        s01 = 0,
        s02 = 0,
        s03 = 0;
      let s10 = 0,
        s11 = 0,
        s12 = 0,
        s13 = 0;
      let s20 = 0,
        s21 = 0,
        s22 = 0,
        s23 = 0;
      let s30 = 0,
        s31 = 0,
        s32 = 0,
        s33 = 0;
      for (let j = 0; j < d; j++) {
        const va = v[a + j];
        const vb = v[b + j];
        const vc = v[c + j];
        const ve = v[e + j];
        const x0 = q[qa + j];
        const x1 = q[qb + j];
        const x2 = q[qc + j];
        const x3 = q[qd + j];
        s00 += x0 * va;
        s01 += x0 * vb;
        s02 += x0 * vc;
        s03 += x0 * ve;
        s10 += x1 * va;
        s11 += x1 * vb;
        s12 += x1 * vc;
        s13 += x1 * ve;
        s20 += x2 * va;
        s21 += x2 * vb;
        s22 += x2 * vc;
        s23 += x2 * ve;
        s30 += x3 * va;
        s31 += x3 * vb;
        s32 += x3 * vc;
        s33 += x3 * ve;
      }
      const R = ROW_BLOCK;
      out[ri] = s00;
      out[ri + 1] = s01;
      out[ri + 2] = s02;
      out[ri + 3] = s03;
      out[R + ri] = s10;
      out[R + ri + 1] = s11;
      out[R + ri + 2] = s12;
      out[R + ri + 3] = s13;
      out[2 * R + ri] = s20;
      out[2 * R + ri + 1] = s21;
      out[2 * R + ri + 2] = s22;
      out[2 * R + ri + 3] = s23;
      out[3 * R + ri] = s30;
      out[3 * R + ri + 1] = s31;
      out[3 * R + ri + 2] = s32;
      out[3 * R + ri + 3] = s33;
    }
    for (; ri < rn; ri++) for (let t = 0; t < 4; t++) out[t * ROW_BLOCK + ri] = dotAt(q, qa + t * d, v, (r0 + ri) * d, d);
  }
}

function dotAt(x: Float32Array, xo: number, y: Float32Array, yo: number, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += x[xo + j] * y[yo + j];
  return s;
}
