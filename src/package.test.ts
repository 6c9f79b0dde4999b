import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';

// What `npm pack` ships (after `npm run build`, which npm test runs first). The bin (dist/cli/, a bundle) ships
// its source maps, with the sources inside them (src/ is not shipped), so that its stack traces name src/
// files and lines; the library's files (tsc's) ship without maps. No file points at a map that is not shipped.
describe('the packed package', () => {
  it("ships the bin's source maps, each carrying its sources, and no other map; every sourceMappingURL names a shipped map", () => {
    expect(existsSync('dist/index.js'), 'dist/ is built by npm run build (npm test runs it first)').toBe(true);
    const r = spawnSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    expect(files).toContain('dist/index.js');
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
    // Every entry point package.json publishes (the root, each subpath, assay/testing, assay/vitest) ships, types and code.
    const exports = (JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string | Record<string, string>> }).exports;
    const targets = Object.values(exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    for (const target of targets) expect(files, target).toContain(target.replace(/^\.\//, ''));
    const maps = files.filter((f) => f.endsWith('.map'));
    expect(maps).toContain('dist/cli/main.js.map');
    expect(maps.filter((f) => !/^dist\/cli\/[^/]+\.js\.map$/.test(f))).toEqual([]);
    for (const map of maps) {
      const m = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(files, `${map} is the map of a shipped file`).toContain(map.slice(0, -'.map'.length));
      expect(m.sources.length, map).toBeGreaterThan(0);
      expect(m.sourcesContent?.length, `${map}: sourcesContent`).toBe(m.sources.length);
      expect(m.sourcesContent!.filter((c) => typeof c !== 'string').length, `${map}: sources without content`).toBe(0);
    }
    const pointing = files.flatMap((f) => {
      if (!f.endsWith('.js')) return [];
      const url = /\n\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(f, 'utf8'))?.[1];
      return url === undefined ? [] : [{ file: f, map: posix.join(posix.dirname(f), url) }];
    });
    expect(pointing.map((p) => p.file)).toContain('dist/cli/main.js');
    expect(pointing.filter((p) => !maps.includes(p.map))).toEqual([]);
  });
});
