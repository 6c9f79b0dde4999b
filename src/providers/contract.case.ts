import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, type GenerateOptions, type SystemUnderTest } from './types.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

/**
 * The shared contract every system under test passes (GUIDE: one contract suite per interface).
 * A fixture builds systems that answer with text containing the input's `text` (or the string input),
 * so the suite can tell that the input really reached the system.
 */

/** Inputs the fixtures must answer; each answer contains `CONTRACT_INPUTS.string` or `CONTRACT_INPUTS.object.text`. */
export const CONTRACT_INPUTS = {
  string: 'Say hello.',
  object: { text: 'Summarise the news.', lang: 'en' },
} as const;

/** How many concurrent calls the suite makes (sample indices 0..n-1 of input 0): replay fixtures record that many. */
export const CONTRACT_CONCURRENCY = 8;

export interface ContractOptions {
  /** Each call should take at least this long (to abort it mid-call); default: as fast as the system can. */
  delayMs?: number;
  /** Build a system whose calls fail (e.g. HTTP 500, exit code 1, a missing recording, errorRate 1). */
  failing?: boolean;
}

export type MakeSystem = (options: ContractOptions) => SystemUnderTest | Promise<SystemUnderTest>;

/**
 * Wall time from calling `start` to the settlement of what it returns, and its outcome. The clock starts
 * before the call: a provider may do slow synchronous work in it (spawning a process under load).
 */
async function timed<T>(start: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const t0 = performance.now();
  try {
    const value = await start();
    return { ms: performance.now() - t0, value };
  } catch (error) {
    return { ms: performance.now() - t0, error };
  }
}

function opts(signal: AbortSignal, inputIndex = 0, sample = 0): GenerateOptions {
  return { signal, inputIndex, sample };
}

export function systemContract(name: string, makeSystem: MakeSystem): void {
  describe(`SystemUnderTest contract: ${name}`, () => {
    const opened: SystemUnderTest[] = [];
    const make = async (o: ContractOptions = {}) => {
      const s = await makeSystem(o);
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close?.();
    });

    it('has a non-empty id', async () => {
      const s = await make();
      expect(typeof s.id).toBe('string');
      expect(s.id.length).toBeGreaterThan(0);
    });

    it('returns text for a string input', async () => {
      const s = await make();
      const g = await s.generate(CONTRACT_INPUTS.string, opts(new AbortController().signal, 0, 0));
      expect(typeof g.text).toBe('string');
      expect(g.text).toContain(CONTRACT_INPUTS.string);
      expect(g.latencyMs).toBeGreaterThanOrEqual(0);
      if (g.usage) {
        expect(g.usage.promptTokens).toBeGreaterThanOrEqual(0);
        expect(g.usage.completionTokens).toBeGreaterThanOrEqual(0);
      }
    });

    it('returns text for an object input', async () => {
      const s = await make();
      const g = await s.generate({ ...CONTRACT_INPUTS.object }, opts(new AbortController().signal, 1, 0));
      expect(g.text).toContain(CONTRACT_INPUTS.object.text);
    });

    it('rejects an already-aborted signal at once with ProviderError kind aborted', async () => {
      const s = await make({ delayMs: SLOW_MS });
      const c = new AbortController();
      c.abort();
      const r = await timed(() => s.generate(CONTRACT_INPUTS.string, opts(c.signal)));
      expect(r.error).toBeInstanceOf(ProviderError);
      expect((r.error as ProviderError).kind).toBe('aborted');
      expect(r.ms).toBeLessThan(PROMPTLY_MS);
    });

    it('stops promptly when aborted mid-call (kind aborted)', async () => {
      const s = await make({ delayMs: SLOW_MS });
      const c = new AbortController();
      setTimeout(() => c.abort(), 100);
      const r = await timed(() => s.generate(CONTRACT_INPUTS.string, opts(c.signal)));
      expect(r.error).toBeInstanceOf(ProviderError);
      expect((r.error as ProviderError).kind).toBe('aborted');
      expect(r.ms).toBeGreaterThanOrEqual(90);
      expect(r.ms).toBeLessThan(PROMPTLY_MS);
    });

    it('stops promptly on a per-call timeout (kind timeout)', async () => {
      const s = await make({ delayMs: SLOW_MS });
      const r = await timed(() => s.generate(CONTRACT_INPUTS.string, opts(AbortSignal.timeout(100))));
      expect(r.error).toBeInstanceOf(ProviderError);
      expect((r.error as ProviderError).kind).toBe('timeout');
      expect((r.error as ProviderError).retryable).toBe(true);
      expect(r.ms).toBeLessThan(PROMPTLY_MS);
    });

    it('throws ProviderError instances when the system fails', async () => {
      const s = await make({ failing: true });
      const r = await timed(() => s.generate(CONTRACT_INPUTS.string, opts(new AbortController().signal)));
      expect(r.error).toBeInstanceOf(ProviderError);
      expect((r.error as ProviderError).message.length).toBeGreaterThan(0);
    });

    it('serves concurrent calls', async () => {
      // Long enough that the cost of starting a process (command) on a loaded machine does not hide the overlap.
      const delayMs = 2000;
      const s = await make({ delayMs });
      const signal = new AbortController().signal;
      const t0 = performance.now();
      const all = await Promise.all(Array.from({ length: CONTRACT_CONCURRENCY }, (_, j) => s.generate(CONTRACT_INPUTS.string, opts(signal, 0, j))));
      const ms = performance.now() - t0;
      expect(all).toHaveLength(CONTRACT_CONCURRENCY);
      for (const g of all) expect(g.text).toContain(CONTRACT_INPUTS.string);
      // The calls overlap. One at a time, eight 2 s calls cannot take less than 16 s on any machine (each waits
      // its own timer); together they take 2 s and the cost of starting them, which a loaded machine may stretch
      // to seconds but not to 14 s.
      expect(ms).toBeLessThan(CONTRACT_CONCURRENCY * delayMs);
    });
  });
}
