import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits.js';
import { fixtureProject, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

// Issue 30, item 7: "a hanging system fails only after 307 s by default". With the per-call default (30 s) a
// timed-out call was still retried like a 429 (4 retries with backoff): each sample took 5 × 30 s plus backoff,
// and 12 samples at the default concurrency (8) two such waves, over 5 minutes. With default options, the rule
// must fail in about one timeout, saying which limit it was and how to change it.
const SAMPLES = 12;
// Old: at least 5 attempts × 30 s per call (150 s) before the first sample was even stored. Generous for a
// loaded machine: one timeout plus Vitest's start and a slow store.
const BOUND_MS = DEFAULT_CALL_TIMEOUT_MS * 3;

describe('a system that never answers, in a Vitest run with default options', () => {
  let project: FixtureProject;
  let run: VitestRun;
  let wallMs = 0;
  beforeAll(async () => {
    project = fixtureProject();
    project.write(
      'hangs.test.ts',
      `import { describeReliability } from '${SRC.vitest}';

describeReliability('hangs', {
  inputs: ['a', 'b', 'c'],
  samples: ${SAMPLES / 3},
  system: () => new Promise<string>(() => undefined),
  validators: [{ name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 }],
});
`,
    );
    const t0 = Date.now();
    run = await project.run();
    wallMs = Date.now() - t0;
  }, 600_000);
  afterAll(() => project?.remove());

  it('fails the rule in about one timeout, not timeout × retries, naming the limit and how to change it', () => {
    const t = run.tests.get('hangs short');
    expect(t?.status, run.stdout + run.stderr).toBe('failed');
    const message = t!.failureMessages[0];
    expect(message).toContain(`no answer within ${DEFAULT_CALL_TIMEOUT_MS} ms`);
    expect(message).toMatch(/set timeoutMs in the block's options/);
    expect(wallMs, message).toBeLessThan(BOUND_MS);
  });
});
