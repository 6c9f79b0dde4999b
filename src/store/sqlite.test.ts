import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { newRun, sample, storeContract } from './contract.case.js';
import { openSqliteStore, SqliteStore } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `s${n++}`, 'assay.db');

storeContract('sqlite (file)', async () => openSqliteStore(freshPath()));
storeContract('sqlite (:memory:)', async () => new SqliteStore(':memory:'));

describe('SqliteStore persistence', () => {
  it('persists runs and samples across close and reopen, and opens read-only', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.createRun(newRun());
    await s1.recordSample(run.id, sample(1, 1, [Outcome.PASS, Outcome.FAIL]));
    await s1.close();

    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.getRun(run.id))!.name).toBe('exp');
    expect((await ro.loadTensor(run.id)).get(1, 1, 1)).toBe(Outcome.FAIL);
    await expect(ro.createRun(newRun())).rejects.toThrow(/readonly/i);
    await ro.close();
  });

  it('refuses to open a missing file read-only, or a file that is not a store', async () => {
    expect(() => openSqliteStore(join(dir, 'missing.db'), { readonly: true })).toThrow(/cannot open/);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not sqlite at all, just text that is long enough to look like a header........');
    expect(() => openSqliteStore(junk)).toThrow();
  });

  it('loses no committed sample when the writing process is killed with SIGKILL', async () => {
    const path = freshPath();
    const setup = openSqliteStore(path);
    const run = await setup.createRun(newRun({ inputs: Array.from({ length: 50 }, (_, i) => `in ${i}`), samples: 40 }));
    await setup.close();
    // A child writes samples as fast as it can, reporting each committed (i, j) on stdout; we kill it mid-stream.
    const script = join(dir, 'writer.mts');
    writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(new URL('./sqlite.ts', import.meta.url).pathname)};
const s = openSqliteStore(${JSON.stringify(path)});
for (let i = 0; i < 50; i++) for (let j = 0; j < 40; j++) {
  await s.recordSample(${JSON.stringify(run.id)}, { i, j, outcomes: [1, 2], output: 'x'.repeat(200), latencyMs: 1, attempts: 1 });
  process.stdout.write(i + ',' + j + '\\n');
}
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    let buf = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        acked.push(...lines);
        if (acked.length >= 300 && !child.killed) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    expect(acked.length).toBeGreaterThanOrEqual(300);
    expect(acked.length).toBeLessThan(2000); // it really was killed mid-run

    const after = openSqliteStore(path);
    const stored = await after.listSamples(run.id);
    const keys = new Set(stored.map((s) => `${s.i},${s.j}`));
    for (const a of acked) expect(keys.has(a)).toBe(true); // every acknowledged write survived
    expect(keys.size).toBe(stored.length); // no duplicates
    const t = await after.loadTensor(run.id);
    expect(Array.from(t.cells).filter((c) => c !== Outcome.PENDING).length).toBe(stored.length * 2);
    // the store is still writable and consistent after the crash
    const next = [...Array(50 * 40).keys()].map((x) => [Math.floor(x / 40), x % 40]).find(([i, j]) => !keys.has(`${i},${j}`))!;
    await after.recordSample(run.id, sample(next[0], next[1], [Outcome.PASS, Outcome.PASS]));
    await after.close();
  }, 60_000);
});
