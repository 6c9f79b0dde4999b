import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')).map((x) => dir + '/' + x).sort().pop();
const p = JSON.parse(readFileSync(f, 'utf8'));
const self = new Map(); const byId = new Map(p.nodes.map((n) => [n.id, n]));
const dt = new Map(); p.samples.forEach((s, i) => dt.set(s, (dt.get(s) ?? 0) + (p.timeDeltas[i] ?? 0)));
let total = 0;
for (const n of p.nodes) { const t = (dt.get(n.id) ?? 0) / 1000; total += t; const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + t); }
console.log('total ms', total.toFixed(0));
[...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30)).forEach(([k, v]) => console.log(v.toFixed(0).padStart(7), k));
