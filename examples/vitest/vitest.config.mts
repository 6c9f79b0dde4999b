import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Starts `assay mock` (a local server speaking OpenAI's protocol): no key, no network, no cost.
    globalSetup: ['./mock-llm.ts'],
    // Registers expect(...).toSatisfy(rule) and expect(fn).toHoldReliably(rule, ...).
    setupFiles: ['assay/vitest/matchers'],
    // Vitest's own output, then assay's reliability table (and, on GitHub Actions, the job summary).
    reporters: ['default', 'assay/vitest/reporter'],
  },
});
