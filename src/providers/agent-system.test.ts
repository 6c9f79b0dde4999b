import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockProvider } from '../mock/index.js';
import { mockResponder, type MockRule } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import { toolCallsOf } from '../core/trajectory.js';
import { UsageError } from '../errors.js';
import { createSystem } from './factory.js';
import type { SystemUnderTest } from './types.js';

/**
 * The tool loop through every provider's own tool-calling wire format, against `assay mock` speaking it: the
 * mock calls a tool by a rule, reads the result the adapter sends back, and answers with it.
 */

const PROVIDERS: MockProvider[] = ['openai', 'anthropic', 'google', 'bedrock', 'azure', 'mistral', 'ollama'];

const RULES: MockRule[] = [
  // A model that never stops calling: the same call after every result.
  { match: 'loop', call: { name: 'lookup_order', arguments: { orderId: 'L1' } } },
  { match: 'loop', afterTool: 'lookup_order', call: { name: 'lookup_order', arguments: { orderId: 'L1' } } },
  {
    match: 'both',
    call: [
      { name: 'lookup_order', arguments: { orderId: 'A1' } },
      { name: 'lookup_order', arguments: { orderId: 'A2' } },
    ],
  },
  { afterTool: 'lookup_order', result: 'down', reply: 'Sorry, I could not look that up: {{result}}' },
  { afterTool: 'lookup_order', reply: 'Your order: {{result}}' },
  { regex: 'order (A\\d+)', call: { name: 'lookup_order', arguments: { orderId: '{{1}}' } } },
  { match: 'undeclared', call: { name: 'delete_account', arguments: {} } },
  { match: 'bad args', call: { name: 'lookup_order', arguments: { orderId: 7 } } },
  { afterTool: '*', reply: 'done after {{result}}' },
];

const LOOKUP = {
  name: 'lookup_order',
  description: 'Look up an order by id',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};

const signal = () => new AbortController().signal;
const call = (s: SystemUnderTest, input: string) => s.generate(input, { signal: signal(), sample: 0, inputIndex: 0 });

describe.each(PROVIDERS)('the tool loop through %s', (provider) => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMock(provider, { chat: mockResponder({ rules: RULES }) });
  });
  afterAll(() => server.close());

  const system = (tool: Record<string, unknown>, more: Record<string, unknown> = {}) =>
    createSystem({ [provider]: { model: 'mock', baseURL: server.baseURL, tools: [{ ...LOOKUP, ...tool }], ...more } }, { baseDir: '.', env: {} });

  it('calls the tool the rule names, sends its result back in the wire format, and answers from it', async () => {
    const s = system({ results: [{ when: { orderId: 'A1' }, result: { status: 'shipped' } }, { result: { status: 'unknown' } }] });
    const g = await call(s, 'Where is my order A1?');
    expect(g.text).toBe('Your order: {"status":"shipped"}');
    const t = g.trajectory!;
    expect(t.ended).toBe('final');
    expect(t.steps).toHaveLength(2);
    expect(toolCallsOf(t)).toMatchObject([{ name: 'lookup_order', arguments: { orderId: 'A1' }, result: { status: 'shipped' } }]);
    expect(toolCallsOf(t)[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(t.tools).toEqual([LOOKUP]);
    // Tokens summed over both steps (the mock counts about 4 characters a token).
    expect(g.usage!.promptTokens).toBe(t.steps.reduce((a, st) => a + st.usage!.promptTokens, 0));
    expect(g.usage!.completionTokens).toBeGreaterThan(0);
  });

  it('parallel calls: both run, both results go back (in one message where the format wants it), then the answer', async () => {
    const s = system({ results: [{ when: { orderId: 'A1' }, result: 'first' }, { result: 'second' }] });
    const g = await call(s, 'both orders please');
    expect(g.trajectory!.steps[0].toolCalls).toMatchObject([
      { name: 'lookup_order', arguments: { orderId: 'A1' }, result: 'first' },
      { name: 'lookup_order', arguments: { orderId: 'A2' }, result: 'second' },
    ]);
    expect(g.text).toBe('Your order: second');
  });

  it('a tool that fails: its error is on the step and the model reads it', async () => {
    const g = await call(system({ error: 'the order service is down' }), 'order A2 please');
    expect(toolCallsOf(g.trajectory)).toMatchObject([{ name: 'lookup_order', error: 'the order service is down' }]);
    expect(g.text).toBe('Sorry, I could not look that up: the order service is down');
  });

  it('a model that keeps calling ends at maxSteps, as max-steps, not an error', async () => {
    const g = await call(system({ result: 'again' }, { maxSteps: 3 }), 'loop');
    expect(g.trajectory!.ended).toBe('max-steps');
    expect(g.trajectory!.steps).toHaveLength(3);
    expect(g.text).toBe('');
  });
});

describe('the tool loop: bad input from the model and faults of tools', () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMock('openai', { chat: mockResponder({ rules: RULES }) });
  });
  afterAll(() => server.close());
  const system = (tool: Record<string, unknown>, more: Record<string, unknown> = {}) =>
    createSystem({ openai: { model: 'mock', baseURL: server.baseURL, tools: [{ ...LOOKUP, ...tool }], ...more } }, { baseDir: '.', env: {} });

  it('an undeclared tool is an error on the call, which the model reads; the run goes on', async () => {
    const g = await call(system({ result: 'x' }), 'undeclared');
    expect(toolCallsOf(g.trajectory)).toMatchObject([{ name: 'delete_account', error: 'the tool "delete_account" is not declared (declared: lookup_order)' }]);
    expect(g.text).toBe('done after the tool "delete_account" is not declared (declared: lookup_order)');
  });

  it("arguments that fail the tool's schema are an error on the call; the tool does not run", async () => {
    let ran = 0;
    const g = await call(system({ execute: () => ++ran }), 'bad args');
    expect(ran).toBe(0);
    expect(toolCallsOf(g.trajectory)[0]).toMatchObject({
      arguments: { orderId: 7 },
      error: "the arguments do not fit the tool's schema: orderId must be string",
    });
  });

  it('a tool that throws: the message is the call error', async () => {
    const g = await call(
      system({
        execute: () => {
          throw new Error('database locked');
        },
      }),
      'order A3',
    );
    expect(toolCallsOf(g.trajectory)[0].error).toBe('database locked');
  });

  it('a tool that hangs (and ignores its signal) is cut at toolTimeoutMs; the loop goes on', async () => {
    let aborted = false;
    const g = await call(
      system(
        { execute: (_a: unknown, { signal: s }: { signal: AbortSignal }) => new Promise(() => s.addEventListener('abort', () => (aborted = true))) },
        { toolTimeoutMs: 50 },
      ),
      'order A4',
    );
    expect(toolCallsOf(g.trajectory)[0].error).toBe('the tool timed out after 50 ms');
    expect(aborted).toBe(true);
    expect(g.trajectory!.ended).toBe('final');
  });

  it('a stub that takes longer than toolTimeoutMs times out too', async () => {
    const g = await call(system({ result: 'late', delayMs: 10_000 }, { toolTimeoutMs: 30 }), 'order A5');
    expect(toolCallsOf(g.trajectory)[0].error).toBe('the tool timed out after 30 ms');
  });

  it('megabytes of result go to the model whole (the store and the judge cut them: core/trajectory-text.ts)', async () => {
    const big = 'x'.repeat(3_000_000);
    const g = await call(system({ execute: () => big }), 'order A6');
    expect(toolCallsOf(g.trajectory)[0].result).toBe(big);
    expect(g.text).toBe(`Your order: ${big}`);
  });

  it('the run stopping mid-tool is an error outcome (aborted), not a tool error', async () => {
    const c = new AbortController();
    const s = system({ execute: () => new Promise(() => setTimeout(() => c.abort(), 5)) });
    await expect(s.generate('order A7', { signal: c.signal, sample: 0, inputIndex: 0 })).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('tools: config errors name the field', () => {
  const errorOf = (options: Record<string, unknown>) => {
    try {
      createSystem({ openai: { model: 'm', baseURL: 'http://127.0.0.1:1/v1', ...options } }, { baseDir: '.', env: {}, file: 'c.yaml' });
    } catch (err) {
      expect(UsageError.isInstance(err)).toBe(true);
      return (err as Error).message;
    }
    throw new Error('no error');
  };

  it.each([
    [
      { tools: [{ name: 'a' }] },
      'c.yaml: system.openai.tools[0]: expected one of execute (a function, in a TypeScript config), result, results or error, found none',
    ],
    [{ tools: [{ name: 'a', result: 1, error: 'x' }] }, 'result and error'],
    [{ tools: [{ name: 'a b', result: 1 }] }, 'system.openai.tools[0].name: expected a tool name of letters, digits, _ and - (at most 64)'],
    [
      {
        tools: [
          { name: 'a', result: 1 },
          { name: 'a', result: 2 },
        ],
      },
      'system.openai.tools[1].name: expected a name no other tool has, found "a", the name of tools[0]',
    ],
    [{ tools: [{ name: 'a', result: 1, parameters: { type: 'nope' } }] }, 'system.openai.tools[0].parameters: expected a JSON Schema that compiles'],
    [{ tools: [{ name: 'a', results: [{ when: { x: 1 } }] }] }, 'system.openai.tools[0].results[0]: expected either result or error, found neither'],
    [{ tools: [{ name: 'a', result: 1 }], maxSteps: 0 }, 'system.openai.maxSteps: expected a whole number of steps ≥ 1'],
    [{ maxSteps: 3 }, 'system.openai.maxSteps: expected only beside tools'],
    [{ tools: [{ name: 'a', result: 1, executes: 1 }] }, 'system.openai.tools[0].executes: unknown key'],
    [{ tools: [] }, 'system.openai.tools: expected at least one tool'],
  ])('%j', (options, message) => {
    expect(errorOf(options)).toContain(message);
  });
});
