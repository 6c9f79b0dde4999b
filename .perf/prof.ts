// scratch profiling harness (not part of the project)
import { existsSync } from 'node:fs';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
import { analyze } from '../src/ground/engine.js';
import { knowledgeBaseFromTexts } from '../src/ground/kb.js';
import { openKnowledgeBase, saveKnowledgeBase } from '../src/ground/kb-store.js';
import { countWordTokens } from '../src/ground/text.js';
let seed = 20240601;
const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const VOCAB = Array.from({ length: 5000 }, (_, i) => { const syll = ['ka','lo','mi','ren','to','sa','vel','dor','an','is','ur','pe']; let w = ''; for (let k = 0, n = 2 + (i % 3); k < n; k++) w += syll[Math.floor(rnd() * syll.length)]; return w + i.toString(36); });
const sentence = () => { const n = 8 + Math.floor(rnd() * 12); const ws = Array.from({ length: n }, () => VOCAB[Math.floor(Math.pow(rnd(), 2) * VOCAB.length)]); ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1); return `${ws.join(' ')} in ${1800 + Math.floor(rnd() * 220)}.`; };
const documentText = (tokens: number) => { const out: string[] = []; let t = 0; while (t < tokens) { const s = sentence(); out.push(s); t += countWordTokens(s) + 1; } return out.join(' '); };
const dir = '/tmp/perf/kb10k';
if (!existsSync(dir + '/manifest.json')) {
  const docs = Array.from({ length: 1000 }, (_, i) => ({ source: `doc${i}.txt`, text: documentText(5300) }));
  const kb = await knowledgeBaseFromTexts(docs, createLexicalEmbedder());
  await saveKnowledgeBase(kb, dir);
}
let t0 = performance.now();
const { kb } = await openKnowledgeBase(dir, { embedder: createLexicalEmbedder() });
console.log('open s', ((performance.now() - t0) / 1000).toFixed(2), 'heap MB', (process.memoryUsage().heapUsed / 1e6).toFixed(0), 'rss', (process.memoryUsage().rss / 1e6).toFixed(0));
const answers = Array.from({ length: 300 }, (_, i) => ({ query: `q${i}`, answer: Array.from({ length: 10 }, (_, c) => (c < 7 ? kb.windowText(Math.floor(rnd() * kb.windowCount)) : sentence())).join(' ') }));
const lat: number[] = [];
for (const [i, a] of answers.entries()) {
  t0 = performance.now();
  const r = await analyze(kb, a);
  JSON.stringify(r);
  if (i >= 50) lat.push(performance.now() - t0);
}
lat.sort((a, b) => a - b);
console.log('in-process p50', lat[Math.floor(lat.length / 2)].toFixed(2), 'p99', lat[Math.floor(lat.length * 0.99)].toFixed(2), 'max', lat[lat.length - 1].toFixed(2));
// stage breakdown
import { extractClaims } from '../src/ground/claims.js';
import { unverifiedDetails } from '../src/ground/details.js';
const st = { claims: 0, embed: 0, retrieve: 0, windows: 0, details: 0, json: 0 };
const d = kb.embedder.dimension;
for (const a of answers.slice(50)) {
  let t = performance.now(); const claims = extractClaims(a.answer); st.claims += performance.now() - t;
  t = performance.now(); const q = await kb.embedder.embed(claims); st.embed += performance.now() - t;
  t = performance.now(); const hits = kb.retrieve(q, 5); st.retrieve += performance.now() - t;
  t = performance.now();
  const best = hits.map((hs, i) => { let b = { s: -2, w: 0, c: 0 }; for (const h of hs) { const [f, to] = kb.chunks[h.id].windows; for (let w = f; w < to; w++) { let s = 0; for (let j = 0; j < d; j++) s += q[i * d + j] * kb.windowVectors[w * d + j]; if (s > b.s) b = { s, w, c: h.id }; } } return b; });
  st.windows += performance.now() - t;
  t = performance.now(); const det = best.map((b, i) => unverifiedDetails(claims[i], kb.chunkText(b.c))); st.details += performance.now() - t;
  t = performance.now(); JSON.stringify({ claims, best, det, ev: best.map((b) => kb.windowText(b.w)) }); st.json += performance.now() - t;
}
for (const k of Object.keys(st) as (keyof typeof st)[]) st[k] = +(st[k] / 250).toFixed(3);
console.log('stage ms/request', st);
