import { openKnowledgeBase } from '../src/ground/kb-store.js';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
const { kb } = await openKnowledgeBase('/tmp/perf/kb10k', { embedder: createLexicalEmbedder() });
let s = 0, mx = 0; for (const c of kb.chunks) { const n = c.windows[1] - c.windows[0]; s += n; mx = Math.max(mx, n); }
console.log('avg windows/chunk', s / kb.chunks.length, 'max', mx, 'docs', kb.documents.length, 'windows', kb.windowCount);
const d = kb.documents[0]; console.log(d.windows.slice(0, 3), d.chunks.slice(0, 2), d.text.length);
console.log(process.memoryUsage());
