import { openKnowledgeBase } from '../src/ground/kb-store.js';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
const { kb } = await openKnowledgeBase('/tmp/perf/kb10k', { embedder: createLexicalEmbedder() });
const d = 384;
let seed = 5; const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const claims = Array.from({ length: 10 }, () => kb.windowText(Math.floor(rnd() * kb.windowCount)));
const q = await kb.embedder.embed(claims);
const hits = kb.retrieve(q, 5);
const wv = kb.windowVectors;
for (let rep = 0; rep < 5; rep++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  let n = 0, acc = 0;
  for (let it = 0; it < 100; it++) for (let i = 0; i < 10; i++) { const qo = i * d; for (const h of hits[i]) { const [from, to] = kb.chunks[h.id].windows; for (let w = from; w < to; w++) { let s = 0; const o = w * d; for (let j = 0; j < d; j++) s += q[qo + j] * wv[o + j]; acc += s; n++; } } }
  const cu = process.cpuUsage(c0);
  console.log('ms per request', ((performance.now() - t0) / 100).toFixed(3), 'cpu', ((cu.user + cu.system) / 1000 / 100).toFixed(3), 'dots', n / 100);
}
