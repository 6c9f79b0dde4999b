import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MockChatView, MockReply, MockServer } from '../mock/types.js';
import type { ChatHandler } from '../mock/types.js';
import type { ChatModel, ChatRequest } from './chat-model.js';
import { ProviderError } from './types.js';
import { PROMPTLY_MS, SLOW_MS } from '../testing/time.js';

/**
 * The contract every ChatModel adapter passes (GUIDE: one shared suite per interface), each against a real
 * local HTTP server speaking its provider's documented wire format (src/mock/): text, usage and finish
 * reason; what reaches the wire; structured output; 429 with Retry-After, 5xx, 4xx, malformed bodies,
 * dropped and refused connections, aborts and timeouts, each as its ProviderError kind, and never a retry
 * by the client itself.
 */
export interface ChatContractFixture {
  /** A mock server speaking the provider's wire format, answering with `chat`. */
  start(chat: ChatHandler): Promise<MockServer>;
  /** The adapter under test, configured for that server (model name `contract-model`). */
  make(server: MockServer): ChatModel;
  /** The adapter pointed at a port nothing listens on. */
  makeUnreachable(): ChatModel;
}

export const CONTRACT_MODEL = 'contract-model';

const VERDICT = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['PASS', 'FAIL'] }, reasons: { type: 'array', items: { type: 'string' } } },
  required: ['verdict', 'reasons'],
  additionalProperties: false,
};

const hi: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };
const live = () => new AbortController().signal;

async function failure(p: Promise<unknown>): Promise<{ error: ProviderError; ms: number }> {
  const t0 = performance.now();
  try {
    await p;
  } catch (err) {
    expect(ProviderError.isInstance(err), `expected a ProviderError, got ${String(err)}`).toBe(true);
    return { error: err as ProviderError, ms: performance.now() - t0 };
  }
  throw new Error('expected the call to fail');
}

export function chatModelContract(name: string, fixture: ChatContractFixture): void {
  describe(`ChatModel contract: ${name}`, () => {
    let server: MockServer;
    let model: ChatModel;
    const queue: MockReply[] = [];
    const seen: MockChatView[] = [];
    const next = (...r: MockReply[]) => queue.push(...r);
    // Called with each chat request as it reaches the server, before it is answered: a test that aborts
    // "mid-call" aborts from here, so on a slow machine the abort cannot come before the request has left
    // (it did, with bedrock's signing, and the unanswered `hang` reply then stalled a later test).
    let onArrival: ((view: MockChatView) => void | Promise<void>) | undefined;
    const requestsDuring = async <T>(f: () => Promise<T>) => {
      const before = server.requests.length;
      const value = await f();
      return { value, requests: server.requests.length - before };
    };

    beforeAll(async () => {
      server = await fixture.start(async (view) => {
        seen.push(view);
        await onArrival?.(view);
        const last = view.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
        return queue.shift() ?? { content: `echo: ${last}`, usage: { prompt_tokens: 12, completion_tokens: 3 } };
      });
      model = fixture.make(server);
    });
    beforeEach(async () => {
      // No request of an earlier test still open (one aborted as it reached the server), and no reply it queued
      // but never used: either would answer this test's requests.
      await expect.poll(() => server.inFlight, { timeout: PROMPTLY_MS }).toBe(0);
      queue.length = 0;
      onArrival = undefined;
    });
    afterAll(async () => {
      await model.close?.();
      await server.close();
    });

    it('names its provider and model', () => {
      expect(model.modelId).toBe(CONTRACT_MODEL);
      expect(model.id).toBe(`${model.provider}:${CONTRACT_MODEL}`);
    });

    it('returns the text, the usage and the raw finish reason', async () => {
      const r = await model.generate(hi, { signal: live() });
      expect(r.text).toBe('echo: Say hello.');
      expect(r.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
      expect(typeof r.finishReason).toBe('string');
      expect(r.finishReason!.length).toBeGreaterThan(0);
      expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    });

    it('sends the system prompt, the messages, the temperature and the token limit', async () => {
      seen.length = 0;
      await model.generate(
        {
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Greet me.' },
          ],
          temperature: 0.25,
          maxTokens: 42,
        },
        { signal: live() },
      );
      const v = seen[0];
      expect(v.model).toBe(CONTRACT_MODEL);
      expect(v.system).toBe('Be brief.');
      expect(v.messages.at(-1)).toEqual({ role: 'user', content: 'Greet me.' });
      expect(v.temperature).toBe(0.25);
      expect(v.maxTokens).toBe(42);
    });

    it('asks for JSON with the schema and returns the JSON as text', async () => {
      if (!model.capabilities.jsonSchema) return;
      seen.length = 0;
      next({ content: '{"verdict":"FAIL","reasons":["Too curt."]}' });
      const r = await model.generate({ ...hi, responseFormat: { type: 'json', name: 'verdict', schema: VERDICT } }, { signal: live() });
      expect(seen[0].json).toBe(true);
      expect(JSON.stringify(seen[0].schema)).toContain('verdict');
      expect(JSON.parse(r.text)).toEqual({ verdict: 'FAIL', reasons: ['Too curt.'] });
    });

    it('forces a tool and returns its call', async () => {
      if (!model.capabilities.tools) return;
      seen.length = 0;
      next({ content: '', toolCall: { name: 'submit_verdict', arguments: '{"verdict":"PASS","reasons":[]}' } });
      const r = await model.generate(
        { ...hi, tools: [{ name: 'submit_verdict', description: 'Submit the verdict.', parameters: VERDICT }], toolChoice: { tool: 'submit_verdict' } },
        { signal: live() },
      );
      expect(seen[0].tools).toContain('submit_verdict');
      expect(seen[0].forcedTool).toBe('submit_verdict');
      expect(r.toolCalls?.[0]?.name).toBe('submit_verdict');
      expect(JSON.parse(r.toolCalls![0].arguments)).toEqual({ verdict: 'PASS', reasons: [] });
    });

    it('429 with Retry-After is a retryable rate_limit carrying the wait, and the client does not retry it', async () => {
      next({ status: 429, retryAfterSeconds: 2 });
      const { value, requests } = await requestsDuring(() => failure(model.generate(hi, { signal: live() })));
      expect(value.error.kind).toBe('rate_limit');
      expect(value.error.status).toBe(429);
      expect(value.error.retryAfterMs).toBe(2000);
      expect(value.error.retryable).toBe(true);
      expect(requests).toBe(1);
    });

    it('5xx is a retryable server error, not retried by the client', async () => {
      next({ status: 503 });
      const { value, requests } = await requestsDuring(() => failure(model.generate(hi, { signal: live() })));
      expect([value.error.kind, value.error.status, value.error.retryable]).toEqual(['server', 503, true]);
      expect(requests).toBe(1);
    });

    it('other 4xx are client errors, never retried', async () => {
      for (const status of [400, 401, 404]) {
        next({ status });
        const { error } = await failure(model.generate(hi, { signal: live() }));
        expect([error.kind, error.status, error.retryable]).toEqual(['client', status, false]);
      }
    });

    it('a body that is not JSON, or JSON of the wrong shape, is invalid_response', async () => {
      next({ garbage: '<html>upstream hiccup' });
      let { error } = await failure(model.generate(hi, { signal: live() }));
      expect([error.kind, error.retryable]).toEqual(['invalid_response', false]);
      next({ garbage: '{"unexpected": true}' });
      ({ error } = await failure(model.generate(hi, { signal: live() })));
      expect(error.kind).toBe('invalid_response');
    });

    it('a dropped connection and a refused one are retryable connection errors', async () => {
      next({ reset: true });
      let { error } = await failure(model.generate(hi, { signal: live() }));
      expect([error.kind, error.retryable]).toEqual(['connection', true]);
      const away = fixture.makeUnreachable();
      ({ error } = await failure(away.generate(hi, { signal: live() })));
      expect([error.kind, error.retryable]).toEqual(['connection', true]);
    });

    it('an already-aborted signal fails at once as aborted, sending nothing', async () => {
      const c = new AbortController();
      c.abort();
      const { value, requests } = await requestsDuring(() => failure(model.generate(hi, { signal: c.signal })));
      expect(value.error.kind).toBe('aborted');
      expect(value.error.retryable).toBe(false);
      expect(requests).toBe(0);
    });

    it('stops promptly when aborted mid-call (aborted) or on a per-call timeout (timeout, retryable)', async () => {
      next({ content: 'late', delayMs: SLOW_MS });
      const c = new AbortController();
      onArrival = () => c.abort();
      let r = await failure(model.generate(hi, { signal: c.signal }));
      expect(r.error.kind).toBe('aborted');
      expect(r.ms).toBeLessThan(PROMPTLY_MS);
      // AbortSignal.timeout may fire before a slow client has sent anything; either way it is a timeout.
      queue.length = 0;
      onArrival = undefined;
      next({ hang: true });
      r = await failure(model.generate(hi, { signal: AbortSignal.timeout(100) }));
      expect([r.error.kind, r.error.retryable]).toEqual(['timeout', true]);
      expect(r.ms).toBeLessThan(PROMPTLY_MS);
      // The runner's deadline: an abort whose reason is a timeout ProviderError, while the request is out.
      queue.length = 0;
      next({ hang: true });
      const d = new AbortController();
      onArrival = () => d.abort(new ProviderError('timeout', 'no answer within 100 ms'));
      r = await failure(model.generate(hi, { signal: d.signal }));
      expect(r.error.kind).toBe('timeout');
    });

    // Structural, not timed: the server holds every request until a second one is in flight with it, and
    // counts how many it held at once. A client that sends one call at a time leaves the first held until
    // SLOW_MS passes (then all are answered and the count, 1, fails the test) however fast the machine is.
    it('serves concurrent calls', async () => {
      const n = 8;
      for (let k = 0; k < n; k++) next({ content: `answer ${k}` });
      let held = 0;
      let peak = 0;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const fallback = setTimeout(open, SLOW_MS);
      onArrival = async () => {
        peak = Math.max(peak, ++held);
        if (held >= 2) open();
        await gate;
        held--;
      };
      try {
        const all = await Promise.all(Array.from({ length: n }, () => model.generate(hi, { signal: live() })));
        expect(all.map((r) => r.text).sort()).toEqual(Array.from({ length: n }, (_, k) => `answer ${k}`).sort());
      } finally {
        clearTimeout(fallback);
      }
      expect(peak, 'requests in flight at once').toBeGreaterThanOrEqual(2);
    });
  });
}
