import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Prints one line when the benchmark data beside the repository is absent and its tests are skipped.
    globalSetup: ['src/spade/testing/global-setup.ts'],
  },
});
