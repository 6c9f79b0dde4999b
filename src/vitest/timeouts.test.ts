import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { openSqliteStore } from '../store/sqlite.js';
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

  // The stores other than memory keep an error's message, not its kind: the line naming timeoutMs went missing
  // with the default store (SQLite), in every real Vitest run.
  it('names the timeout and how to change it with a SQLite store too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-timeouts-'));
    try {
      const store = openSqliteStore(join(dir, 'assay.db'));
      const r = await runReliability({
        name: 'hangs on sqlite',
        file,
        options: { inputs: ['a'], samples: 1, validators: [words], system: hang, timeoutMs: 50 } as ReliabilityOptions,
        store,
      });
      const [rule] = r.rules;
      expect(rule.test).toBe('fail');
      expect(rule.message).toContain('no answer within 50 ms');
      expect(rule.message).toMatch(/set timeoutMs in the block's options/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('meets a hanging system in about one timeout: a timed-out call is not retried, and the block stops', async () => {
    // 12 samples, concurrency 8: timed-out calls retried like a 429 made each sample take at least 5 × timeoutMs
    // (plus backoff) and ran a second wave; now each call is made once and fail fast stops the block.
    const timeoutMs = 1_000;
    let calls = 0;
    const store = new MemoryStore();
    const t0 = performance.now();
    const r = await runReliability({
      name: 'hangs everywhere',
      file,
      options: {
        inputs: ['a', 'b', 'c'],
        samples: 4,
        validators: [words],
        system: () => {
          calls++;
          return hang();
        },
        timeoutMs,
      } as ReliabilityOptions,
      store,
    });
    const wallMs = performance.now() - t0;
    const [rule] = r.rules;
    expect(rule.test).toBe('fail');
    expect(rule.message).toContain(`no answer within ${timeoutMs} ms`);
    expect(rule.message).toMatch(/set timeoutMs in the block's options/);
    expect(rule.message).toMatch(/stopped/);
    const samples = await store.samples.list(r.runId);
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.every((s) => s.attempts === 1 && s.generationErrorKind === 'timeout')).toBe(true);
    expect(calls).toBeLessThanOrEqual(12); // each sample's call made at most once (retried: 5 each)
    expect(wallMs).toBeLessThan(5 * timeoutMs); // the old floor: five attempts of one call
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
