import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import { STARTER_CONFIG } from './init.js';
import { captureCli } from './testing/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => captureCli(args);

describe('assay init', () => {
  it('writes a starter config that loads and runs as it is (exit 0), and explains the next steps', async () => {
    const file = join(dir, 'assay.yaml');
    const r = await cli('init', '--file', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`assay run ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_CONFIG);
    const x = await loadExperiment(file);
    expect(x.validators.map((v) => v.name)).toEqual(['few_contractions', 'short_enough', 'friendly_opening']);
    x.dispose();
    const run = await cli('run', file, '--store', join(dir, 'a.db'));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/PASS: 3 validator/);
  });

  it('refuses to overwrite an existing file unless --force', async () => {
    const file = join(dir, 'mine.yaml');
    writeFileSync(file, 'name: mine\n');
    const r = await cli('init', '--file', file);
    expect(r.code).toBe(2);
    expect(r.err).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe('name: mine\n');
    expect((await cli('init', '--file', file, '--force')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(STARTER_CONFIG);
  });

  it('a path in a missing folder (or a folder) is exit 2 naming the path, not a stack trace', async () => {
    const missing = join(dir, 'missing', 'dir', 'assay.yaml');
    const r = await cli('init', '--file', missing);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `assay: --file: expected a writable file path, found ${JSON.stringify(missing)}, but its folder ${join(dir, 'missing', 'dir')} does not exist\n`,
    );
    const folder = await cli('init', '--file', dir, '--force');
    expect(folder.code).toBe(2);
    expect(folder.err).toMatch(/but it is a folder/);
  });
});

describe('the bin', () => {
  it('runs when started through a symlink of any name (npm bin links, npx)', () => {
    // node_modules/.bin/assay is a symlink to the entry file; main.ts compares real paths.
    const link = join(dir, 'some-bin-name');
    symlinkSync(join(process.cwd(), 'src/cli/main.ts'), link);
    const out = execFileSync(process.execPath, ['--import', 'tsx', link, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toBe('0.1.0');
  });
});
