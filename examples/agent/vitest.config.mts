import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Starts `assay mock` with the scripted support model: no key, no network, no cost.
    globalSetup: ['./mock-llm.ts'],
    setupFiles: ['assay/vitest/matchers'],
    reporters: ['default', 'assay/vitest/reporter'],
  },
});
