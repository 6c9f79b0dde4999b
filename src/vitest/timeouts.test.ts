import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions } from './types.js';

// Issue 30, item 7: a hanging system is met by a per-call timeout (assay/vitest's default, shorter than a config
// file's), and the rule fails as an error naming the timeout and how to change it.
const file = join(process.cwd(), 'bot.test.ts');
const words = { name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 } as const;
const hang = () => new Promise<string>(() => undefined);

describe('a system that never answers', () => {
  it('has a per-call timeout by default shorter than the runner’s 60 s', () => {
    expect(DEFAULT_CALL_TIMEOUT_MS).toBeLessThan(60_000);
    expect(DEFAULT_CALL_TIMEOUT_MS).toBeGreaterThanOrEqual(1_000);
  });

  it('fails the rule as an error naming the timeout and how to change it', async () => {
    const store = new MemoryStore();
    const r = await runReliability({
      name: 'hangs',
      file,
      options: { inputs: ['a'], samples: 1, validators: [words], system: hang, timeoutMs: 50 } as ReliabilityOptions,
      store,
    });
    const [rule] = r.rules;
    expect(rule.test).toBe('fail');
    expect(rule.verdict).toBe('error');
    expect(rule.message).toContain('no answer within 50 ms');
    expect(rule.message).toMatch(/timeoutMs/);
    const [sample] = await store.samples.list(r.runId);
    expect(sample.generationErrorKind).toBe('timeout');
  }, 60_000);

  it('stores the default per-call timeout with the run when the block sets none', async () => {
    const store = new MemoryStore();
    const r = await runReliability({
      name: 'fast',
      file,
      options: { inputs: ['a'], samples: 1, validators: [words], system: async () => 'ok' } as ReliabilityOptions,
      store,
    });
    const run = await store.runs.get(r.runId);
    expect(JSON.stringify(run?.config)).toContain(`"timeoutMs":${DEFAULT_CALL_TIMEOUT_MS}`);
  });
});
