import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assayCommand } from './invocation.js';

// The command a message suggests is the one that works where the user is (issue 26, item 7): `npx assay` when
// assay was started through npx or a project's own install, `assay` for a global one.
const dir = mkdtempSync(join(tmpdir(), 'assay-invocation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const project = join(dir, 'project');
const main = join(project, 'node_modules', 'assay', 'dist', 'cli', 'main.js');
mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
mkdirSync(join(project, 'node_modules', 'assay', 'dist', 'cli'), { recursive: true });
writeFileSync(main, '');
symlinkSync(main, join(project, 'node_modules', '.bin', 'assay'));
const global = join(dir, 'usr', 'lib', 'node_modules', 'assay', 'dist', 'cli', 'main.js');

describe('assayCommand', () => {
  it('is npx assay under npx (npm exec), whatever the script', () => {
    expect(assayCommand({ npm_command: 'exec' }, global, project)).toBe('npx assay');
  });
  it("is npx assay for a project's own install (its .bin link or the package), from the project or a folder in it", () => {
    expect(assayCommand({}, join(project, 'node_modules', '.bin', 'assay'), project)).toBe('npx assay');
    mkdirSync(join(project, 'src'), { recursive: true });
    expect(assayCommand({}, main, join(project, 'src'))).toBe('npx assay');
  });
  it('is assay for a global install or a checkout', () => {
    expect(assayCommand({}, global, project)).toBe('assay');
    expect(assayCommand({}, join(dir, 'checkout', 'dist', 'cli', 'main.js'), project)).toBe('assay');
    expect(assayCommand({}, undefined, project)).toBe('assay');
  });
});
