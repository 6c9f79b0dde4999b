import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/build-if-stale.mjs (`npm run demo`): builds only when a source changed since the last build (issue 26,
// item 7: a second demo re-ran tsc, 57 s under load). In a folder of its own whose `build` script counts its runs.
const SCRIPT = resolve('scripts/build-if-stale.mjs');
const dir = mkdtempSync(join(tmpdir(), 'assay-build-if-stale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const builds = join(dir, 'builds.log');
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({
    name: 'x',
    private: true,
    scripts: {
      build: `node -e "require('fs').appendFileSync('builds.log','b\\\\n');require('fs').mkdirSync('dist/cli',{recursive:true});require('fs').writeFileSync('dist/cli/main.js','')"`,
    },
  }),
);
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
const run = () => spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
const count = () => readFileSync(builds, 'utf8').split('\n').filter(Boolean).length;
/** Sets a path's modification time `s` seconds from a fixed start (no wall-clock race). */
const at = (path: string, s: number) => utimesSync(path, 1_700_000_000 + s, 1_700_000_000 + s);

describe('scripts/build-if-stale.mjs', () => {
  it('is what npm run demo builds with', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.demo).toMatch(/^node scripts\/build-if-stale\.mjs && node dist\/cli\/main\.js run /);
  });

  it('builds when there is no build, not again while nothing changed, and again after a source changes', () => {
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('no dist/ yet, building');
    expect(count()).toBe(1);
    for (const p of ['package.json', 'src', 'src/a.ts']) at(join(dir, p), 10);
    at(join(dir, 'dist/cli/main.js'), 20);
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stderr).toContain('up to date');
    expect(count()).toBe(1);
    at(join(dir, 'src/a.ts'), 30);
    const third = run();
    expect(third.stderr).toContain('sources changed since the last build, building');
    expect(count()).toBe(2);
  });
});
