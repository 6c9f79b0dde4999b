import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI, type MockReply } from '../mock/openai.js';
import { systemContract } from './contract.case.js';
import { OpenAISystem } from './openai.js';
import { ProviderError } from './types.js';

/** The mock's behaviour is chosen by the model name, so one server serves every fixture. */
function lastUser(body: ChatRequestBody): string {
  const users = body.messages.filter((m) => m.role === 'user');
  return String(users[users.length - 1]?.content ?? '');
}

let mock: MockOpenAI;
let scripted: MockReply[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI({
    chat: (body) => {
      const m = /^(\w+)(?:-(\d+))?$/.exec(body.model) ?? [];
      const delayMs = m[2] ? Number(m[2]) : 0;
      if (m[1] === 'fail') return { status: 500, delayMs };
      if (m[1] === 'scripted') return scripted.shift() ?? { content: 'script exhausted' };
      return { content: `echo: ${lastUser(body)}`, delayMs, usage: { prompt_tokens: 11, completion_tokens: 7 } };
    },
  });
});
afterAll(() => mock.close());

systemContract(
  'openai (mock OpenAI server)',
  ({ delayMs, failing }) =>
    new OpenAISystem({
      baseURL: mock.baseURL,
      model: `${failing ? 'fail' : 'echo'}-${delayMs ?? 0}`,
      template: 'Summarise: {{text}}',
    }),
);

async function failure(reply: MockReply): Promise<ProviderError> {
  scripted = [reply];
  const s = new OpenAISystem({ baseURL: mock.baseURL, model: 'scripted' });
  try {
    await s.generate('hi', { signal: new AbortController().signal, inputIndex: 0, sample: 0 });
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAISystem', () => {
  it('sends model, system prompt, temperature, max_tokens and the templated prompt; returns usage', async () => {
    const s = new OpenAISystem({
      baseURL: mock.baseURL,
      model: 'echo',
      system: 'Be brief.',
      temperature: 0.3,
      maxTokens: 50,
      template: 'Summarise: {{text}} ({{meta.lang}})',
    });
    const before = mock.requests.length;
    const g = await s.generate({ text: 'the news', meta: { lang: 'fr' } }, { signal: new AbortController().signal, inputIndex: 0, sample: 0 });
    expect(g.text).toBe('echo: Summarise: the news (fr)');
    expect(g.usage).toEqual({ promptTokens: 11, completionTokens: 7 });
    const body = mock.requests[before].body as ChatRequestBody;
    expect(body.model).toBe('echo');
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(50);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Summarise: the news (fr)' },
    ]);
    expect(s.id).toBe('openai:echo');
  });

  it('sends a string input as it is, and an object without a template as JSON', async () => {
    const s = new OpenAISystem({ baseURL: mock.baseURL, model: 'echo' });
    const signal = new AbortController().signal;
    expect((await s.generate('{{not a template}}', { signal, inputIndex: 0, sample: 0 })).text).toBe('echo: {{not a template}}');
    expect((await s.generate({ q: 1 }, { signal, inputIndex: 0, sample: 0 })).text).toBe('echo: {"q":1}');
  });

  it('a template field missing from the input is a non-transient client error', async () => {
    const s = new OpenAISystem({ baseURL: mock.baseURL, model: 'echo', template: '{{nope}}' });
    const err = await s.generate({ text: 'x' }, { signal: new AbortController().signal, inputIndex: 0, sample: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe('client');
    expect((err as ProviderError).message).toMatch(/\{\{nope\}\}.*text/);
  });

  it('makes exactly one request per call (the client does not retry)', async () => {
    scripted = [{ status: 503 }, { content: 'second' }];
    const before = mock.requests.length;
    const s = new OpenAISystem({ baseURL: mock.baseURL, model: 'scripted' });
    await expect(s.generate('x', { signal: new AbortController().signal, inputIndex: 0, sample: 0 })).rejects.toBeInstanceOf(ProviderError);
    expect(mock.requests.length - before).toBe(1);
    scripted = [];
  });

  it('429 → rate_limit with Retry-After in seconds', async () => {
    const e = await failure({ status: 429, retryAfterSeconds: 7 });
    expect(e.kind).toBe('rate_limit');
    expect(e.status).toBe(429);
    expect(e.retryAfterMs).toBe(7000);
    expect(e.retryable).toBe(true);
  });

  it('500 → server (transient)', async () => {
    const e = await failure({ status: 500 });
    expect(e.kind).toBe('server');
    expect(e.status).toBe(500);
    expect(e.retryable).toBe(true);
  });

  it('400 → client (not transient)', async () => {
    const e = await failure({ status: 400, body: { error: { message: 'bad model' } } });
    expect(e.kind).toBe('client');
    expect(e.status).toBe(400);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('bad model');
  });

  it('connection reset → connection', async () => {
    const e = await failure({ reset: true });
    expect(e.kind).toBe('connection');
    expect(e.retryable).toBe(true);
  });

  it('connection refused → connection', async () => {
    const s = new OpenAISystem({ baseURL: 'http://127.0.0.1:1/v1', model: 'x' });
    const e = await s.generate('x', { signal: new AbortController().signal, inputIndex: 0, sample: 0 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('connection');
  });

  it('a garbage body → invalid_response', async () => {
    const e = await failure({ garbage: '<html>oops' });
    expect(e.kind).toBe('invalid_response');
    expect(e.retryable).toBe(false);
  });

  it('an answer without content → invalid_response', async () => {
    const e = await failure({ status: 200, body: { id: 'x', object: 'chat.completion', choices: [] } });
    expect(e.kind).toBe('invalid_response');
  });

  it('a hanging server ends with kind timeout when the per-call signal times out', async () => {
    scripted = [{ hang: true }];
    const s = new OpenAISystem({ baseURL: mock.baseURL, model: 'scripted' });
    const e = await s.generate('x', { signal: AbortSignal.timeout(150), inputIndex: 0, sample: 0 }).catch((err: unknown) => err);
    expect((e as ProviderError).kind).toBe('timeout');
  });

  it('sends the API key as a bearer token', async () => {
    const secured = await startMockOpenAI({ apiKey: 'sk-test', chat: () => ({ content: 'ok' }) });
    try {
      const signal = new AbortController().signal;
      const good = new OpenAISystem({ baseURL: secured.baseURL, model: 'm', apiKey: 'sk-test' });
      expect((await good.generate('x', { signal, inputIndex: 0, sample: 0 })).text).toBe('ok');
      const bad = new OpenAISystem({ baseURL: secured.baseURL, model: 'm', apiKey: 'wrong' });
      const e = await bad.generate('x', { signal, inputIndex: 0, sample: 0 }).catch((err: unknown) => err);
      expect((e as ProviderError).kind).toBe('client');
      expect((e as ProviderError).status).toBe(401);
    } finally {
      await secured.close();
    }
  });
});
