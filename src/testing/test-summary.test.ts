import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/test-summary.mjs against a real vitest run of a small suite: one failed test two describes deep,
// a file that does not load, and a passing file. Its counts must be vitest's own.
const dir = mkdtempSync(join(tmpdir(), 'assay-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/test-summary.mjs', () => {
  it('counts what vitest counts (test files, not describe blocks) and prints the wall time', () => {
    writeFileSync(
      join(dir, 'nested.test.mjs'),
      "describe('outer', () => { describe('inner', () => { it('fails', () => expect(1).toBe(2)); it('passes', () => {}); it.skip('skipped', () => {}); it.todo('todo'); }); });\n",
    );
    writeFileSync(join(dir, 'broken.test.mjs'), "import './missing.mjs';\nit('never runs', () => {});\n");
    writeFileSync(join(dir, 'fine.test.mjs'), "it('passes', () => {});\nit('passes too', () => {});\n");
    const json = join(dir, 'out.json');
    const vitest = spawnSync(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--root', dir, '--globals', '--reporter=default', '--reporter=json', `--outputFile.json=${json}`],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    const said = vitest.stdout + vitest.stderr;
    expect(said).toMatch(/Test Files\s+2 failed \| 1 passed \(3\)/);
    expect(said).toMatch(/Tests\s+1 failed \| 3 passed \| 1 skipped \| 1 todo \(6\)/);

    const summary = spawnSync(process.execPath, ['scripts/test-summary.mjs', json], { encoding: 'utf8' });
    expect(summary.status).toBe(1);
    const [line, ...failed] = summary.stdout.trim().split('\n');
    expect(line).toMatch(/^tests: 3 passed, 1 failed, 2 skipped; test files: 1 passed, 2 failed; wall time \d+\.\d s$/);
    expect(failed.join('\n')).toMatch(/failed: .*nested\.test\.mjs \(1 test\(s\)\)/);
    expect(failed.join('\n')).toMatch(/failed: .*broken\.test\.mjs \(.*missing\.mjs/);
  });

  it('says so, and fails, when vitest wrote no results', () => {
    const r = spawnSync(process.execPath, ['scripts/test-summary.mjs', join(dir, 'absent.json')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/no results .* vitest did not finish/);
  });
});
