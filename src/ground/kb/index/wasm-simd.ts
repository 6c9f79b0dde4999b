import { ArgumentError } from '../../../errors.js';
import { pushAll } from '../../../core/arrays.js';
/**
 * A WebAssembly SIMD (128-bit, f32x4) dot-product kernel for the flat index, emitted as bytes here so
 * no build step or binary file is needed. Rows and queries live in the module's linear memory, zero-
 * padded to a multiple of 4 floats; one call scores a tile of QT queries against a run of rows, RT rows
 * at a time (QT × RT register accumulators of 4 lanes each), and writes the scores to an output buffer.
 * Lanes are summed once at the end, so scores equal the f32 dot product up to rounding order.
 */

const I32 = 0x7f;
const V128 = 0x7b;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const str = (s: string) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

// Opcodes (WebAssembly core 2.0 + fixed-width SIMD).
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  get: 0x20,
  set: 0x21,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  f32Store: 0x38,
  f32Add: 0x92,
};
const simd = (code: number) => [0xfd, ...uleb(code)];
const V128_LOAD = [...simd(0x00), 4, 0]; // align 2^4, offset 0
const V128_ZERO = [...simd(0x0c), ...new Array<number>(16).fill(0)];
const F32X4_EXTRACT = (lane: number) => [...simd(0x1f), lane];
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);

/**
 * kernel(q, rows, nRows, rowBytes, out, outStride): for each tile of RT rows starting at `rows`
 * (nRows a multiple of RT) and the QT queries at q, q + rowBytes, …:
 *   f32 at out + qi·outStride + 4·r = <query qi, row r>.
 */
function kernelBody(QT: number, RT: number): number[] {
  // params 0..5; then i32 locals, then v128 locals
  const [Q, ROWS, NROWS, ROWBYTES, OUT, OUTSTRIDE] = [0, 1, 2, 3, 4, 5];
  let next = 6;
  const r = next++;
  const j = next++;
  const step = next++;
  const qb = [Q, ...Array.from({ length: QT - 1 }, () => next++)];
  const pr = [ROWS, ...Array.from({ length: RT - 1 }, () => next++)];
  const ob = [OUT, ...Array.from({ length: QT - 1 }, () => next++)];
  const nI32 = next - 6;
  const acc = Array.from({ length: QT * RT }, () => next++);
  const vq = Array.from({ length: QT }, () => next++);
  const vr = Array.from({ length: RT }, () => next++);
  const nV128 = next - 6 - nI32;

  const b: number[] = [];
  const get = (i: number) => pushAll(b, [op.get, ...uleb(i)]);
  const set = (i: number) => pushAll(b, [op.set, ...uleb(i)]);
  const i32 = (n: number) => pushAll(b, [op.i32Const, ...sleb(n)]);

  get(ROWBYTES);
  i32(RT);
  b.push(op.i32Mul);
  set(step);
  for (let i = 1; i < QT; i++) {
    get(qb[i - 1]);
    get(ROWBYTES);
    b.push(op.i32Add);
    set(qb[i]);
  }
  for (let i = 1; i < QT; i++) {
    get(ob[i - 1]);
    get(OUTSTRIDE);
    b.push(op.i32Add);
    set(ob[i]);
  }
  i32(0);
  set(r);
  b.push(op.block, 0x40, op.loop, 0x40);
  get(r);
  get(NROWS);
  b.push(op.i32GeU, op.brIf, 1);
  for (let i = 1; i < RT; i++) {
    get(pr[i - 1]);
    get(ROWBYTES);
    b.push(op.i32Add);
    set(pr[i]);
  }
  for (const a of acc) {
    pushAll(b, V128_ZERO);
    set(a);
  }
  i32(0);
  set(j);
  b.push(op.loop, 0x40);
  for (let i = 0; i < QT; i++) {
    get(qb[i]);
    get(j);
    b.push(op.i32Add);
    pushAll(b, V128_LOAD);
    set(vq[i]);
  }
  for (let i = 0; i < RT; i++) {
    get(pr[i]);
    get(j);
    b.push(op.i32Add);
    pushAll(b, V128_LOAD);
    set(vr[i]);
  }
  for (let i = 0; i < QT; i++) {
    for (let t = 0; t < RT; t++) {
      get(acc[i * RT + t]);
      get(vq[i]);
      get(vr[t]);
      pushAll(b, F32X4_MUL);
      pushAll(b, F32X4_ADD);
      set(acc[i * RT + t]);
    }
  }
  get(j);
  i32(16);
  b.push(op.i32Add);
  set(j);
  get(j);
  get(ROWBYTES);
  b.push(op.i32LtU, op.brIf, 0, op.end);
  for (let i = 0; i < QT; i++) {
    for (let t = 0; t < RT; t++) {
      const a = acc[i * RT + t];
      get(ob[i]);
      get(a);
      pushAll(b, F32X4_EXTRACT(0));
      for (let lane = 1; lane < 4; lane++) {
        get(a);
        pushAll(b, F32X4_EXTRACT(lane));
        b.push(op.f32Add);
      }
      b.push(op.f32Store, 2);
      pushAll(b, uleb(t * 4));
    }
    get(ob[i]);
    i32(RT * 4);
    b.push(op.i32Add);
    set(ob[i]);
  }
  get(pr[0]);
  get(step);
  b.push(op.i32Add);
  set(pr[0]);
  get(r);
  i32(RT);
  b.push(op.i32Add);
  set(r);
  b.push(op.br, 0, op.end, op.end, op.end);
  const locals = vec([
    [...uleb(nI32), I32],
    [...uleb(nV128), V128],
  ]);
  const body = [...locals, ...b];
  return [...uleb(body.length), ...body];
}

/** Tile shapes exported by the module, as [name, queries per tile, rows per tile]. */
export const TILES = [
  ['k2x4', 2, 4],
  ['k1x4', 1, 4],
] as const;

/** The module's bytes: imports env.memory, exports one kernel per tile shape (`k<QT>x<RT>`). */
export function kernelModuleBytes(tiles: readonly (readonly [string, number, number])[] = TILES): Uint8Array<ArrayBuffer> {
  const type = [0x60, ...vec(Array.from({ length: 6 }, () => [I32])), ...vec([])];
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([type])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec(tiles.map(() => [0]))),
    ...section(7, vec(tiles.map(([name], i) => [...str(name), 0x00, ...uleb(i)]))),
    ...section(10, vec(tiles.map(([, qt, rt]) => kernelBody(qt, rt)))),
  ];
  return new Uint8Array(bytes);
}

export type KernelFn = (q: number, rows: number, nRows: number, rowBytes: number, out: number, outStride: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is unavailable (the caller falls back to JS). */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = kernelModuleBytes();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

/** Rows per scoring call; also the row stride of the output buffer. A block of 128 × 384-d rows (192 KB) stays in L2. */
export const ROW_BLOCK = 128;
/** Queries loaded at once; each block of rows is read from memory once per batch. */
export const QUERY_BATCH = 64;

/** Computes blocks of dot products for FlatIPIndex; `out[qi * ROW_BLOCK + ri]` holds the scores of the last call. */
export interface DotKernel {
  readonly kind: 'wasm-simd' | 'js';
  /** Queries scored per call (the register tile's height). */
  readonly group: number;
  /** The rows, n × dimension, row-major (the kernel's own copy for WebAssembly). */
  readonly vectors: Float32Array;
  readonly out: Float32Array;
  /** Make queries [from, from + count) of a packed matrix the current batch (count ≤ QUERY_BATCH). */
  loadQueries(queries: Float32Array, from: number, count: number): void;
  /** Scores of batch queries [qi, qi + qn) (qn ≤ group) against rows [r0, r0 + rn) (rn ≤ ROW_BLOCK). */
  score(qi: number, qn: number, r0: number, rn: number): void;
}

const PAGE = 65536;
const MAX_PAGES = 65536; // 4 GiB, the wasm32 limit

/**
 * Memory layout (16-byte aligned): [out: 4 × ROW_BLOCK f32][queries: QUERY_BATCH padded rows][rows, padded
 * to a multiple of 4, then 4 zero rows]. Padding is zeros, so it adds nothing to a dot product. The memory never grows after
 * construction, so views on it stay valid.
 */
export class WasmDotKernel implements DotKernel {
  readonly kind = 'wasm-simd';
  readonly group = 2;
  readonly out: Float32Array;
  readonly vectors: Float32Array;
  private readonly mem: Float32Array;
  private readonly rowBytes: number;
  private readonly qPtr: number;
  private readonly rowsPtr: number;
  private readonly k2: KernelFn;
  private readonly k1: KernelFn;

  /** Throws when WebAssembly SIMD is unavailable or the rows do not fit in 4 GiB. */
  constructor(
    vectors: Float32Array,
    private readonly dimension: number,
  ) {
    const mod = kernelModule();
    if (!mod) throw new Error('WebAssembly SIMD is not available');
    const n = vectors.length / dimension;
    const dp = Math.ceil(dimension / 4) * 4;
    this.rowBytes = dp * 4;
    this.qPtr = 4 * ROW_BLOCK * 4;
    this.rowsPtr = this.qPtr + QUERY_BATCH * this.rowBytes;
    // A tile of 4 rows may start at any row (bestInRanges scans ranges from any offset), so up to 3 rows past
    // the last one are read: reserve them (zeros) beyond the rows padded to a multiple of 4.
    const bytes = this.rowsPtr + (Math.ceil(n / 4) * 4 + 4) * this.rowBytes;
    const pages = Math.ceil(bytes / PAGE);
    if (pages > MAX_PAGES) throw new ArgumentError(`${n} × ${dimension} vectors exceed the 4 GiB WebAssembly memory`, { key: 'vectors' });
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const exports = new WebAssembly.Instance(mod, { env: { memory } }).exports;
    this.k2 = exports.k2x4 as KernelFn;
    this.k1 = exports.k1x4 as KernelFn;
    this.mem = new Float32Array(memory.buffer);
    this.out = this.mem.subarray(0, 4 * ROW_BLOCK);
    const base = this.rowsPtr / 4;
    if (dp === dimension) {
      this.mem.set(vectors, base);
      this.vectors = this.mem.subarray(base, base + vectors.length);
    } else {
      for (let r = 0; r < n; r++) this.mem.set(vectors.subarray(r * dimension, (r + 1) * dimension), base + r * dp);
      this.vectors = vectors;
    }
  }

  loadQueries(queries: Float32Array, from: number, count: number): void {
    const d = this.dimension;
    const dp = this.rowBytes / 4;
    const base = this.qPtr / 4;
    if (dp === d) this.mem.set(queries.subarray(from * d, (from + count) * d), base);
    else for (let i = 0; i < count; i++) this.mem.set(queries.subarray((from + i) * d, (from + i + 1) * d), base + i * dp);
  }

  score(qi: number, qn: number, r0: number, rn: number): void {
    const k = qn === 2 ? this.k2 : this.k1;
    // rn is rounded up to the tile height; the extra rows are zero padding or real rows past the block, never read back
    k(this.qPtr + qi * this.rowBytes, this.rowsPtr + r0 * this.rowBytes, Math.ceil(rn / 4) * 4, this.rowBytes, 0, ROW_BLOCK * 4);
  }
}
