import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJudgeRequest, judgeReply, startMock } from '../mock/index.js';
import type { MockServer } from '../mock/types.js';
import type { CallLimiter, LimiterFactory, Permit, RateLimitConfig } from '../providers/rate-limit.js';
import { MemoryStore } from '../store/memory.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions } from './types.js';

// Issue 24: describeReliability assembled its run its own way and ignored `rateLimit` (6 calls at 60 requests a
// minute took 114 ms in Vitest, 8.1 s through `assay run`). Now it goes through the one assembly
// (run/assemble.ts). Measured on the limiter's own count, not on wall time: permits are handed out only when
// the test says so, and no call may start without one.

/** A limiter per scope that grants a permit only when `grant(scope)` is called. */
function manualLimiters() {
  const waiting = new Map<string, (() => void)[]>();
  const configs = new Map<string, RateLimitConfig>();
  const acquired = new Map<string, number>();
  const factory: LimiterFactory = (scope, config) => {
    configs.set(scope, config);
    const limiter: CallLimiter = {
      acquire: () =>
        new Promise<Permit>((resolve) => {
          acquired.set(scope, (acquired.get(scope) ?? 0) + 1);
          const queue = waiting.get(scope) ?? [];
          queue.push(() => resolve({ sent: () => {}, done: () => {} }));
          waiting.set(scope, queue);
        }),
      spend: async () => {},
    };
    return limiter;
  };
  /** Waits until a call of `scope` asks for a permit, then grants it. */
  const grant = async (scope: string) => {
    for (let t = 0; !(waiting.get(scope)?.length ?? 0); t++) {
      if (t > 20_000) throw new Error(`no call of ${scope} asked for a permit`);
      await new Promise((r) => setTimeout(r, 1));
    }
    waiting.get(scope)!.shift()!();
  };
  return { factory, grant, configs, acquired, pending: (scope: string) => waiting.get(scope)?.length ?? 0 };
}

const file = join(import.meta.dirname, 'rate-limit.test.ts');
const oneAtATime = { concurrency: 1 } as const;

describe('describeReliability holds rate limits as assay run does', () => {
  it('a function system with rateLimit: 6 samples wait for 6 permits of 60 requests a minute, one call per permit', async () => {
    const limits = manualLimiters();
    let calls = 0;
    const options: ReliabilityOptions = {
      inputs: ['a', 'b'],
      samples: 3,
      ...oneAtATime,
      rateLimit: { requestsPerMinute: 60 },
      system: async () => {
        calls++;
        return 'fine';
      },
      validators: [{ name: 'nonempty', check: { type: 'words', min: 1 }, minSuccess: 0.5 }],
    };
    const outcome = runReliability({ name: 'limited', file, options, store: new MemoryStore(), limiters: limits.factory });
    for (let k = 1; k <= 6; k++) {
      await limits.grant('system');
      // The k-th call starts only once its permit is granted, and never before.
      for (let t = 0; calls < k && t < 20_000; t++) await new Promise((r) => setTimeout(r, 1));
      expect(calls).toBe(k);
    }
    const result = await outcome;
    expect(calls).toBe(6);
    expect(limits.acquired.get('system')).toBe(6);
    expect(limits.configs.get('system')).toEqual({ requestsPerMinute: 60 });
    expect(result.rules[0].verdict).not.toBe('error');
  });

  describe('a provider system and a judge, each with its own rateLimit', () => {
    let mock: MockServer;
    beforeAll(async () => {
      mock = await startMock('openai', {
        chat: (req) => (isJudgeRequest(req) ? { content: judgeReply(req, 'PASS', ['fine']) } : { content: 'Happy to help.' }),
      });
    });
    afterAll(() => mock.close());

    it('every system call and every judge call waits for a permit of its own limiter', async () => {
      const limits = manualLimiters();
      const openai = (model: string) => ({ openai: { baseURL: mock.baseURL, model } });
      const options: ReliabilityOptions = {
        inputs: ['Where is my parcel?'],
        samples: 3,
        ...oneAtATime,
        system: { ...openai('bot'), rateLimit: { requestsPerMinute: 60 } },
        verifiers: [{ name: 'polite', instructions: 'Polite.', minSuccess: 0.5, judge: { ...openai('judge'), rateLimit: { requestsPerMinute: 30 } } }],
      };
      const env = { ...process.env, OPENAI_API_KEY: 'test' };
      const outcome = runReliability({ name: 'limited provider', file, options, env, store: new MemoryStore(), limiters: limits.factory });
      for (let k = 0; k < 3; k++) {
        await limits.grant('system');
        await limits.grant('verifier:polite');
      }
      const result = await outcome;
      expect(limits.acquired.get('system')).toBe(3);
      expect(limits.acquired.get('verifier:polite')).toBe(3);
      expect(limits.configs.get('system')).toEqual({ requestsPerMinute: 60 });
      expect(limits.configs.get('verifier:polite')).toEqual({ requestsPerMinute: 30 });
      expect(result.rules.map((r) => r.verdict)).not.toContain('error');
    });
  });

  it('refuses a rateLimit given twice, beside the system and in it', async () => {
    const options = {
      inputs: ['a'],
      rateLimit: { requestsPerMinute: 60 },
      system: { simulated: { outputs: ['x'] }, rateLimit: { requestsPerMinute: 30 } },
      validators: [{ name: 'v', check: { type: 'words', min: 1 }, minSuccess: 0.5 }],
    } as ReliabilityOptions;
    await expect(runReliability({ name: 'twice', file, options, store: new MemoryStore() })).rejects.toThrow(
      /rateLimit: expected it once, found it both beside system and in system\.rateLimit/,
    );
  });
});
