import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    // Generous on purpose: a timeout here only catches a hang. Tests run on loaded machines (two suites on two
    // shared cores), where starting a CLI process can take seconds; none may depend on how fast the machine is
    // (see src/testing/time.ts).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The CLI's hints say `npx assay` when npm started it through npx (cli/invocation.ts); `npx vitest` would pass
    // that on to every CLI a test starts. Tests run it as a global install unless they say otherwise.
    env: { npm_command: '' },
    // Vitest's default (cores − 1) is one worker on a 2-core machine, but most test time waits on child processes,
    // services and simulated outages: three workers took the suite from 753 s to 538 s there.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // Prints one line when the benchmark data beside the repository is absent and its tests are skipped.
    globalSetup: ['src/spade/testing/global-setup.ts'],
  },
});
