import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../cli/testing/process.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { redisForTests } from '../testing/services.js';
import { throwawayPostgres } from '../testing/throwaway.js';

// A PostgreSQL that refuses the login, of the test's own: password logins only (SCRAM), and a database
// reachable only over TLS. Logins wait 10 minutes there for a client that stalls (authentication_timeout),
// so a command that kept its refused connection open would outlive the test; each must exit 3 at once, in
// one line, as a process of its own.
const pg = await throwawayPostgres({
  auth: 'scram-sha-256',
  password: 's3cret',
  hba: ['hostssl tlsonly all 127.0.0.1/32 scram-sha-256', 'host tlsonly all 127.0.0.1/32 reject'],
});
const redis = pg ? await redisForTests() : undefined;
afterAll(async () => {
  await pg?.destroy();
  await redis?.drop();
});
const tmp = useConfigDir('assay-pg-auth-');

/** Exit 3, one line naming the store without its password, and nothing else. */
function refused(r: { code: number | null; err: string }, why: RegExp): void {
  expect(r.code, r.err).toBe(3);
  const lines = r.err.trim().split('\n');
  expect(lines, r.err).toHaveLength(1);
  expect(lines[0]).toMatch(/^assay: cannot use the assay store at postgres:\/\/postgres(:\*\*\*)?@127\.0\.0\.1:\d+\/\w+: /);
  expect(lines[0]).toMatch(why);
  expect(r.err).not.toContain('s3cret');
  expect(r.err).not.toContain('wrong');
}

describe.skipIf(!pg)('a login the server refuses', () => {
  it('no password for a SCRAM login: runs, run and worker each exit 3 at once with one line, and their process ends', async () => {
    const url = pg!.url();
    const config = tmp.config(
      'a.yaml',
      `name: a
system: { simulated: { seed: 1, outputs: ["fine"] } }
inputs: ["a"]
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
`,
    );
    const commands = [['runs'], ['run', config, '--no-progress'], ...(redis ? [['worker', '--queue', `${redis.url}?prefix=${redis.prefix}`]] : [])];
    const results = await Promise.all(commands.map((c) => runCliProcess([...c, '--store', url])));
    for (const r of results) refused(r, /SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string/);
  }, 120_000);

  it('a wrong password, and a database that takes TLS logins only: exit 3 at once with the server’s reason', async () => {
    const [wrong, plain] = await Promise.all([
      runCliProcess(['runs', '--store', pg!.url({ password: 'wrong' })]),
      runCliProcess(['runs', '--store', pg!.url({ password: 's3cret', database: 'tlsonly' })]),
    ]);
    refused(wrong, /password authentication failed for user "postgres" \(28P01\)/);
    refused(plain, /pg_hba\.conf rejects connection for host "127\.0\.0\.1", user "postgres", database "tlsonly", no encryption \(28000\)/);
  }, 120_000);
});
