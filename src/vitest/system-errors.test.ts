import { APICallError } from '@ai-sdk/provider';
import { join } from 'node:path';
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { runReliability } from './engine.js';
import type { ReliabilityOptions, SystemFunction } from './types.js';

// Errors thrown by a function system are read as the providers' own (issue 26, item 3): a transient one is
// retried with backoff, a fatal one (401) stops the run after the documented 5 in a row.

const words = { name: 'short', check: { type: 'words', max: 4 }, minSuccess: 0.5 } as const;
const file = join(process.cwd(), 'bot.test.ts');
const block = (system: SystemFunction, store: MemoryStore, options: Partial<ReliabilityOptions> = {}) =>
  runReliability({ name: 'block', file, options: { inputs: ['a', 'b'], samples: 10, validators: [words], system, ...options } as ReliabilityOptions, store });
const apiCall = (statusCode: number, message: string) => new APICallError({ message, url: 'https://api.example/v1/chat', requestBodyValues: {}, statusCode });

describe('a function system that throws', () => {
  it("retries the AI SDK's 429 (APICallError) with backoff, and the rule passes", async () => {
    const store = new MemoryStore();
    const seen = new Set<string>();
    const r = await block(async (input, { sample }) => {
      const key = `${String(input)}/${sample}`;
      if (!seen.has(key)) {
        seen.add(key);
        throw apiCall(429, 'Too Many Requests');
      }
      return 'ok';
    }, store);
    expect(r.rules[0].test, r.rules[0].message).toBe('pass');
    const samples = await store.samples.list(r.runId);
    expect(samples).toHaveLength(20);
    expect(samples.every((s) => s.attempts === 2 && s.generationError === undefined)).toBe(true);
  });

  it("retries openai's RateLimitError and a 503 shaped as { status }", async () => {
    const store = new MemoryStore();
    let calls = 0;
    const r = await block(
      async () => {
        calls++;
        if (calls % 3 === 1) throw APIError.generate(429, { error: { message: 'Rate limit reached' } }, undefined, new Headers());
        if (calls % 3 === 2) throw Object.assign(new Error('Service Unavailable'), { status: 503 });
        return 'ok';
      },
      store,
      { concurrency: 1, samples: 3, inputs: ['a'] },
    );
    expect(r.rules[0].message).toContain('(3 pass, 0 fail, 0 error)');
    expect((await store.samples.list(r.runId)).map((s) => s.attempts)).toEqual([3, 3, 3]);
  });

  it('stops the run after 5 samples in a row that throw a 401, naming the 401', async () => {
    const store = new MemoryStore();
    let calls = 0;
    const r = await block(
      async () => {
        calls++;
        throw apiCall(401, 'Unauthorized');
      },
      store,
      { samples: 20, concurrency: 1 },
    );
    expect(r.rules[0].test).toBe('fail');
    expect(r.rules[0].message.split('\n')[1]).toMatch(
      /^ {2}the run stopped early after 5 of 40 samples: 5 samples in a row failed the same way \(client\): system function: HTTP 401: Unauthorized/,
    );
    // Not retried: one call per sample.
    expect(calls).toBe(5);
    const [stored] = await store.runs.list();
    expect(stored.status).toBe('interrupted');
  });
});
