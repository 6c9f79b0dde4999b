import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// tsx's ES-module API (require.resolve gives its CommonJS twin, beside it).
const TSX_API = pathToFileURL(
  createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs'),
).href;

// mapStackTraces replaces Error.prepareStackTrace for the whole process: it runs in a child, not in Vitest's.
const dir = mkdtempSync(join(tmpdir(), 'assay-stack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Base64 VLQ of a source map's `mappings` field. */
function vlq(...values: number[]): string {
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let out = '';
  for (const value of values) {
    let v = value < 0 ? (-value << 1) | 1 : value << 1;
    do {
      const digit = v & 31;
      v >>>= 5;
      out += digits[v > 0 ? digit | 32 : digit];
    } while (v > 0);
  }
  return out;
}

/** A bundle's folder: chunk.js with its map (line 2 comes from ../src/orig.ts line 10, column 5; line 4 from nothing), and a file without one. */
function writeBundle(): string {
  const bundle = join(dir, 'bundle');
  mkdirSync(bundle, { recursive: true });
  writeFileSync(
    join(bundle, 'chunk.js'),
    [
      'export function boom() {',
      "  throw new TypeError('from the chunk');",
      '}',
      "export function helper() { throw new RangeError('a line the map has nothing for'); }",
      '//# sourceMappingURL=chunk.js.map',
      '',
    ].join('\n'),
  );
  const mappings = [vlq(0, 0, 0, 0), vlq(2, 0, 9, 4), '', ''].join(';');
  writeFileSync(
    join(bundle, 'chunk.js.map'),
    JSON.stringify({ version: 3, file: 'chunk.js', sources: ['../src/orig.ts'], sourcesContent: ['// the sources\n'], names: [], mappings }),
  );
  writeFileSync(join(bundle, 'unmapped.js'), "export function alone() {\n  throw new Error('no map beside me');\n}\n");
  // Outside the bundle, loaded once Node's own maps are on (as tsx turns them on to load a TypeScript config).
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(join(dir, 'config', 'late.js'), "export function late() {\n  throw new Error('from a config');\n}\n//# sourceMappingURL=late.js.map\n");
  writeFileSync(
    join(dir, 'config', 'late.js.map'),
    JSON.stringify({
      version: 3,
      sources: ['late.ts'],
      sourcesContent: ['// the config\n'],
      names: [],
      mappings: [vlq(0, 0, 0, 0), vlq(2, 0, 6, 2)].join(';'),
    }),
  );
  return bundle;
}

function stacksIn(bundle: string): Record<string, string> {
  // Plain node, tsx only for the module under test: the bundle's files run as they are on disk.
  const script = join(dir, 'print-stacks.mjs');
  writeFileSync(
    script,
    `
import { tsImport } from ${JSON.stringify(TSX_API)};
const { mapStackTraces } = await tsImport(${JSON.stringify(new URL('./stack-traces.ts', import.meta.url).href)}, import.meta.url);
// tsx turned Node's own maps on: off, as in the bin.
process.setSourceMapsEnabled(false);
mapStackTraces(${JSON.stringify(bundle)});
const chunk = await import(${JSON.stringify(pathToFileURL(join(bundle, 'chunk.js')).href)});
const unmapped = await import(${JSON.stringify(pathToFileURL(join(bundle, 'unmapped.js')).href)});
const stack = (f) => { try { f(); } catch (e) { return e.stack; } };
process.setSourceMapsEnabled(true);
const config = await import(${JSON.stringify(pathToFileURL(join(dir, 'config', 'late.js')).href)});
process.stdout.write(JSON.stringify({ boom: stack(chunk.boom), helper: stack(chunk.helper), alone: stack(unmapped.alone), late: stack(config.late) }));
`,
  );
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

describe('mapStackTraces: frames in terms of the sources, from the maps beside the bundle', () => {
  it('prints a frame of a mapped line as the source file, line and column, with its own maps or those Node has; others as V8 does', () => {
    const bundle = writeBundle();
    const s = stacksIn(bundle);
    const boom = s.boom.split('\n');
    expect(boom[0]).toBe('TypeError: from the chunk');
    expect(boom[1]).toBe(`    at boom (${join(dir, 'src', 'orig.ts')}:10:5)`);
    // The caller, in this test's script (no map of the bundle's), stays as V8 prints it.
    expect(boom[2]).toMatch(/print-stacks\.mjs:\d+:\d+/);
    // A line the map has no mapping for is not given the previous line's source.
    expect(s.helper.split('\n')[1]).toBe(`    at helper (${pathToFileURL(join(bundle, 'chunk.js')).href}:4:34)`);
    // A file without a map is left alone.
    // Node's own map of a file outside the bundle (Error.prepareStackTrace set, Node would not use it itself).
    expect(s.late.split('\n')[1]).toBe(`    at late (${join(dir, 'config', 'late.ts')}:7:3)`);
    expect(s.alone.split('\n').slice(0, 2)).toEqual(['Error: no map beside me', `    at alone (${pathToFileURL(join(bundle, 'unmapped.js')).href}:2:9)`]);
  });
});
