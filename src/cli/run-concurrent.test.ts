import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { openStore } from '../store/open.js';
import { startMockOpenAI, type MockOpenAI } from '../mock/openai.js';
import { createTestDatabase } from '../testing/services.js';
import { useConfigDir } from './testing/config-dir.js';
import { cliCommand } from './testing/process.js';

// Two `assay run --resume <id>` of one run at once (two terminals, two CI retries): each sample is stored by
// whichever process gets there first; the other keeps that one, says so, and ends like any run.
const tmp = useConfigDir('assay-cli-concurrent-');
const db = await createTestDatabase();
afterAll(async () => db?.drop());

function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [...cliCommand(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

const backends: [string, (() => string) | undefined][] = [
  ['sqlite', () => join(tmp.dir(), 'twice.db')],
  ['postgres', db ? () => `${db.url}?schema=twice` : undefined],
];

for (const [backend, location] of backends) {
  describe.skipIf(!location)(`two --resume of one run at once (${backend})`, () => {
    let mock: MockOpenAI;
    afterEach(async () => mock?.close());

    it('both exit as a finished run would (exit 0), each sample is stored once, and the loser says so', async () => {
      mock = await startMockOpenAI({ chat: () => ({ content: 'fine', delayMs: 30 }) });
      const file = tmp.config(
        `twice-${backend}.yaml`,
        `name: twice
system: { openai: { baseURL: "${mock.baseURL}", model: m } }
inputs: ["a", "b", "c", "d", "e"]
samples: 40
concurrency: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.9 }
`,
      );
      // An interrupted run with its first 20 samples stored, decided as the config decides it (confident verdicts).
      const at = location!();
      const setup = await openStore(at);
      const run = await setup.runs.create({
        name: 'twice',
        config: { verdict: 'confident' },
        configPath: file,
        inputs: ['a', 'b', 'c', 'd', 'e'],
        samples: 40,
        validators: [{ name: 'nonempty', message: 'm', minSuccess: 0.9, weight: 1, kind: 'validator' }],
        systemId: 'openai:m',
      });
      for (let x = 0; x < 20; x++)
        await setup.samples.record(run.id, { i: x % 5, j: Math.floor(x / 5), outcomes: [Outcome.PASS], output: 'fine', latencyMs: 1, attempts: 1 });
      await setup.runs.setStatus(run.id, 'interrupted');
      await setup.close();

      const [a, b] = await Promise.all([
        runCli(['run', '--resume', run.id, '--store', at, '--no-progress']),
        runCli(['run', '--resume', run.id, '--store', at, '--no-progress']),
      ]);
      for (const r of [a, b]) {
        expect(r.code, r.err).toBe(0);
        expect(r.err).not.toMatch(/internal error|DuplicateSampleError|at .*\.ts:\d+/);
        expect(r.out).toMatch(/nonempty\s+100\.0%/);
      }
      // Both started before either finished, so at least one found samples the other had stored.
      const said = [a, b].map((r) => /(\d+) sample\(s\) .*stored by another process/.exec(r.err)?.[1]).filter(Boolean);
      expect(said.length).toBeGreaterThan(0);

      const store = await openStore(at, { readonly: true });
      try {
        const all = await store.samples.list(run.id);
        expect(all).toHaveLength(200);
        expect(new Set(all.map((s) => `${s.i},${s.j}`)).size).toBe(200);
        expect((await store.runs.get(run.id))!.status).toBe('complete');
      } finally {
        await store.close();
      }
      // Every one of the 180 missing samples was generated at least once; the overlap is the work duplicated.
      expect(mock.requests.length).toBeGreaterThanOrEqual(180);
    });
  });
}
