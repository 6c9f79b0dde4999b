import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../providers/types.js';
import { startMockOpenAI, type MockOpenAI } from '../../mock/openai.js';
import { embedderContract } from './contract.case.js';
import { createOpenAIEmbedder } from './openai.js';

let mock: MockOpenAI;
beforeAll(async () => {
  // Un-normalised vectors of dimension 16: the embedder must normalise them itself.
  mock = await startMockOpenAI({
    dimension: 16,
    embeddings: (body) => {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      if (inputs.includes('FAIL')) return { status: 500 };
      return inputs.map((t) => Array.from({ length: 16 }, (_, j) => ((String(t).charCodeAt(j % String(t).length) * (j + 3)) % 17) + 1));
    },
  });
});
afterAll(() => mock.close());

embedderContract('openai (mock server)', () => createOpenAIEmbedder({ baseURL: mock.baseURL, model: 'mock-embed', batchSize: 7 }));

describe('openai embedder', () => {
  it('probes the dimension, batches requests and sends the model name', async () => {
    const before = mock.requests.length;
    const e = await createOpenAIEmbedder({ baseURL: mock.baseURL, model: 'mock-embed', batchSize: 4 });
    expect(e.dimension).toBe(16);
    await e.embed(Array.from({ length: 10 }, (_, i) => `text ${i}`));
    const sent = mock.requests.slice(before).map((r) => r.body as { model: string; input: string[] });
    expect(sent.map((b) => b.input.length)).toEqual([1, 4, 4, 2]);
    expect(sent.every((b) => b.model === 'mock-embed')).toBe(true);
    expect(e.spec()).toEqual({ kind: 'openai', id: 'openai:mock-embed', dimension: 16, settings: { model: 'mock-embed' } });
  });

  it('turns server errors into ProviderError (an infrastructure error, not a verdict)', async () => {
    const e = await createOpenAIEmbedder({ baseURL: mock.baseURL, model: 'mock-embed', dimension: 16 });
    const err = await e.embed(['FAIL']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe('server');
  });

  it('rejects rows of the wrong dimension', async () => {
    const e = await createOpenAIEmbedder({ baseURL: mock.baseURL, model: 'mock-embed', dimension: 8 });
    await expect(e.embed(['abc'])).rejects.toThrow(/dimension 16, expected 8/);
  });
});
