/**
 * npm run bench:grounding-speed — prints JSON:
 *  - ingest throughput (chunks/s) with the lexical embedder, through `ingest` to disk;
 *  - top-5 exact retrieval over 100,000 × 384-d vectors (queries/s), FlatIPIndex vs naive JS loops;
 *  - POST /analyze latency p50/p99 over loopback, 10-claim answers, a 10,000-chunk lexical KB, against
 *    `assay serve` in its own process (this process is the load generator), and the engine in-process.
 * Synthetic text from a seeded generator; not a timed test.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
import { analyze } from '../src/ground/engine.js';
import { FlatIPIndex, naiveSearch, type SearchHit } from '../src/ground/kb/index/flat.js';
import { ingest } from '../src/ground/kb/ingest.js';
import { knowledgeBaseFromTexts } from '../src/ground/kb/kb.js';
import { saveKnowledgeBase } from '../src/ground/kb/kb-store.js';
import { mulberry32 } from '../src/core/testing/prng.js';
import { countWordTokens } from '../src/ground/claims/text.js';
import type { GroundingReport } from '../src/ground/types.js';

const rnd = mulberry32(20240601);
const VOCAB = Array.from({ length: 5000 }, (_, i) => {
  const syll = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vel', 'dor', 'an', 'is', 'ur', 'pe'];
  let w = '';
  for (let k = 0, n = 2 + (i % 3); k < n; k++) w += syll[Math.floor(rnd() * syll.length)];
  return w + i.toString(36);
});
const sentence = () => {
  const n = 8 + Math.floor(rnd() * 12);
  const ws = Array.from({ length: n }, () => VOCAB[Math.floor(Math.pow(rnd(), 2) * VOCAB.length)]);
  ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
  return `${ws.join(' ')} in ${1800 + Math.floor(rnd() * 220)}.`;
};
const documentText = (tokens: number) => {
  const out: string[] = [];
  let t = 0;
  while (t < tokens) {
    const s = sentence();
    out.push(s);
    t += countWordTokens(s) + 1;
  }
  return out.join(' ');
};
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function ingestThroughput() {
  const dir = await mkdtemp(join(tmpdir(), 'assay-bench-ingest-'));
  try {
    for (let f = 0; f < 40; f++) await writeFile(join(dir, `doc${f}.txt`), documentText(8000));
    const t0 = performance.now();
    const s = await ingest(join(dir, 'kb'), [dir], { embedder: createLexicalEmbedder(), cwd: dir });
    const seconds = (performance.now() - t0) / 1000;
    return { files: 40, chunks: s.chunks, windows: s.windows, seconds: +seconds.toFixed(3), chunks_per_s: +(s.chunks / seconds).toFixed(1) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Naive baselines, as a typical user would write them: a per-vector dot product over every row, then
 * (A) rows as number[][] with all scores sorted, or (B) one contiguous Float32Array with a simple top-k
 * kept by insertion. The speedup is reported against the faster of the two.
 */
function naiveFloat32TopK(v: Float32Array, d: number, q: Float32Array, k: number): SearchHit[] {
  const top: SearchHit[] = [];
  for (let i = 0, n = v.length / d; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += q[j] * v[i * d + j];
    if (top.length < k || s > top[top.length - 1].score) {
      let p = top.findIndex((h) => h.score < s);
      if (p < 0) p = top.length;
      top.splice(p, 0, { id: i, score: s });
      if (top.length > k) top.pop();
    }
  }
  return top;
}

function retrieval() {
  const n = 100_000;
  const d = 384;
  const k = 5;
  const v = new Float32Array(n * d);
  for (let i = 0; i < v.length; i++) v[i] = rnd() - 0.5;
  const nq = 128;
  const q = new Float32Array(nq * d);
  for (let i = 0; i < q.length; i++) q[i] = rnd() - 0.5;
  const query = (i: number) => q.subarray(i * d, (i + 1) * d);
  const time = (f: () => void) => {
    const t0 = performance.now();
    f();
    return (performance.now() - t0) / 1000;
  };

  const index = new FlatIPIndex(v, d);
  const jsIndex = new FlatIPIndex(v, d, { kernel: 'js' });
  index.search(q.subarray(0, 8 * d), k); // warm-up
  jsIndex.search(q.subarray(0, 8 * d), k);
  let hits: SearchHit[][] = [];
  const flatS = time(() => (hits = index.search(q, k)));
  const nSingle = 32;
  const singleS = time(() => {
    for (let i = 0; i < nSingle; i++) index.search(query(i), k);
  });
  const jsS = time(() => jsIndex.search(q, k));

  const nn = 8;
  const rows = Array.from({ length: n }, (_, i) => Array.from(v.subarray(i * d, (i + 1) * d)));
  naiveSearch(rows, Array.from(query(0)), k); // warm-up
  naiveFloat32TopK(v, d, query(0), k);
  let agree = 0;
  const same = (a: SearchHit[], b: SearchHit[]) => a.map((h) => h.id).join() === b.map((h) => h.id).join();
  const naiveAS = time(() => {
    for (let i = 0; i < nn; i++) if (same(naiveSearch(rows, Array.from(query(i)), k), hits[i])) agree++;
  });
  const naiveBS = time(() => {
    for (let i = nn; i < 2 * nn; i++) if (same(naiveFloat32TopK(v, d, query(i), k), hits[i])) agree++;
  });
  const flatQps = nq / flatS;
  const naiveA = nn / naiveAS;
  const naiveB = nn / naiveBS;
  const naiveBest = Math.max(naiveA, naiveB);
  const r1 = (x: number) => +x.toFixed(1);
  return {
    vectors: n,
    dimension: d,
    k,
    kernel: index.kernelKind,
    flat_batched_queries_per_s: r1(flatQps),
    flat_single_query_per_s: r1(nSingle / singleS),
    flat_js_kernel_batched_queries_per_s: r1(nq / jsS),
    naive_a_queries_per_s: +naiveA.toFixed(2),
    naive_b_queries_per_s: +naiveB.toFixed(2),
    naive:
      'single-threaded per-vector dot product over all rows; A: rows as number[][], all scores sorted; ' +
      'B: one contiguous Float32Array, top-k kept by insertion. Speedups are against the faster of A and B.',
    speedup_batched: r1(flatQps / naiveBest),
    speedup_single: r1(nSingle / singleS / naiveBest),
    speedup_js_kernel_batched: r1(nq / jsS / naiveBest),
    same_top5_as_naive: `${agree}/${2 * nn}`,
    target: '≥ 10× the naive loop (batched: 128 queries per search call, single-threaded)',
  };
}

/** Starts `assay serve --kb <dir>` in a child process; resolves with its URL and a stop function. */
async function startServeProcess(kbDir: string, cwd: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
  // Its one-line JSON request logs go to a file, as with `assay serve > server.log`.
  const log = openSync(join(cwd, 'server.log'), 'w');
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), cli, 'serve', '--kb', kbDir, '--port', '0', '--rate', '1000000', '--burst', '1000000'],
    { cwd, stdio: ['ignore', log, 'pipe'] },
  );
  closeSync(log);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`assay serve did not start within 120 s: ${stderr}`)), 120_000);
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString();
      const m = /serving on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`assay serve exited with code ${code}: ${stderr}`));
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, pid: child.pid as number, stop };
}

/** CPU time (user + system) of a process in ms, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks, USER_HZ = 100
  } catch {
    return undefined;
  }
}

async function analyzeLatency() {
  const docs = Array.from({ length: 1000 }, (_, i) => ({ source: `doc${i}.txt`, text: documentText(5300) }));
  const t0 = performance.now();
  const kb = await knowledgeBaseFromTexts(docs, createLexicalEmbedder());
  const buildS = (performance.now() - t0) / 1000;
  const answers = Array.from({ length: 260 }, (_, i) => {
    // 10 claims: 7 taken from the KB (supported), 3 made up
    const claims = Array.from({ length: 10 }, (_, c) => (c < 7 ? kb.windowText(Math.floor(rnd() * kb.windowCount)) : sentence()));
    return { query: `question ${i}`, answer: claims.join(' ') };
  });
  const warm = 60;
  const r2 = (x: number) => +x.toFixed(2);
  const summary = (lat: number[]) => ({ requests: lat.length, p50_ms: r2(pct(lat, 0.5)), p99_ms: r2(pct(lat, 0.99)), max_ms: r2(Math.max(...lat)) });

  // The server runs as `assay serve` in its own process, opening the KB from disk as in production;
  // this process is only the load generator, so its allocations and GC do not land in the server's latency.
  const dir = await mkdtemp(join(tmpdir(), 'assay-bench-kb-'));
  let server: Record<string, unknown>;
  try {
    await saveKnowledgeBase(kb, join(dir, 'kb'));
    const t1 = performance.now();
    const { url, pid, stop } = await startServeProcess(join(dir, 'kb'), dir);
    const startS = (performance.now() - t1) / 1000;
    const lat: number[] = [];
    let cpu0: number | undefined;
    let cpu1: number | undefined;
    try {
      for (const [i, a] of answers.entries()) {
        const t = performance.now();
        const res = await fetch(`${url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(a) });
        if (res.status !== 200) throw new Error(`/analyze answered ${res.status}: ${await res.text()}`);
        const report = (await res.json()) as GroundingReport;
        if (report.claims_analysis.length !== 10) throw new Error(`expected 10 claims, got ${report.claims_analysis.length}`);
        if (i >= warm) lat.push(performance.now() - t);
        if (i === warm - 1) cpu0 = cpuMs(pid);
      }
      cpu1 = cpuMs(pid);
    } finally {
      await stop();
    }
    server = {
      via: 'POST /analyze over loopback to `assay serve --kb <dir>` (src/server startServer) in a separate process, logs to a file; sequential requests, keep-alive',
      ...summary(lat),
      server_cpu_ms_per_request: cpu0 !== undefined && cpu1 !== undefined ? r2((cpu1 - cpu0) / lat.length) : null,
      server_start_s: +startS.toFixed(1),
    };
  } catch (err) {
    server = { via: 'POST /analyze through `assay serve` — failed', error: (err as Error).message.slice(0, 500) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // The same requests against the engine in this process, for the split between engine and HTTP.
  const lat: number[] = [];
  for (const [i, a] of answers.entries()) {
    const t = performance.now();
    JSON.stringify(await analyze(kb, a));
    if (i >= warm) lat.push(performance.now() - t);
  }
  return {
    chunks: kb.chunks.length,
    windows: kb.windowCount,
    kb_build_s: +buildS.toFixed(1),
    claims_per_answer: 10,
    warm_up_requests: warm,
    server,
    engine_in_process: summary(lat),
    target: 'p50 ≤ 50 ms, p99 ≤ 200 ms (server)',
  };
}

// BENCH_ONLY=retrieval,analyze runs a subset (default: all three parts).
const only = process.env.BENCH_ONLY?.split(',');
const part = async <T>(name: string, f: () => T | Promise<T>) => (only && !only.includes(name) ? undefined : await f());
const result = {
  bench: 'grounding-speed',
  node: process.version,
  ingest_lexical: await part('ingest', ingestThroughput),
  retrieval_top5: await part('retrieval', retrieval),
  analyze_latency: await part('analyze', analyzeLatency),
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
