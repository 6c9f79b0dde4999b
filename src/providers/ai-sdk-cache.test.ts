import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../mock/index.js';
import type { MockServer } from '../mock/types.js';
import { MemoryStore } from '../store/memory.js';
import { runInCallContext, withAssayCache } from './ai-sdk-cache.js';
import { assayCache } from './ai-sdk-middleware.js';
import { newCacheLedger, type CacheSettings } from './cache.js';

// The AI SDK's model behind assay's cache, against `assay mock` speaking OpenAI's protocol: keyed by the request
// and the sample j; repeats within one call are never collapsed; outside a run, nothing is cached.

let mock: MockServer;
let n = 0;
beforeAll(async () => {
  mock = await startMock('openai', { chat: () => ({ content: `answer ${++n}` }) });
});
afterAll(() => mock?.close());

const base = () => createOpenAI({ baseURL: mock.baseURL, apiKey: 'k' }).chat('m');
const ask = (text: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});
const textOf = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? '').join('');

describe('withAssayCache', () => {
  it('serves a repeated request of the same sample from the cache, and keys by sample j, prompt and settings', async () => {
    const cache: CacheSettings = { store: new MemoryStore().cache, ledger: newCacheLedger() };
    const model = withAssayCache(base());
    expect([model.provider, model.modelId]).toEqual(['openai.chat', 'm']);
    const call = (j: number, p: LanguageModelV3CallOptions) => runInCallContext({ sample: j, inputIndex: 0, cache }, () => model.doGenerate(p)).then(textOf);
    const first = await call(0, ask('hi'));
    const before = mock.requests.length;
    expect(await call(0, ask('hi'))).toBe(first);
    expect(mock.requests.length).toBe(before);
    // Another sample, another prompt, another temperature: each a call of its own.
    const others = [await call(1, ask('hi')), await call(0, ask('hello')), await call(0, ask('hi', { temperature: 0.2 }))];
    expect(new Set([first, ...others]).size).toBe(4);
    expect(mock.requests.length).toBe(before + 3);
    expect(cache.ledger).toMatchObject({ hits: 1, misses: 4 });
    expect(cache.ledger!.oldest).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('keeps two identical requests within one call apart (the n-th repeat has its own entry)', async () => {
    const cache: CacheSettings = { store: new MemoryStore().cache };
    const model = withAssayCache(base());
    const twice = () =>
      runInCallContext({ sample: 0, inputIndex: 0, cache }, async () => [textOf(await model.doGenerate(ask('x'))), textOf(await model.doGenerate(ask('x')))]);
    const a = await twice();
    expect(a[0]).not.toBe(a[1]);
    expect(await twice()).toEqual(a);
  });

  it('calls the model as it is outside a run, or with the cache off', async () => {
    const model = withAssayCache(base());
    const a = textOf(await model.doGenerate(ask('y')));
    expect(textOf(await model.doGenerate(ask('y')))).not.toBe(a);
    const off = await runInCallContext({ sample: 0, inputIndex: 0 }, () => model.doGenerate(ask('y')));
    expect(textOf(off)).not.toBe(a);
  });

  it('is the same cache as a middleware (wrapGenerate)', async () => {
    const cache: CacheSettings = { store: new MemoryStore().cache };
    const m = base();
    const mw = assayCache();
    const call = () =>
      runInCallContext({ sample: 3, inputIndex: 0, cache }, () =>
        mw.wrapGenerate!({ doGenerate: () => m.doGenerate(ask('z')), doStream: () => m.doStream(ask('z')), params: ask('z'), model: m }),
      );
    const first = textOf(await call());
    expect(textOf(await call())).toBe(first);
  });
});
