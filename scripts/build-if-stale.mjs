#!/usr/bin/env node
// Builds (`npm run -s build`) only when the build is missing or older than a source it is made from: src/, the
// package's and TypeScript's configs and the bundler script. `npm run demo` runs it, so a second demo starts at
// once instead of waiting for tsc again. Run in the package's folder (npm scripts are); exit code: the build's, or 0.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const BUILT = join(root, 'dist', 'cli', 'main.js');
const SOURCES = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', join('scripts', 'bundle-cli.mjs')];

/** The newest modification time under `path` (a file, or a folder walked whole); 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let max = s.mtimeMs; // a deleted file shows only as its folder's change
  for (const e of readdirSync(path)) max = Math.max(max, newest(join(path, e)));
  return max;
}

const built = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
const changed = Math.max(...SOURCES.map((p) => newest(join(root, p))));
if (built > 0 && built >= changed) {
  process.stderr.write('build: dist/ is up to date with src/ (nothing to build)\n');
  process.exit(0);
}
process.stderr.write(built === 0 ? 'build: no dist/ yet, building\n' : 'build: sources changed since the last build, building\n');
const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '-s', 'build'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
