import { QuickJSSandbox } from './src/sandbox/quickjs.ts';
const sb = new QuickJSSandbox({ maxWorkers: 1 });
const t0 = performance.now();
await (await sb.compile('o => 1'))('x');
console.log('first (worker start) ms', (performance.now() - t0).toFixed(1));
for (const src of ['o => o.length < 10', "o => JSON.parse(o).ok === true", "o => /^[A-Z][a-z]+( [a-z]+)*\\.$/.test(o)", "o => o.split(/\\s+/).map(w => w.toUpperCase()).join('-').length > 3", "(o, i) => new Date(o).getTime() > 0 && Object.keys(i).length >= 0", "o => [...o].sort().reverse().includes('x')"]) {
  for (let k = 0; k < 2; k++) {
    const t = performance.now();
    const f = await sb.compile(src);
    const t1 = performance.now();
    await f('{"ok": true}').catch(() => 0);
    const t2 = performance.now();
    console.log(k, src.slice(0, 40).padEnd(40), 'compile', (t1 - t).toFixed(1), 'call', (t2 - t1).toFixed(2));
  }
}
sb.dispose();
