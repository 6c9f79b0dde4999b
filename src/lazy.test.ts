import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { installedVersion, pinnedCopy } from './lazy.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A package `name` at `version` in dir/node_modules whose entry sits one folder down (as openai's does not, and many do). */
function install(name: string, version: string): void {
  const pkg = join(dir, 'node_modules', name);
  mkdirSync(join(pkg, 'lib'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, version, main: 'lib/index.js' }));
  writeFileSync(join(pkg, 'lib', 'index.js'), 'module.exports = 1;\n');
}
const from = pathToFileURL(join(dir, 'app.js')).href;

describe('pinned copies (the bin carries openai; scripts/bundle-cli.mjs)', () => {
  it('reads the version of the package a module would load, or undefined when none is installed', () => {
    install('thing', '1.2.3');
    expect(installedVersion('thing', from)).toBe('1.2.3');
    expect(installedVersion('missing-thing', from)).toBeUndefined();
  });

  it('takes the copy while the installed version is the one copied, else the installed package', async () => {
    install('pinned', '2.0.0');
    const copy = async () => 'copy';
    const installed = async () => 'installed';
    expect(await pinnedCopy('pinned', '2.0.0', copy, installed, from)).toBe('copy');
    expect(await pinnedCopy('pinned', '1.9.9', copy, installed, from)).toBe('installed');
    expect(await pinnedCopy('not-installed', '1.0.0', copy, installed, from)).toBe('installed');
  });
});
