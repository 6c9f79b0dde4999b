import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { openSqliteStore } from '../store/sqlite.js';
import { runReliability } from './engine.js';
import { DEFAULT_RUN_TIMEOUT_MS, hookTimeoutMs } from './limits.js';
import './matchers.js';
import { fixtureProject, SRC, type FixtureProject, type VitestRun } from './testing/project.js';
import type { ReliabilityOptions } from './types.js';

// A block whose run stops before its N × M samples — calls that keep failing the same way (fail fast), or
// runTimeoutMs passed — fails every rule test saying so: after how many samples, and why.

const words = { name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 } as const;
const file = join(process.cwd(), 'bot.test.ts');
const block = (options: Partial<ReliabilityOptions>, store = new MemoryStore()) =>
  runReliability({ name: 'block', file, options: { inputs: ['a'], samples: 30, validators: [words], ...options } as ReliabilityOptions, store });

describe('a run stopped early by calls that keep failing', () => {
  it('says after how many samples it stopped and the repeated error (a function that returns a number)', async () => {
    const r = await block({ system: (async () => 42) as never });
    const [rule] = r.rules;
    expect(rule.test).toBe('fail');
    const lines = rule.message.split('\n');
    expect(lines[0]).toMatch(/^short: ERROR · /);
    expect(lines[1]).toMatch(
      /^ {2}the run stopped early after \d+ of 30 samples: 5 samples in a row failed the same way \(invalid_response\): the system function returned number, expected a string \(or an agent.s result: the AI SDK.s generateText result, or \{ output, steps \}\)$/,
    );
  });

  it('says so for a provider that refuses the connection', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'test-key');
    try {
      const r = await block({ system: { openai: { baseURL: 'http://127.0.0.1:9/v1', model: 'm' } } });
      expect(r.rules[0].test).toBe('fail');
      expect(r.rules[0].message.split('\n')[1]).toMatch(
        /^ {2}the run stopped early after \d+ of 30 samples: 5 samples in a row failed the same way \(connection\): /,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('says so in toHoldReliably, counting calls', async () => {
    await expect(expect(() => 42 as never).toHoldReliably({ type: 'words', max: 4 }, { samples: 30, minSuccess: 0.5 })).rejects.toThrow(
      /\n {2}the run stopped early after \d+ of 30 calls: 5 samples in a row failed the same way \(invalid_response\): the system function returned number, expected a string/,
    );
  });

  it('leaves a run that was not stopped without the line', async () => {
    const r = await block({ system: async () => 'far too many words for this rule', samples: 10 });
    expect(r.rules[0].message).not.toContain('stopped');
  });
});

describe('runTimeoutMs', () => {
  it('stops the run at runTimeoutMs, stores it as interrupted, and fails every rule naming the limit and the samples done', async () => {
    const store = new MemoryStore();
    const started = performance.now();
    const r = await block(
      {
        samples: 20,
        concurrency: 1,
        runTimeoutMs: 300,
        system: async () => {
          await new Promise((done) => setTimeout(done, 100));
          return 'x';
        },
        validators: [words, { ...words, name: 'also short' }],
      },
      store,
    );
    // The in-flight call is abandoned at the limit, not waited for.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(r.rules.map((x) => x.test)).toEqual(['fail', 'fail']);
    for (const rule of r.rules) expect(rule.message.split('\n')[1]).toMatch(/^ {2}the run stopped at runTimeoutMs \(300 ms\) after [0-5] of 20 samples; /);
    const [stored] = await store.runs.list();
    expect(stored.status).toBe('interrupted');
  });

  it('gives the Vitest hook a margin above runTimeoutMs, so that assay says why the run stopped', () => {
    expect(hookTimeoutMs(500)).toBe(10_500);
    expect(hookTimeoutMs(600_000)).toBe(660_000);
    expect(hookTimeoutMs(undefined)).toBe(1_980_000); // 30 min + 3 min
    // A value the options check refuses: the default (the block then fails with the reason).
    expect(hookTimeoutMs(-5)).toBe(hookTimeoutMs(DEFAULT_RUN_TIMEOUT_MS));
  });
});

// The user's view: a real Vitest, its hook, its test results, and the SQLite store `assay runs` reads.
describe('runTimeoutMs in a Vitest run', () => {
  let project: FixtureProject;
  let run: VitestRun;
  beforeAll(async () => {
    project = fixtureProject();
    project.write(
      'slow.test.ts',
      `import { describeReliability } from '${SRC.vitest}';

describeReliability('slow', {
  inputs: ['a'],
  samples: 20,
  concurrency: 1,
  runTimeoutMs: 500,
  system: async () => { await new Promise((r) => setTimeout(r, 200)); return 'x'; },
  validators: [{ name: 'v', check: { type: 'words', max: 4 }, minSuccess: 0.1 }],
});
`,
    );
    run = await project.run([], { ASSAY_STORE: join(project.dir, 'runs.db') });
  });
  afterAll(() => project?.remove());

  it("fails the rule test (not skipped) with assay's message, not Vitest's hook timeout, and stores the run as interrupted", async () => {
    const t = run.tests.get('slow v');
    expect(t?.status, run.stdout + run.stderr).toBe('failed');
    expect(t!.failureMessages[0]).toMatch(/^ReliabilityError: v: .*\n {2}the run stopped at runTimeoutMs \(500 ms\) after [0-3] of 20 samples; /);
    expect(run.stdout + run.stderr).not.toMatch(/Hook timed out/);
    await using store = openSqliteStore(join(project.dir, 'runs.db'), { readonly: true });
    const [stored] = await store.runs.list();
    expect(stored.status).toBe('interrupted');
  });
});
