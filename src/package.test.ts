import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What `npm pack` ships (after `npm run build`, which npm test runs first): no source maps, whose `../src`
// sources are not shipped; so no compiled file may point at one either.
describe('the packed package', () => {
  it('ships no source maps and no sourceMappingURL comments', () => {
    expect(existsSync('dist/index.js'), 'dist/ is built by npm run build (npm test runs it first)').toBe(true);
    const r = spawnSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    expect(files).toContain('dist/index.js');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
    // Every entry point package.json publishes (the root, each subpath, assay/testing, assay/vitest) ships, types and code.
    const exports = (JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, string | Record<string, string>> }).exports;
    const targets = Object.values(exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    for (const target of targets) expect(files, target).toContain(target.replace(/^\.\//, ''));
    const pointing = files.filter((f) => f.endsWith('.js') && /\/\/# sourceMappingURL=/.test(readFileSync(f, 'utf8')));
    expect(pointing).toEqual([]);
  });
});
