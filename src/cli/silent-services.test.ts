import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentServer } from '../testing/throwaway.js';
import { captureCli } from './testing/capture.js';
import { useConfigDir } from './testing/config-dir.js';
import { runCliProcess } from './testing/process.js';

// A Redis or a PostgreSQL that accepts the connection and never answers (a hung server, a proxy to
// nowhere): reported within the connect timeout (10 s), exit 3 in one line, the process ends, and
// nothing is written anywhere meanwhile.
const tmp = useConfigDir('assay-silent-');
const cli = (...args: string[]) => captureCli(args);
let silent: Awaited<ReturnType<typeof silentServer>>;
beforeAll(async () => {
  silent = await silentServer();
});
afterAll(async () => silent?.close());

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

describe('a server that accepts connections and never answers', () => {
  it('as Redis: run --queue and worker each exit 3 within the connect timeout, in one line, creating no store', async () => {
    const queue = `redis://127.0.0.1:${silent.port}`;
    const [runStore, workerStore] = [join(tmp.dir(), 'run.db'), join(tmp.dir(), 'worker.db')];
    const [run, worker] = await Promise.all([
      cli('run', config(), '--queue', queue, '--store', runStore, '--no-progress'),
      runCliProcess(['worker', '--queue', queue, '--store', workerStore]),
    ]);
    for (const r of [run, worker]) {
      expect(r.code, r.err).toBe(3);
      expect(r.err).toBe(`assay: cannot reach the queue at ${queue}: no answer within 10 s (the server accepts connections but does not reply)\n`);
    }
    expect(existsSync(runStore)).toBe(false);
    expect(existsSync(workerStore)).toBe(false);
  });

  it('as PostgreSQL: runs and run exit 3 within the connect timeout, in one line', async () => {
    const store = `postgres://alice:s3cret@127.0.0.1:${silent.port}/assay`;
    for (const args of [['runs'], ['run', config(), '--no-progress']]) {
      const r = await cli(...args, '--store', store);
      expect(r.code, r.err).toBe(3);
      expect(r.err).toMatch(
        new RegExp(`^assay: cannot use the assay store at postgres://alice:\\*\\*\\*@127\\.0\\.0\\.1:${silent.port}/assay: .*(timeout|terminated).*\\n$`),
      );
    }
  });
});
