import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../testing/services.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';
import { runCliProcess } from './testing/process.js';

// Bad input writes nothing: a store URL of another database, a folder that does not exist, a run id that
// is not there, a queue that cannot be reached. Each is refused, and the working directory, the disk and
// the database are as they were. Commands run as processes in an empty folder of their own, so that
// anything they create there is seen.
const tmp = useConfigDir('assay-store-input-');
const cli = (...args: string[]) => captureCli(args);
const db = await createTestDatabase();
afterAll(async () => db?.drop());

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});
/** A fresh, empty working directory. */
function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-cwd-'));
  folders.push(dir);
  return dir;
}

const config = () =>
  tmp.config(
    'a.yaml',
    `name: a
system: { simulated: { seed: 1, outputs: ["fine"] } }
inputs: ["a", "b"]
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
`,
  );

async function schemaExists(url: string, schema: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return ((await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount ?? 0) > 0;
  } finally {
    await c.end();
  }
}

describe('bad input writes nothing', () => {
  it('a store URL of any scheme but postgres:// or postgresql:// is a usage error naming both; no file or folder appears', async () => {
    const cases = [
      { args: ['run', config(), '--store', 'mysql://root:pw@127.0.0.1/x'], shown: 'mysql://root:***@127.0.0.1/x', name: '--store' },
      { args: ['runs', '--store', 'http://example.com/runs.db'], shown: 'http://example.com/runs.db', name: '--store' },
      { args: ['run', config(), '--store', 'sqlite:///tmp/x.db'], shown: 'sqlite:///tmp/x.db', name: '--store' },
      { args: ['run', config()], env: { ASSAY_STORE: 'mysql://root@127.0.0.1/x' }, shown: 'mysql://root@127.0.0.1/x', name: 'ASSAY_STORE' },
    ];
    const dirs = cases.map(() => emptyDir());
    const results = await Promise.all(cases.map((c, n) => runCliProcess(c.args, { cwd: dirs[n], env: { ...process.env, ...c.env } })));
    results.forEach((r, n) => {
      const { shown, name } = cases[n];
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        new RegExp(
          `^assay: ${name}: expected a postgres:// or postgresql:// URL, or the path of a SQLite file, found "${shown.replace(/[.*?/]/g, '\\$&')}" \\(a \\w+: URL`,
        ),
      );
      expect(r.err).not.toContain(':pw@');
      expect(readdirSync(dirs[n])).toEqual([]);
    });
  });

  it('a SQLite store in a folder that does not exist is a usage error, and no folder is made; the default .assay/ folder is', async () => {
    const cwd = emptyDir();
    const [missing, byDefault] = await Promise.all([
      runCliProcess(['run', config(), '--store', join(cwd, 'no', 'such', 'dir', 'a.db'), '--no-progress'], { cwd }),
      runCliProcess(['run', config(), '--no-progress', '--allow-inconclusive'], { cwd: emptyDir() }),
    ]);
    expect(missing.code, missing.err).toBe(2);
    expect(missing.err).toBe(
      `assay: --store: the folder ${join(cwd, 'no', 'such', 'dir')} of the SQLite store ${join(cwd, 'no', 'such', 'dir', 'a.db')} does not exist; create it first, or give a store path in a folder that exists\n`,
    );
    expect(readdirSync(cwd)).toEqual([]);
    // assay's own folder in the working directory is made, as git makes .git.
    expect(byDefault.code, byDefault.err).toBe(0);
    expect(readdirSync(folders.at(-1)!)).toEqual(['.assay']);
  });

  it('an unknown run id (run --resume, show, plan --run) is exit 2 and creates no store', async () => {
    const commands = [
      ['run', '--resume', 'no-such-run', '--no-progress'],
      ['run', config(), '--resume', 'no-such-run', '--no-progress'],
      ['show', 'no-such-run'],
      ['plan', '--run', 'no-such-run'],
    ];
    const dirs = commands.map(() => emptyDir());
    const results = await Promise.all(commands.map((c, n) => runCliProcess(c, { cwd: dirs[n] })));
    results.forEach((r, n) => {
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(
        n < 2
          ? /^assay: --resume: no run with id "no-such-run": there is no store at .*\.assay\/assay\.db yet/
          : /^assay: --store: expected an assay store at .*\.assay\/assay\.db, found no file/,
      );
      expect(readdirSync(dirs[n])).toEqual([]);
    });
  });

  it('a lookup or clean-up in a folder with no store (cache clear, runs, compare, grade, grades export) is exit 2 and creates nothing', async () => {
    const commands = [['cache', 'clear'], ['runs'], ['compare', 'a', 'b'], ['grade', 'a'], ['grades', 'export', '--run', 'a']];
    const dirs = commands.map(() => emptyDir());
    const results = await Promise.all(commands.map((c, n) => runCliProcess(c, { cwd: dirs[n] })));
    results.forEach((r, n) => {
      expect(r.code, `${commands[n].join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toMatch(/^assay: --store: expected an assay store at .*\.assay\/assay\.db, found no file/);
      expect(readdirSync(dirs[n]), commands[n].join(' ')).toEqual([]);
    });
  });

  describe.skipIf(!db)('on PostgreSQL', () => {
    it('run --resume of an unknown id creates no schema; nor does a run or worker whose queue cannot be reached', async () => {
      const resume = await cli('run', config(), '--resume', 'no-such-run', '--store', `${db!.url}?schema=resumed`);
      expect(resume.code, resume.err).toBe(2);
      expect(resume.err).toMatch(/^assay: --resume: no run with id "no-such-run": there is no store at postgres:\/\/\S+\?schema=resumed yet/);
      expect(await schemaExists(db!.url, 'resumed')).toBe(false);

      const queued = await cli('run', config(), '--queue', 'redis://127.0.0.1:1', '--store', `${db!.url}?schema=queued`, '--no-progress');
      expect(queued.code, queued.err).toBe(3);
      expect(queued.err).toMatch(/^assay: cannot reach the queue at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
      expect(await schemaExists(db!.url, 'queued')).toBe(false);

      const worker = await cli('worker', '--queue', 'redis://127.0.0.1:1', '--store', `${db!.url}?schema=worker`);
      expect(worker.code, worker.err).toBe(3);
      expect(await schemaExists(db!.url, 'worker')).toBe(false);

      // The same run with a queue it can reach would have made it: the check above is not vacuous.
      const made = await cli('run', config(), '--store', `${db!.url}?schema=queued`, '--no-progress', '--allow-inconclusive');
      expect(made.code, made.err).toBe(0);
      expect(await schemaExists(db!.url, 'queued')).toBe(true);
    });
  });
});
