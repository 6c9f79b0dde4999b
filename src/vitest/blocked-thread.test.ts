import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureProject, SRC, type FixtureProject, type VitestRun } from './testing/project.js';

// Issue 30, item 7: a system that blocks the thread (a synchronous loop) kept every timer from firing, so Vitest's
// "Hook timed out" came first and the rule test was skipped. Now the rule test fails, saying the thread was blocked.
// The thread is blocked with Atomics.wait (as a busy loop blocks it, without burning a core) past the hook's limit
// (runTimeoutMs + 10 s), by little: a block that starts late on a loaded machine must still end before Vitest's own
// limit (5 s later), or both limits are due at once.
describe('a system that blocks the thread, in a Vitest run', () => {
  let project: FixtureProject;
  let run: VitestRun;
  beforeAll(async () => {
    project = fixtureProject();
    project.write(
      'blocks.test.ts',
      `import { describeReliability } from '${SRC.vitest}';

describeReliability('blocks', {
  inputs: ['a'],
  samples: 1,
  runTimeoutMs: 200,
  system: () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_700);
    return 'x';
  },
  validators: [{ name: 'v', check: { type: 'words', max: 4 }, minSuccess: 0.1 }],
});
`,
    );
    run = await project.run();
  }, 120_000);
  afterAll(() => project?.remove());

  it('fails the rule test (not skipped) naming the blocked thread, not Vitest\u2019s hook timeout', () => {
    const t = run.tests.get('blocks v');
    expect(t?.status, run.stdout + run.stderr).toBe('failed');
    expect(t!.failureMessages[0]).toMatch(/^ReliabilityError: v: /);
    expect(t!.failureMessages[0]).toMatch(/blocked the thread for \d+(\.\d)? s/);
    expect(run.stdout + run.stderr).not.toMatch(/Hook timed out/);
  });
});
