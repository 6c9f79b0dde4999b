import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
import { spawn } from 'node:child_process';
import { openKnowledgeBase } from '../src/ground/kb-store.js';
import { createLexicalEmbedder } from '../src/ground/embedders/lexical.js';
let seed = 99;
const rnd = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const { kb } = await openKnowledgeBase('/tmp/perf/kb10k', { embedder: createLexicalEmbedder() });
const answers = Array.from({ length: 400 }, (_, i) => ({ query: `q${i}`, answer: Array.from({ length: 10 }, (_, c) => (c < 7 ? kb.windowText(Math.floor(rnd() * kb.windowCount)) : 'Kalomi in 1834 was ' + i + ' of the ' + c + '.')).join(' ') }));
const extra = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
const child = spawn(process.execPath, [...extra, '--import', import.meta.resolve('tsx'), 'src/cli/main.ts', 'serve', '--kb', '/tmp/perf/kb10k', '--port', '0', '--rate', '1e6', '--burst', '1000000'], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
let gcLog = ''; child.stdout.on('data', (b) => { if (process.env.GCLOG) gcLog += b; });
let err = '';
const url = await new Promise<string>((res) => child.stderr.on('data', (b) => { err += b; const m = /serving on (\S+)/.exec(err); if (m) res(m[1]); }));
const lat: number[] = [];
for (const [i, a] of answers.entries()) {
  const t = performance.now();
  const r = await fetch(url + '/analyze', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(a) });
  await r.json();
  if (i >= 60) lat.push(performance.now() - t);
}
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
lat.sort((a, b) => a - b);
console.log('p50', lat[Math.floor(lat.length / 2)].toFixed(2), 'p90', lat[Math.floor(lat.length * 0.9)].toFixed(2), 'p99', lat[Math.floor(lat.length * 0.99)].toFixed(2), 'max', lat[lat.length - 1].toFixed(2));
if (err.includes('Error')) console.log(err);
if (process.env.GCLOG) require('node:fs').writeFileSync(process.env.GCLOG, gcLog);
