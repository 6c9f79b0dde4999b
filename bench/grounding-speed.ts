/**
 * npm run bench:grounding-speed — prints JSON:
 *  - ingest throughput (chunks/s) with the lexical embedder, through `ingest` to disk;
 *  - top-5 exact retrieval over 100,000 × 384-d vectors (queries/s), FlatIPIndex vs a naive JS loop;
 *  - POST /analyze latency p50/p99 over loopback, 10-claim answers, a 10,000-chunk lexical KB.
 * Synthetic text from a seeded generator; not a timed test.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
import { analyze } from '../src/ground/engine.js';
import { FlatIPIndex, naiveSearch } from '../src/ground/index/flat.js';
import { ingest } from '../src/ground/ingest.js';
import { knowledgeBaseFromTexts } from '../src/ground/kb.js';
import { countWordTokens } from '../src/ground/text.js';
import type { GroundingEngine } from '../src/ground/types.js';

let seed = 20240601;
const rnd = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
};
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

function retrieval() {
  const n = 100_000;
  const d = 384;
  const v = new Float32Array(n * d);
  for (let i = 0; i < v.length; i++) v[i] = rnd() - 0.5;
  const nq = 128;
  const q = new Float32Array(nq * d);
  for (let i = 0; i < q.length; i++) q[i] = rnd() - 0.5;
  const index = new FlatIPIndex(v, d);
  index.search(q.subarray(0, 8 * d), 5); // warm-up
  let t0 = performance.now();
  const hits = index.search(q, 5);
  const flatS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (let i = 0; i < 16; i++) index.search(q.subarray(i * d, (i + 1) * d), 5);
  const singleS = (performance.now() - t0) / 1000;
  const rows = Array.from({ length: n }, (_, i) => Array.from(v.subarray(i * d, (i + 1) * d)));
  const nn = 8;
  naiveSearch(rows, Array.from(q.subarray(0, d)), 5); // warm-up
  t0 = performance.now();
  let agree = 0;
  for (let i = 0; i < nn; i++) {
    const r = naiveSearch(rows, Array.from(q.subarray(i * d, (i + 1) * d)), 5);
    if (r.map((h) => h.id).join() === hits[i].map((h) => h.id).join()) agree++;
  }
  const naiveS = (performance.now() - t0) / 1000;
  const flatQps = nq / flatS;
  const naiveQps = nn / naiveS;
  return {
    vectors: n,
    dimension: d,
    k: 5,
    flat_batched_queries_per_s: +flatQps.toFixed(1),
    flat_single_query_per_s: +(16 / singleS).toFixed(1),
    naive_queries_per_s: +naiveQps.toFixed(2),
    speedup_batched: +(flatQps / naiveQps).toFixed(1),
    speedup_single: +(16 / singleS / naiveQps).toFixed(1),
    same_top5_as_naive: `${agree}/${nn}`,
    target: '≥ 10× the naive loop',
  };
}

async function analyzeLatency() {
  const docs = Array.from({ length: 1000 }, (_, i) => ({ source: `doc${i}.txt`, text: documentText(5300) }));
  const t0 = performance.now();
  const kb = await knowledgeBaseFromTexts(docs, createLexicalEmbedder());
  const buildS = (performance.now() - t0) / 1000;
  const engine: GroundingEngine = { analyze: (req, signal) => analyze(kb, req, {}, signal) };
  const answers = Array.from({ length: 220 }, (_, i) => {
    // 10 claims: 7 taken from the KB (supported), 3 made up
    const claims = Array.from({ length: 10 }, (_, c) => {
      if (c < 7) {
        const w = Math.floor(rnd() * kb.windowCount);
        return kb.windowText(w);
      }
      return sentence();
    });
    return { query: `question ${i}`, answer: claims.join(' ') };
  });
  let via = 'in-process engine.analyze (src/server not available)';
  let post: (body: unknown) => Promise<void> = async (body) => void (await engine.analyze(body as never));
  let close = async () => {};
  try {
    const { startServer } = await import('../src/server/start.js');
    const server = await startServer({ engine, port: 0, log: false, limits: { rateBurst: 1e9, ratePerSecond: 1e9 } });
    via = `POST ${server.url}/analyze over loopback (src/server startServer)`;
    post = async (body) => {
      const res = await fetch(`${server.url}/analyze`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`/analyze answered ${res.status}: ${await res.text()}`);
      await res.json();
    };
    close = () => server.close();
  } catch (err) {
    via += ` — ${(err as Error).message}`;
  }
  const lat: number[] = [];
  try {
    for (const [i, a] of answers.entries()) {
      const t = performance.now();
      await post(a);
      if (i >= 20) lat.push(performance.now() - t); // the first 20 warm up the JIT
    }
  } finally {
    await close();
  }
  return {
    via,
    chunks: kb.chunks.length,
    windows: kb.windowCount,
    kb_build_s: +buildS.toFixed(1),
    claims_per_answer: 10,
    requests: lat.length,
    p50_ms: +pct(lat, 0.5).toFixed(2),
    p99_ms: +pct(lat, 0.99).toFixed(2),
    target: 'p50 ≤ 50 ms, p99 ≤ 200 ms',
  };
}

const result = {
  bench: 'grounding-speed',
  node: process.version,
  ingest_lexical: await ingestThroughput(),
  retrieval_top5: retrieval(),
  analyze_latency: await analyzeLatency(),
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
