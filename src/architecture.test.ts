import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const config = require(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string; from: { path?: string } }[] };

/** The layer order as the lint config states it (rule names `layer-<name>`, lowest first), and the top layer. */
const layerNames = config.forbidden.filter((r) => r.name.startsWith('layer-')).map((r) => r.name.slice('layer-'.length));

/** The layer names of docs/architecture.md's table, in its order. */
function documentedLayers(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const rows = doc.split('\n').filter((l) => /^\| \d+ \|/.test(l));
  return rows.map((l) => l.split('|')[2].trim());
}

/** Lint's layer check (the `lint:layers` script) run in `dir`; its exit code and what it printed. */
async function lintLayers(dir: string): Promise<{ code: number; out: string }> {
  const bin = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  try {
    const r = await run(process.execPath, [bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: dir });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

describe('the layers of docs/architecture.md, held by npm run lint', () => {
  let copy: string;
  beforeAll(() => {
    // A copy of the tree to break on purpose: the real tree is never written to.
    copy = mkdtempSync(join(tmpdir(), 'assay-layers-'));
    cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
    for (const f of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json']) cpSync(join(ROOT, f), join(copy, f));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('the docs table and the lint config name the same layers in the same order, and every folder of src/ has one', () => {
    const documented = documentedLayers();
    // The table's rows name folders (`core/`) or files; the config names layers. Row 1 is the base files, the last the API.
    expect(documented.length).toBe(layerNames.length + 1);
    const folders = documented.slice(1, -1).map((cell) => cell.replace(/[`/]/g, ''));
    expect(folders).toEqual(layerNames.slice(1));
    const srcFolders = readdirSync(join(ROOT, 'src')).filter((f) => statSync(join(ROOT, 'src', f)).isDirectory() && f !== 'testing');
    // The top layer, the public API (src/index.ts and the subpath entries in src/api/), has no rule: nothing is above it.
    for (const f of srcFolders) expect([...layerNames, 'api'], `src/${f}/ has no layer`).toContain(f);
  });

  it('the tree has no import that runs up a layer, no circle, no test code in shipped code', async () => {
    const r = await lintLayers(copy);
    expect(r.out).toContain('no dependency violations found');
    expect(r.code).toBe(0);
  });

  it('fails on an import that runs up a layer, on a circle (type imports included), and on shipped code importing test code', async () => {
    writeFileSync(join(copy, 'src', 'core', 'zz-up.ts'), "import type { Store } from '../store/types.js';\nexport type Up = Store;\n");
    writeFileSync(join(copy, 'src', 'run', 'zz-a.ts'), "import type { B } from './zz-b.js';\nexport interface A { b?: B }\n");
    writeFileSync(join(copy, 'src', 'run', 'zz-b.ts'), "import type { A } from './zz-a.js';\nexport interface B { a?: A }\n");
    writeFileSync(join(copy, 'src', 'report', 'zz-test.ts'), "export { startMockProcess } from '../testing/mock-process.js';\n");
    try {
      const r = await lintLayers(copy);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/layer-core: src\/core\/zz-up\.ts → src\/store\/types\.ts/);
      expect(r.out).toMatch(/no-circular: src\/run\/zz-[ab]\.ts/);
      expect(r.out).toMatch(/no-test-code-in-shipped-code: src\/report\/zz-test\.ts/);
    } finally {
      for (const f of ['core/zz-up.ts', 'run/zz-a.ts', 'run/zz-b.ts', 'report/zz-test.ts']) rmSync(join(copy, 'src', f), { force: true });
    }
  });
});

/** Every folder under `dir` (relative to ROOT), depth first, leaving out `testing` folders and what they hold. */
function foldersUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f !== 'testing' && statSync(join(ROOT, dir, f)).isDirectory())
    .flatMap((f) => [`${dir}/${f}/`, ...foldersUnder(`${dir}/${f}`)]);
}

describe("the README's layout sketch (## Architecture)", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Architecture\n'), readme.indexOf('\n## ', readme.indexOf('\n## Architecture\n') + 1));
  const sketch = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  /** The folders the sketch describes, one at the head of each line (`src/ground/kb/`, `bench/`). */
  const described = [...sketch.matchAll(/^\s*((?:src|bench)\/(?:[\w-]+\/)*)\s/gm)].map((m) => m[1]);
  /** Every folder it names anywhere (`src/ground/kb/index/`), at least one level below src/ or bench/. */
  const named = [...sketch.matchAll(/(?:src|bench)\/(?:[\w-]+\/)+/g)].map((m) => m[0]);

  it('names every folder of src/ (but testing folders), and each once', () => {
    expect(sketch).not.toBe('');
    for (const folder of foldersUnder('src')) expect(described, `${folder} is missing from the README's sketch`).toContain(folder);
    expect(described.length).toBe(new Set(described).size);
  });

  it('names no folder that does not exist', () => {
    for (const folder of named)
      expect(existsSync(join(ROOT, folder)) && statSync(join(ROOT, folder)).isDirectory(), `${folder} (in the README's sketch)`).toBe(true);
  });
});
