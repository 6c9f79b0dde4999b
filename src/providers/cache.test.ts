import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory.js';
import { cacheKey, canonicalJson, withResponseCache, withSystemCache } from './cache.js';
import type { ChatModel, ChatRequest } from './chat-model.js';
import { ProviderError } from './types.js';

function counting(fail?: () => boolean): ChatModel & { calls: number } {
  const m = {
    provider: 'openai',
    modelId: 'm',
    id: 'openai:m',
    baseURL: 'http://127.0.0.1:1/v1',
    capabilities: { jsonSchema: true, tools: true },
    calls: 0,
    async generate(r: ChatRequest) {
      m.calls++;
      if (fail?.()) throw new ProviderError('server', 'down');
      return {
        text: `answer ${m.calls} to ${r.messages.at(-1)?.content}`,
        usage: { promptTokens: 10, completionTokens: 5 },
        costUsd: 0.001,
        finishReason: 'stop',
        latencyMs: 5,
      };
    },
  };
  return m;
}

const signal = () => new AbortController().signal;
const ask = (content: string, temperature?: number): ChatRequest => ({
  messages: [{ role: 'user', content }],
  ...(temperature !== undefined ? { temperature } : {}),
});

describe('response cache', () => {
  it('keys equal requests equally whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    expect(cacheKey({ a: 1, b: 2 })).toBe(cacheKey({ b: 2, a: 1 }));
    expect(cacheKey({ a: 1 })).not.toBe(cacheKey({ a: 2 }));
  });

  it('serves a repeated call from the store, free and marked; sample j, the request and the model each make their own entry', async () => {
    const store = new MemoryStore();
    const inner = counting();
    const m = withResponseCache(inner, { store: store.cache });
    const a = await m.generate(ask('hi'), { signal: signal(), sample: 0 });
    const again = await m.generate(ask('hi'), { signal: signal(), sample: 0 });
    expect(inner.calls).toBe(1);
    expect(again).toMatchObject({ text: a.text, finishReason: 'stop', cached: true, costUsd: 0, latencyMs: 0 });
    expect(again.usage).toBeUndefined();
    // j = 1 is another draw; so is another temperature; so is another model.
    expect((await m.generate(ask('hi'), { signal: signal(), sample: 1 })).text).not.toBe(a.text);
    await m.generate(ask('hi', 0.5), { signal: signal(), sample: 0 });
    const other = counting();
    await withResponseCache({ ...other, modelId: 'm2', generate: other.generate }, { store: store.cache }).generate(ask('hi'), { signal: signal(), sample: 0 });
    expect(inner.calls).toBe(3);
    expect(other.calls).toBe(1);
    // A cacheKey replaces the request: a prompt with a fresh nonce each time still hits.
    await m.generate(ask('nonce 1'), { signal: signal(), cacheKey: 'judge x' });
    expect((await m.generate(ask('nonce 2'), { signal: signal(), cacheKey: 'judge x' })).cached).toBe(true);
    // A call's nonce is kept with its answer, and a hit says which call it answered (a judge checks its binding against it).
    await m.generate(ask('nonce a'), { signal: signal(), cacheKey: 'judge y', nonce: 'aaaa' });
    expect(await m.generate(ask('nonce b'), { signal: signal(), cacheKey: 'judge y', nonce: 'bbbb' })).toMatchObject({ cached: true, nonce: 'aaaa' });
    expect((await m.generate(ask('nonce 3'), { signal: signal(), cacheKey: 'judge x', nonce: 'cccc' })).nonce).toBeUndefined();
  });

  it('never keeps an error, and ignores entries older than the TTL', async () => {
    const store = new MemoryStore();
    let down = true;
    const inner = counting(() => down);
    let now = Date.now();
    const m = withResponseCache(inner, { store: store.cache, ttlMs: 60_000, now: () => now });
    await expect(m.generate(ask('x'), { signal: signal() })).rejects.toBeInstanceOf(ProviderError);
    down = false;
    await m.generate(ask('x'), { signal: signal() });
    expect((await m.generate(ask('x'), { signal: signal() })).cached).toBe(true);
    now += 61_000;
    expect((await m.generate(ask('x'), { signal: signal() })).cached).toBeUndefined();
    expect(inner.calls).toBe(3);
  });

  it('caches a whole system (http, command) by its config, input and j', async () => {
    const store = new MemoryStore();
    let calls = 0;
    const sys = { id: 'http:x', generate: async (input: unknown) => ({ text: `out ${++calls} ${JSON.stringify(input)}`, latencyMs: 3 }) };
    const c = withSystemCache(sys, { http: { url: 'x' } }, { store: store.cache });
    const o = { signal: signal(), inputIndex: 0, sample: 0 };
    const first = await c.generate('q', o);
    expect(await c.generate('q', o)).toEqual({ text: first.text, latencyMs: 0, costUsd: 0, cached: true });
    await c.generate('q', { ...o, sample: 1 });
    await withSystemCache(sys, { http: { url: 'y' } }, { store: store.cache }).generate('q', o);
    expect(calls).toBe(3);
  });
});
