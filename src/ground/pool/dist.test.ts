import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository, so the compiled files resolve their dependencies from its node_modules.
const out = fileURLToPath(new URL(`../../../node_modules/.cache/assay-pool-dist-${process.pid}/`, import.meta.url));

/** The files `npm run build` compiles (tsconfig.build.json: no tests, contract suites or testing helpers). */
function built(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'testing' ? [] : built(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.case.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The pool in the layout a user runs (`dist/`: JavaScript, worker entry worker.js, no tsx): the same emit tsc
 * gives every source file, without type checking, so this does not need a full build.
 */
describe('the grounding pool compiled to JavaScript (as in dist/)', () => {
  beforeAll(() => {
    for (const file of built(src)) {
      const js = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      const to = join(out, relative(src, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, js.outputText);
    }
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }');
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('starts its workers from worker.js, analyses, and lets the process exit after close()', () => {
    const script = `
      import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import { ingest } from './ground/kb/ingest.js';
      import { createLexicalEmbedder } from './ground/embedders/lexical.js';
      import { createGroundingPool } from './ground/pool/grounding.js';
      const dir = mkdtempSync(join(tmpdir(), 'assay-pool-dist-'));
      writeFileSync(join(dir, 'tower.txt'), 'The Eiffel Tower is in Paris. It was completed in 1889.');
      await ingest(join(dir, 'kb'), [join(dir, 'tower.txt')], { embedder: createLexicalEmbedder(), cwd: dir });
      const pool = await createGroundingPool({ kbDir: join(dir, 'kb'), workers: 2 });
      const report = await pool.analyze({ query: 'q', answer: 'The Eiffel Tower is in Paris. It was completed in 1889.' });
      console.log(JSON.stringify({ claims: report.claims_analysis.map((c) => c.status), stats: pool.stats() }));
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: out,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const line = JSON.parse(r.stdout.trim().split('\n').pop()!) as { claims: string[]; stats: { started: number; idle: number } };
    expect(line.claims).toEqual(['STRONG', 'STRONG']);
    expect(line.stats).toMatchObject({ started: 2, idle: 2 });
  });
});
