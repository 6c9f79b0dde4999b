import { readFileSync, readdirSync } from 'node:fs';
const [dir, name] = process.argv.slice(2);
const f = readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')).map((x) => dir + '/' + x).pop();
const p = JSON.parse(readFileSync(f, 'utf8'));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const dt = new Map(); p.samples.forEach((s, i) => dt.set(s, (dt.get(s) ?? 0) + (p.timeDeltas[i] ?? 0)));
const agg = new Map();
for (const n of p.nodes) if (n.callFrame.functionName === name) {
  const chain = []; let id = parent.get(n.id); while (id && chain.length < 6) { const m = byId.get(id); chain.push(`${m.callFrame.functionName || 'anon'}@${m.callFrame.url.split('/').pop()}:${m.callFrame.lineNumber}`); id = parent.get(id); }
  const k = chain.join(' < '); agg.set(k, (agg.get(k) ?? 0) + (dt.get(n.id) ?? 0) / 1000);
}
[...agg].sort((a, b) => b[1] - a[1]).slice(0, 6).forEach(([k, v]) => console.log(v.toFixed(0).padStart(6), k));
