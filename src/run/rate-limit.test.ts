import { afterEach, describe, expect, it } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import { useConfigDir } from '../cli/testing/config-dir.js';
import { maxInWindow } from '../queue/testing/workers.js';
import { startMockProcess, type MockProcess } from '../testing/mock-process.js';
import { rateLimitOf } from './rate-limit.js';

// A local run honours `rateLimit` in-process, measured where it matters: at the (mock) provider.
const tmp = useConfigDir('assay-rate-');
const cli = (...args: string[]) => captureCli(args);
let servers: MockProcess[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

/** A mock in a process of its own that records when each request arrived. */
async function timedMock(content: string, usage?: { prompt_tokens: number; completion_tokens: number }) {
  const mock = await startMockProcess({ content, delayMs: 5, ...(usage ? { usage } : {}) });
  servers.push(mock);
  return mock;
}

describe('rateLimit in a local run', () => {
  it('requestsPerMinute on the system and on a judge: no one-second window at the provider sees more than the limit', async () => {
    const system = await timedMock('fine');
    const judge = await timedMock(JSON.stringify({ verdict: 'PASS', reasons: [] }));
    const file = tmp.config(
      'limited.yaml',
      `name: limited
system:
  openai: { baseURL: "${system.baseURL}", model: m }
  rateLimit: { requestsPerMinute: 600 }
inputs: ["a", "b", "c", "d"]
samples: 6
concurrency: 8
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
verifiers:
  - name: judged
    minSuccess: 0.5
    instructions: "Is it fine?"
    judge:
      openai: { baseURL: "${judge.baseURL}", model: j }
      rateLimit: { requestsPerMinute: 480 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/limited.db`, '--no-progress');
    expect(r.code, r.err).toBe(0);
    const [calls, judged] = [await system.arrivals(), await judge.arrivals()];
    expect(calls).toHaveLength(24);
    expect(judged).toHaveLength(24);
    expect(maxInWindow(calls)).toBeLessThanOrEqual(10);
    expect(maxInWindow(judged)).toBeLessThanOrEqual(8);
  }, 30_000);

  it('tokensPerMinute: the tokens spent never run ahead of the budget by more than the calls in flight', async () => {
    const system = await timedMock('fine', { prompt_tokens: 60, completion_tokens: 40 });
    const file = tmp.config(
      'tokens.yaml',
      `name: tokens
system:
  openai: { baseURL: "${system.baseURL}", model: m }
  rateLimit: { tokensPerMinute: 12000 }
inputs: ["a", "b"]
samples: 6
concurrency: 4
validators:
  - { name: nonempty, predicate: "o => o.length > 0", minSuccess: 0.5 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/tokens.db`, '--no-progress');
    expect(r.code, r.err).toBe(0);
    // 12,000 tokens a minute is 200 a second; each call spends 100. Before the k-th call starts, the calls
    // before it may have spent at most 200 per second since the first, plus one call per slot in flight.
    const t = await system.arrivals();
    expect(t).toHaveLength(12);
    for (let k = 0; k < t.length; k++) expect(k * 100).toBeLessThanOrEqual(((t[k] - t[0]) / 1000) * 200 + 4 * 100);
  }, 30_000);

  it('a malformed rateLimit is exit 2 naming the field', async () => {
    const file = tmp.config(
      'bad.yaml',
      `name: bad
system:
  simulated: { outputs: ["x"] }
  rateLimit: { requestsPerMinute: -1 }
inputs: ["a"]
validators:
  - { name: v, predicate: "o => true", minSuccess: 0.5 }
`,
    );
    const r = await cli('run', file, '--store', `${tmp.dir()}/bad.db`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.yaml: system\.rateLimit\.requestsPerMinute: .*>0/);
    expect(() => rateLimitOf({ rateLimit: {} }, { path: 'system' })).toThrow(/system\.rateLimit: expected requestsPerMinute and\/or tokensPerMinute/);
    expect(() => rateLimitOf({ rateLimit: { rpm: 5 } }, { path: 'system' })).toThrow(/rpm/);
    expect(rateLimitOf({ openai: {} }, { path: 'system' })).toBeUndefined();
  });
});
