import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { newRun, sample, storeContract } from './contract.case.js';
import { openSqliteStore, SqliteStore } from './sqlite.js';
import { DuplicateSampleError } from './validate.js';

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

  it('keeps the response cache across close and reopen', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    await s1.cache.set('k', 'v');
    await s1.close();
    const s2 = openSqliteStore(path, { readonly: true });
    expect((await s2.cache.get('k'))?.value).toBe('v');
    await s2.close();
  });

  it('upgrades a schema-version-1 store in place: old samples read back, new fields are stored', async () => {
    const path = freshPath();
    const s1 = openSqliteStore(path);
    const run = await s1.createRun(newRun());
    await s1.recordSample(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    await s1.close();
    // Make it a version-1 store: the columns and table added in version 2 did not exist.
    const raw = new Database(path);
    raw.exec(`ALTER TABLE samples DROP COLUMN cost_json; ALTER TABLE samples DROP COLUMN cached; DROP TABLE response_cache; UPDATE meta SET value = '1' WHERE key = 'schema_version'`);
    raw.close();
    const ro = openSqliteStore(path, { readonly: true });
    expect((await ro.getSample(run.id, 0, 0))!.outcomes).toEqual([Outcome.PASS, Outcome.PASS]);
    await ro.close();
    const s2 = openSqliteStore(path);
    await s2.recordSample(run.id, sample(1, 0, [Outcome.PASS, Outcome.FAIL], { cost: { usd: 0.5 }, cached: true }));
    expect((await s2.getSample(run.id, 1, 0))!.cost).toEqual({ usd: 0.5 });
    expect((await s2.getSample(run.id, 0, 0))!.cost).toBeUndefined();
    await s2.cache.set('k', 'v');
    await s2.close();
  });

  it('refuses to open a missing file read-only, or a file that is not a store', async () => {
    expect(() => openSqliteStore(join(dir, 'missing.db'), { readonly: true })).toThrow(/cannot open/);
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not sqlite at all, just text that is long enough to look like a header........');
    expect(() => openSqliteStore(junk)).toThrow();
  });

  it('group commit: samples of one event-loop turn commit together, each acknowledged only once on disk', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const run = await store.createRun(newRun({ inputs: Array.from({ length: 10 }, (_, i) => `in ${i}`), samples: 10 }));
    const other = new Database(path, { readonly: true }); // a second connection sees only committed data
    const count = () => (other.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n;
    let acked = 0;
    const writes = Array.from({ length: 100 }, (_, x) => store.recordSample(run.id, sample(Math.floor(x / 10), x % 10, [Outcome.PASS, Outcome.FAIL])).then(() => acked++));
    const duplicate = store.recordSample(run.id, sample(3, 3, [Outcome.FAIL, Outcome.FAIL]));
    expect([count(), acked]).toEqual([0, 0]); // queued, not yet committed, not yet acknowledged
    await Promise.all(writes);
    await expect(duplicate).rejects.toBeInstanceOf(DuplicateSampleError); // fails alone, not its batch
    expect([count(), acked]).toEqual([100, 100]);
    expect((await store.getSample(run.id, 3, 3))!.outcomes).toEqual([Outcome.PASS, Outcome.FAIL]);
    other.close();
    await store.close();
  });

  it('reads see queued writes, and close commits them', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    const run = await store.createRun(newRun());
    void store.recordSample(run.id, sample(0, 0, [Outcome.PASS, Outcome.PASS]));
    expect((await store.listSamples(run.id)).length).toBe(1);
    const last = store.recordSample(run.id, sample(1, 2, [Outcome.ERROR, Outcome.PASS]));
    await store.close();
    await last;
    const again = openSqliteStore(path, { readonly: true });
    expect((await again.loadTensor(run.id)).get(1, 2, 0)).toBe(Outcome.ERROR);
    await again.close();
  });

  // A child writes 50 × 40 samples, printing each (i, j) once recordSample has resolved; we kill -9 it
  // mid-stream. One writer awaits each sample in turn; the other keeps 32 in flight, as the runner does,
  // so samples share group commits.
  const writers = {
    'one at a time': `for (let i = 0; i < 50; i++) for (let j = 0; j < 40; j++) await write(i, j);`,
    '32 in flight': `let next = 0;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < 2000) {
    const x = next++;
    await new Promise((r) => setTimeout(r, Math.random() * 2));
    await write(Math.floor(x / 40), x % 40);
  }
}));`,
  };
  for (const [shape, loop] of Object.entries(writers)) {
    it(`loses no acknowledged sample when a process writing ${shape} is killed with SIGKILL`, async () => {
      const path = freshPath();
      const setup = openSqliteStore(path);
      const run = await setup.createRun(newRun({ inputs: Array.from({ length: 50 }, (_, i) => `in ${i}`), samples: 40 }));
      await setup.close();
      const script = join(dir, `writer-${n++}.mts`);
      writeFileSync(
        script,
        `import { openSqliteStore } from ${JSON.stringify(new URL('./sqlite.ts', import.meta.url).pathname)};
const s = openSqliteStore(${JSON.stringify(path)});
async function write(i: number, j: number) {
  await s.recordSample(${JSON.stringify(run.id)}, { i, j, outcomes: [1, 2], output: 'x'.repeat(200), latencyMs: 1, attempts: 1 });
  process.stdout.write(i + ',' + j + '\\n');
}
${loop}
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
  }
});

describe('SqliteStore: design bounds', () => {
  it('refuses to create a run whose tensor could not be allocated, and loadTensor of such a stored record fails with a clear error', async () => {
    const path = freshPath();
    const s = openSqliteStore(path);
    await expect(s.createRun(newRun({ samples: 1e12 }))).rejects.toThrow(/tensor cells, found 2 inputs × 1000000000000 samples × 2 validators/);
    expect(await s.listRuns()).toEqual([]);
    const run = await s.createRun(newRun());
    s.db.prepare('UPDATE runs SET m = ? WHERE id = ?').run(1e12, run.id);
    await expect(s.loadTensor(run.id)).rejects.toThrow(new RegExp(`run ${run.id}: expected inputs × samples`));
    await s.close();
  });
});
