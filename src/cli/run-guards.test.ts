import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';
import { cliCommand } from './testing/process.js';

const tmp = useConfigDir('assay-cli-guards-');
const cli = (...args: string[]) => captureCli(args);
const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** A run of `samples` × 2 passing outputs; 3 samples (6 outputs) show 0.5 at 95% (lower bound 54%): a confident pass. */
const body = (samples: string) => `name: guards
system: { simulated: { seed: 3, outputs: [{ text: "fine" }] } }
inputs: ["a", "b"]
samples: ${samples}
validators:
  - { name: any, predicate: "o => true", minSuccess: 0.5 }
`;

/** One finished run in a fresh store; its id. */
async function storedRun(store: string): Promise<string> {
  const r = await cli('run', tmp.config('ok.yaml', body('3')), '--store', store, '--no-progress');
  expect(r.code).toBe(0);
  return /run (\S+):/.exec(r.err)![1];
}

describe('design bounds and a damaged record', () => {
  it('samples: 1e12 is exit 2 naming samples and its bound, and nothing is written to the store', async () => {
    const store = join(tmp.dir(), 'huge.db');
    const r = await cli('run', tmp.config('huge.yaml', body('1e12')), '--store', store);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/huge\.yaml: samples: expected an integer from 1 to 1000000, found 1000000000000/);
    expect(r.err).not.toMatch(/internal error|RangeError/);
    expect(existsSync(store)).toBe(false);
  });

  it('runs lists the other runs and flags a record whose tensor cannot be loaded, instead of failing', async () => {
    const store = join(tmp.dir(), 'damaged.db');
    const good = await storedRun(store);
    const bad = await storedRun(store);
    const db = new Database(store);
    db.prepare('UPDATE runs SET m = ? WHERE id = ?').run(1e12, bad);
    db.close();
    const table = await cli('runs', '--store', store);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(new RegExp(`${good}\\s+guards\\s+complete.*pass`));
    expect(table.out).toMatch(new RegExp(`${bad}\\s+guards.*unreadable`));
    expect(table.err).toContain(`run ${bad} cannot be read`);
    const json = JSON.parse((await cli('runs', '--store', store, '--json')).out) as { id: string; verdict: string; problem?: string }[];
    expect(json.find((r) => r.id === bad)).toMatchObject({ verdict: 'unreadable', problem: expect.stringMatching(/tensor cells/) });
    expect(json.find((r) => r.id === good)).toMatchObject({ verdict: 'pass' });
  });
});

describe('report paths are checked before the run', () => {
  it('refuses a report path that is the store (also through a symlink), leaving the store intact', async () => {
    const store = join(tmp.dir(), 'kept.db');
    const id = await storedRun(store);
    const before = readFileSync(store);
    const r = await cli('run', tmp.config('ok.yaml', body('3')), '--store', store, '--json', store);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--json: .*is the assay store/);
    const link = join(tmp.dir(), 'link.json');
    symlinkSync(store, link);
    expect((await cli('show', id, '--store', store, '--html', link)).code).toBe(2);
    expect(readFileSync(store).equals(before)).toBe(true);
    expect((await cli('runs', '--store', store)).out).toContain(id);
  });

  it('refuses two reports to one path, naming both flags', async () => {
    const out = join(tmp.dir(), 'same.json');
    const r = await cli('run', tmp.config('ok.yaml', body('3')), '--store', join(tmp.dir(), 'same.db'), '--json', out, '--html', out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--html: expected a path of its own, found ".*same\.json", which --json writes too/);
    expect(existsSync(join(tmp.dir(), 'same.db'))).toBe(false);
  });

  it('an unwritable report path is exit 2 naming the flag before any call is made (no run is stored)', async () => {
    const store = join(tmp.dir(), 'unwritable.db');
    const r = await cli('run', tmp.config('ok.yaml', body('3')), '--store', store, '--json', '/nonexistent3/x/r.json');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^assay: --json: expected a file in an existing folder, found "\/nonexistent3\/x\/r\.json"/);
    expect(existsSync(store)).toBe(false);
    const id = await storedRun(store);
    const s = await cli('show', id, '--store', store, '--json', '/proc/x.json');
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/^assay: --json: expected a writable file, found "\/proc\/x\.json"/);
    expect(s.err.trim().split('\n')).toHaveLength(1);
  });

  it('"-" means stdout for every report flag of show, with the human table on stderr', async () => {
    const store = join(tmp.dir(), 'dash.db');
    const id = await storedRun(store);
    const s = await cli('show', id, '--store', store, '--json', '-');
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out)).toMatchObject({ runId: id });
    expect(s.err).toMatch(/PASS/);
    expect(existsSync('-')).toBe(false);
    const md = await cli('show', id, '--store', store, '--markdown', '-');
    expect(md.out).toMatch(/^## ✅ assay: guards/);
    expect((await cli('show', id, '--store', store, '--json', '-', '--junit', '-')).code).toBe(2);
    const run = await cli('run', tmp.config('ok.yaml', body('3')), '--store', store, '--junit', '-', '--no-progress');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^<\?xml/);
    expect(run.err).toMatch(/PASS/);
  });
});

describe('a store that cannot be opened or written is exit 3, one line naming the path', () => {
  it('a store whose folder is a file, or a file that is not a database', async () => {
    const blocker = join(tmp.dir(), 'plainfile');
    writeFileSync(blocker, 'x');
    const path = join(blocker, 'assay.db');
    const r = await cli('run', tmp.config('ok.yaml', body('3')), '--store', path);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(new RegExp(`^assay: --store: cannot open the assay store at ${path}: .*\\n$`));
    expect(r.err).not.toMatch(/\n\s+at /);
    const garbage = join(tmp.dir(), 'garbage.db');
    writeFileSync(garbage, 'this is not sqlite '.repeat(100));
    for (const args of [['run', tmp.config('ok.yaml', body('3'))], ['runs']]) {
      const g = await cli(...args, '--store', garbage);
      expect(g.code).toBe(3);
      expect(g.err).toMatch(new RegExp(`^assay: --store: cannot open the assay store at ${garbage}: .*\\n$`));
    }
  });
});

describe('stdout closed early (assay ... | head)', () => {
  it('ends quietly on EPIPE, without a stack trace', async () => {
    const store = join(tmp.dir(), 'pipe.db');
    const cfg = tmp.config('big.yaml', body('400'));
    // The run in this process (only `show | head` needs a real pipe): one CLI process to start, not two.
    const run = await cli('run', cfg, '--store', store, '--no-progress');
    expect(run.code, run.err).toBe(0);
    const id = /run (\S+):/.exec(run.err)![1];
    const r = spawnSync(
      'bash',
      [
        '-c',
        `${[process.execPath, ...cliCommand()].map(quote).join(' ')} show ${id} --store ${store} --html - | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}" >&2`,
      ],
      { encoding: 'utf8' },
    );
    expect(statSync(store).size).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/EPIPE|internal error|\n\s+at /);
    expect(r.stderr).toMatch(/status=0/);
  });
});
