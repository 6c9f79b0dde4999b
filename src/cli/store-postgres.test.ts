import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/open.js';
import { createTestDatabase } from '../testing/services.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';

// Every command that reads or writes runs, against a real PostgreSQL database of this test run.
const db = await createTestDatabase();
afterAll(async () => db?.drop());
const tmp = useConfigDir('assay-cli-pg-');
const cli = (...args: string[]) => captureCli(args);

const body = (seed: number, text: string) => `name: team
system: { simulated: { seed: ${seed}, outputs: [{ text: "${text}" }] } }
inputs: ["a", "b", "c"]
samples: 4
validators:
  - { name: short, check: { type: words, max: 3 }, minSuccess: 0.5 }
`;

describe.skipIf(!db)('the CLI on a PostgreSQL store', () => {
  it('run, runs, show, compare and plan --run work on a postgres:// URL, as on SQLite', async () => {
    const url = `${db!.url}?schema=cli`;
    const first = await cli('run', tmp.config('a.yaml', body(1, 'fine')), '--store', url, '--no-progress');
    expect(first.code, first.err).toBe(0);
    const a = /run (\S+):/.exec(first.err)![1];
    const second = await cli('run', tmp.config('b.yaml', body(2, 'far too many words here')), '--store', url, '--no-progress');
    expect(second.code).toBe(1);
    const b = /run (\S+):/.exec(second.err)![1];

    const runs = JSON.parse((await cli('runs', '--store', url, '--json')).out) as { id: string; verdict: string; done: number }[];
    expect(runs.map((r) => [r.id, r.verdict, r.done])).toEqual([
      [b, 'fail', 12],
      [a, 'pass', 12],
    ]);
    const paged = JSON.parse((await cli('runs', '--store', url, '--json', '--limit', '1', '--offset', '1')).out) as { id: string }[];
    expect(paged.map((r) => r.id)).toEqual([a]);
    const show = await cli('show', a, '--store', url);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/short\s+100\.0%/);
    const compare = await cli('compare', a, b, '--store', url);
    expect(compare.code).toBe(1); // b is significantly worse
    const plan = await cli('plan', '--run', a, '--store', url, '--json');
    expect(plan.code, plan.err).toBe(0);
    expect(JSON.parse(plan.out)).toMatchObject({ K: 1, p_pass: 1 });
  });

  it('ASSAY_STORE is the default store of every command; --store still wins', async () => {
    const url = `${db!.url}?schema=env`;
    const before = process.env.ASSAY_STORE;
    process.env.ASSAY_STORE = url;
    try {
      const r = await cli('run', tmp.config('c.yaml', body(3, 'fine')), '--no-progress');
      expect(r.code, r.err).toBe(0);
      const id = /run (\S+):/.exec(r.err)![1];
      expect(JSON.parse((await cli('runs', '--json')).out).map((x: { id: string }) => x.id)).toEqual([id]);
      const elsewhere = await cli('runs', '--store', `${db!.url}?schema=cli`, '--json');
      expect(JSON.parse(elsewhere.out).map((x: { id: string }) => x.id)).not.toContain(id);
      const guard = await cli('guard', tmp.config('c.yaml', body(3, 'fine')), '--input', 'hello', '--json');
      expect(guard.code, guard.err).toBe(0);
      const callId = JSON.parse(guard.out).callId as string;
      const store = await openStore(url, { readonly: true });
      expect(await store.guard.getCall(callId)).toMatchObject({ accepted: true, attempts: 1, output: 'fine' });
      await store.close();
    } finally {
      if (before === undefined) delete process.env.ASSAY_STORE;
      else process.env.ASSAY_STORE = before;
    }
  });

  it('an empty database for reading is exit 2; an unreachable server exit 3 in one line without the password', async () => {
    const empty = await cli('runs', '--store', `${db!.url}?schema=nothing_here`);
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/^assay: --store: expected an assay store at .*schema "nothing_here".*found no assay tables there/);
    for (const args of [['runs'], ['run', tmp.config('d.yaml', body(1, 'fine'))], ['show', 'x']]) {
      const r = await cli(...args, '--store', 'postgres://alice:s3cret@127.0.0.1:1/assay');
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/^assay: .*postgres:\/\/alice:\*\*\*@127\.0\.0\.1:1\/assay.*ECONNREFUSED/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).not.toContain('s3cret');
    }
  });
});
