import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoEmbedding } from '../mock/server.js';
import type { EmbedHandler, MockReply, MockServer } from '../mock/types.js';
import type { EmbeddingModel } from './embedding-model.js';
import { ProviderError } from './types.js';

/**
 * The contract every EmbeddingModel adapter passes, against a real local server speaking its provider's
 * wire format: one vector per text in input order, errors mapped to their ProviderError kinds, no retries
 * by the client, the signal honoured.
 */
export interface EmbeddingContractFixture {
  start(embeddings: EmbedHandler): Promise<MockServer>;
  make(server: MockServer): EmbeddingModel;
  makeUnreachable(): EmbeddingModel;
}

const DIM = 8;

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(ProviderError.isInstance(err), `expected a ProviderError, got ${String(err)}`).toBe(true);
    return err as ProviderError;
  }
  throw new Error('expected the call to fail');
}

export function embeddingModelContract(name: string, fixture: EmbeddingContractFixture): void {
  describe(`EmbeddingModel contract: ${name}`, () => {
    let server: MockServer;
    let model: EmbeddingModel;
    const queue: (MockReply | number[][])[] = [];

    beforeAll(async () => {
      server = await fixture.start((view) => queue.shift() ?? view.input.map((t) => pseudoEmbedding(t, DIM)));
      model = fixture.make(server);
    });
    afterAll(() => server.close());

    it('returns one vector per text, in input order', async () => {
      const texts = ['alpha', 'beta', 'gamma'];
      const r = await model.embed(texts);
      expect(r.embeddings).toHaveLength(3);
      r.embeddings.forEach((v, n) => v.forEach((x, d) => expect(x).toBeCloseTo(pseudoEmbedding(texts[n], DIM)[d], 6)));
      expect(model.maxBatchSize).toBeGreaterThan(0);
      expect(model.id).toBe(`${model.provider}:${model.modelId}`);
    });

    it('maps 429 (with Retry-After), 5xx, 4xx and unreadable answers to their kinds, without retrying', async () => {
      const before = server.requests.length;
      queue.push({ status: 429, retryAfterSeconds: 3 });
      let e = await failure(model.embed(['x']));
      expect([e.kind, e.retryAfterMs, e.retryable]).toEqual(['rate_limit', 3000, true]);
      queue.push({ status: 500 });
      e = await failure(model.embed(['x']));
      expect([e.kind, e.retryable]).toEqual(['server', true]);
      queue.push({ status: 400 });
      e = await failure(model.embed(['x']));
      expect([e.kind, e.retryable]).toEqual(['client', false]);
      queue.push({ garbage: 'not json' });
      expect((await failure(model.embed(['x']))).kind).toBe('invalid_response');
      queue.push([[1, 2, 3]]);
      expect((await failure(model.embed(['x', 'y']))).kind).toBe('invalid_response');
      expect(server.requests.length - before).toBe(5);
    });

    it('fails as connection when nothing listens, and honours aborts and timeouts', async () => {
      expect((await failure(fixture.makeUnreachable().embed(['x']))).kind).toBe('connection');
      const c = new AbortController();
      c.abort();
      expect((await failure(model.embed(['x'], { signal: c.signal }))).kind).toBe('aborted');
      queue.push({ hang: true });
      expect((await failure(model.embed(['x'], { signal: AbortSignal.timeout(100) }))).kind).toBe('timeout');
    });
  });
}
