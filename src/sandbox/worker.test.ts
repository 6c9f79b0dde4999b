import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickJSSandbox } from './quickjs.js';

const here = fileURLToPath(new URL('.', import.meta.url));
// Inside the repository, so the compiled files resolve quickjs-emscripten from its node_modules.
const outRoot = fileURLToPath(new URL(`../../node_modules/.cache/assay-sandbox-test-${process.pid}/`, import.meta.url));
// src/sandbox/* → <outRoot>/sandbox/*.js; the shared src/errors.ts they import → <outRoot>/errors.js.
const outDir = `${outRoot}sandbox/`;

/** Runs an ES module script with plain node (no tsx), importing the compiled sandbox; returns its JSON lines. */
function runCompiled(script: string, timeoutMs = 20_000): { status: number | null; ms: number; lines: unknown[]; stderr: string } {
  const t = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: outDir,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const lines = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as unknown);
  return { status: r.status, ms: Date.now() - t, lines, stderr: r.stderr };
}

describe('the sandbox compiled to JavaScript (as in dist/, worker entry worker.js, no tsx)', () => {
  beforeAll(() => {
    // The same emit tsc gives these files (they need no type information to compile), without a full build.
    mkdirSync(outDir, { recursive: true });
    writeFileSync(`${outRoot}package.json`, '{ "type": "module" }');
    const emit = (from: string, to: string) => {
      const js = ts.transpileModule(readFileSync(from, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      writeFileSync(to, js.outputText);
    };
    for (const f of readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.case.ts')))
      emit(`${here}${f}`, `${outDir}${f.replace(/\.ts$/, '.js')}`);
    emit(`${here}../errors.ts`, `${outRoot}errors.js`);
  });
  afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

  it('enforces the hard deadline, keeps working, and the process exits after dispose()', () => {
    const r = runCompiled(`
      import { QuickJSSandbox } from './quickjs.js';
      const sb = new QuickJSSandbox();
      const hog = await sb.compile('o => { const a = []; for (;;) a.push(new Array(1e6).fill(o)); }', { timeoutMs: 300 });
      const t = Date.now();
      const err = await hog('x').then(() => undefined, (e) => e);
      console.log(JSON.stringify({ kind: err?.kind, ms: Date.now() - t }));
      const f = await sb.compile("o => (o.match(/'/g) ?? []).length <= 3");
      console.log(JSON.stringify({ values: [await f("It's fine"), await f("Don't, can't, won't, isn't")] }));
      sb.dispose();
    `);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [hog, ok] = r.lines as [{ kind: string; ms: number }, { values: boolean[] }];
    expect(['timeout', 'memory']).toContain(hog.kind);
    expect(hog.ms).toBeLessThan(2000);
    expect(ok.values).toEqual([true, false]);
  });

  it('a process that never calls dispose() still exits when its work is done', () => {
    const r = runCompiled(`
      import { QuickJSSandbox } from './quickjs.js';
      const sb = new QuickJSSandbox();
      const f = await sb.compile('o => o.length');
      console.log(JSON.stringify({ value: await f('abcd') }));
    `);
    expect(r.status).toBe(0);
    expect(r.lines).toEqual([{ value: 4 }]);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('dispose() during a running call rejects it and lets the process exit', () => {
    const r = runCompiled(`
      import { QuickJSSandbox } from './quickjs.js';
      const sb = new QuickJSSandbox({ timeoutMs: 60000 });
      const f = await sb.compile('o => { for (;;) {} }');
      const pending = f('x').then(() => 'resolved', (e) => e.kind);
      setTimeout(() => sb.dispose(), 200);
      console.log(JSON.stringify({ outcome: await pending }));
    `);
    expect(r.status).toBe(0);
    expect(r.lines).toEqual([{ outcome: 'disposed' }]);
    expect(r.ms).toBeLessThan(10_000);
  });
});

describe('QuickJSSandbox worker lifecycle (TypeScript sources, worker under tsx)', () => {
  it('dispose() rejects a call in flight at once, not at its deadline', async () => {
    const sb = new QuickJSSandbox({ timeoutMs: 30_000 });
    const f = await sb.compile('o => { for (;;) {} }');
    const t = Date.now();
    const pending = f('x');
    setTimeout(() => sb.dispose(), 100);
    await expect(pending).rejects.toThrow(/dispose/);
    expect(Date.now() - t).toBeLessThan(2000);
  });

  it('a killed worker is replaced: many overruns in a row, each rejected, and the sandbox still answers', async () => {
    const sb = new QuickJSSandbox({ timeoutMs: 150, killGraceMs: 50 });
    try {
      const hog = await sb.compile('o => { const a = []; for (;;) a.push(new Array(1e6).fill(o)); }');
      const ok = await sb.compile('o => o * 2');
      for (let i = 0; i < 3; i++) {
        await expect(hog('x')).rejects.toThrow(/timed out|memory/);
        expect(await ok(i)).toBe(2 * i);
      }
    } finally {
      sb.dispose();
    }
  });
});
