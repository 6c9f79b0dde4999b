import { kernelModuleBytes, type KernelFn } from '../src/ground/index/wasm-simd.js';
const tiles = [['k4x2', 4, 2], ['k2x4', 2, 4], ['k1x4', 1, 4], ['k5x2', 5, 2], ['k3x4', 3, 4], ['k2x2', 2, 2], ['k1x8', 1, 8], ['k4x1', 4, 1], ['k2x3', 2, 3]] as const;
const mod = new WebAssembly.Module(kernelModuleBytes(tiles));
const n = Number(process.env.N ?? 10000), d = 384, rowBytes = d * 4, RB = 128;
let seed = 7; const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296 - 0.5; };
const outBytes = 8 * RB * 4, qBytes = 64 * rowBytes, total = outBytes + qBytes + (n + 8) * rowBytes;
const mem = new WebAssembly.Memory({ initial: Math.ceil(total / 65536) });
const ex = new WebAssembly.Instance(mod, { env: { memory: mem } }).exports;
const f = new Float32Array(mem.buffer); for (let i = outBytes / 4; i < f.length; i++) f[i] = rnd();
const qPtr = outBytes, rPtr = outBytes + qBytes;
const nq = Number(process.env.NQ ?? 10);
for (let rep = 0; rep < 3; rep++) for (const [name, qt, rt] of tiles) {
  const k = ex[name] as KernelFn;
  const t0 = performance.now(); const c0 = process.cpuUsage(); let reps = 0;
  while (performance.now() - t0 < 300) { reps++;
    for (let r0 = 0; r0 < n; r0 += RB) { let q = 0; for (; q + qt <= nq; q += qt) k(qPtr + q * rowBytes, rPtr + r0 * rowBytes, Math.ceil(Math.min(RB, n - r0) / rt) * rt, rowBytes, 0, RB * 4); }
  }
  const cu = process.cpuUsage(c0); const ms = (cu.user + cu.system) / 1000 / reps;
  if (rep === 2) console.log(name, 'ms per', nq, 'queries (full groups only):', ms.toFixed(2), 'GMAC/s', ((Math.floor(nq / qt) * qt * n * d) / ms / 1e6).toFixed(1));
}
