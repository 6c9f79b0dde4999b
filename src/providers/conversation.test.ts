import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTrajectory } from '../core/trajectory-text.js';
import { toolCallsOf } from '../core/trajectory.js';
import { startMock } from '../mock/index.js';
import { mockResponder, type MockRule } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import { STOP_MARKER } from './conversation.js';
import { createSystem } from './factory.js';
import type { SystemUnderTest } from './types.js';

/** Conversations against `assay mock`: the agent's model and the simulated user's, told apart by model name. */

const RULES: MockRule[] = [
  // The simulated user: satisfied once a refund is promised, stubborn otherwise; one that never gives up.
  { model: 'user-sim', match: 'refund is on its way', reply: STOP_MARKER },
  { model: 'user-sim', reply: 'I want a refund for order A2.' },
  { model: 'stubborn', reply: 'That does not help me.' },
  // The agent; "loop" makes it call the tool after every result.
  { model: 'agent', match: 'loop', afterTool: '*', call: { name: 'lookup_order', arguments: { orderId: 'A1' } } },
  { model: 'agent', afterTool: 'lookup_order', reply: 'Order status: {{result}}.' },
  { model: 'agent', match: 'refund', reply: 'Your refund is on its way.' },
  { model: 'agent', regex: 'order (A\\d+)', call: { name: 'lookup_order', arguments: { orderId: '{{1}}' } } },
  { model: 'agent', match: 'loop', call: { name: 'lookup_order', arguments: { orderId: 'A1' } } },
  { model: 'agent', reply: 'How can I help?' },
];

let server: MockServer;
beforeAll(async () => {
  server = await startMock('openai', { chat: mockResponder({ rules: RULES }) });
});
afterAll(() => server.close());

const LOOKUP = { name: 'lookup_order', parameters: { type: 'object', properties: { orderId: { type: 'string' } } }, result: 'shipped' };
const system = (conversation: Record<string, unknown>, more: Record<string, unknown> = {}): SystemUnderTest =>
  createSystem({ openai: { model: 'agent', baseURL: server.baseURL, tools: [LOOKUP], conversation, ...more } }, { baseDir: '.', env: {} });
const userModel = (model: string) => ({ openai: { model, baseURL: server.baseURL } });
const call = (s: SystemUnderTest, input: Parameters<SystemUnderTest['generate']>[0]) =>
  s.generate(input, { signal: new AbortController().signal, sample: 0, inputIndex: 0 });

describe('conversations', () => {
  it("scripted: the input's turns in order, each answered by the agent (with its tools); one sample, its turns on the steps", async () => {
    const g = await call(system({}), { turns: ['Where is order A1?', 'Thanks.'] });
    const t = g.trajectory!;
    expect(t).toMatchObject({ turns: 2, ended: 'final' });
    expect(t.steps.map((s) => s.messages?.[0]?.content)).toEqual(['Where is order A1?', undefined, 'Thanks.']);
    expect(toolCallsOf(t)).toMatchObject([{ name: 'lookup_order', arguments: { orderId: 'A1' }, result: 'shipped' }]);
    expect(t.steps[1].text).toBe('Order status: shipped.');
    expect(g.text).toBe('How can I help?');
    // Every turn is sent with the whole conversation before it: the last request carries both turns and the tool's result.
    const last = server.requests.at(-1)!.body as { messages: { role: string }[] };
    expect(last.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('a simulated user: the input opens, the user model answers each reply until it writes the stop marker', async () => {
    const g = await call(system({ user: { model: userModel('user-sim'), persona: 'A customer in a hurry', goal: 'A refund for {{order}}' } }), {
      text: 'Hello there.',
      order: 'A2',
    });
    const t = g.trajectory!;
    expect(t).toMatchObject({ turns: 2, ended: 'final' });
    expect(t.steps.flatMap((s) => s.messages ?? []).map((m) => m.content)).toEqual(['{"text":"Hello there.","order":"A2"}', 'I want a refund for order A2.']);
    expect(g.text).toBe('Your refund is on its way.');
    // The simulated user's prompt: its persona and goal (templated with the input), the conversation with roles turned round.
    const sim = server.requests.filter((r) => (r.body as { model: string }).model === 'user-sim').at(-1)!.body as {
      messages: { role: string; content: string }[];
    };
    expect(sim.messages[0].content).toContain('Persona: A customer in a hurry\nYour goal: A refund for A2');
    expect(sim.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('a user that never meets its stop condition: the conversation ends at maxTurns as max-turns, said plainly', async () => {
    const g = await call(system({ maxTurns: 3, user: { model: userModel('stubborn'), persona: 'p', goal: 'g' } }), 'Hi');
    expect(g.trajectory).toMatchObject({ turns: 3, ended: 'max-turns' });
    expect(g.text).toBe('How can I help?');
    expect(renderTrajectory(g.trajectory!)).toContain('(the turn limit ended the conversation before its stop condition)');
  });

  it("stopWhen ends it at the agent's first reply that contains the text", async () => {
    const g = await call(system({ stopWhen: 'REFUND IS' }), { turns: ['I want a refund', 'Are you sure?', 'Bye'] });
    expect(g.trajectory).toMatchObject({ turns: 1, ended: 'final' });
  });

  it('a turn cut by the step limit ends the conversation as max-steps', async () => {
    const g = await call(system({}, { maxSteps: 2 }), { turns: ['loop', 'next'] });
    expect(g.trajectory).toMatchObject({ turns: 1, ended: 'max-steps' });
    expect(g.text).toBe('');
  });

  it('a conversation without tools is a conversation too', async () => {
    const s = createSystem({ openai: { model: 'agent', baseURL: server.baseURL, conversation: { maxTurns: 2 } } }, { baseDir: '.', env: {} });
    const g = await call(s, { turns: ['a', 'b', 'c'] });
    expect(g.trajectory).toMatchObject({ turns: 2, ended: 'max-turns' });
    expect(g.trajectory!.tools).toBeUndefined();
  });

  it('turns that are not a list of strings: a client error of that sample', async () => {
    await expect(call(system({}), { turns: ['a', 2] })).rejects.toMatchObject({ kind: 'client', message: expect.stringContaining('"turns" must be') });
  });

  it('config errors name the field', () => {
    const bad = (conversation: unknown) => () =>
      createSystem({ openai: { model: 'agent', baseURL: server.baseURL, conversation } }, { baseDir: '.', env: {}, file: 'c.yaml' });
    expect(bad({ maxTurns: 0 })).toThrow('c.yaml: system.openai.conversation.maxTurns: expected a whole number of turns from 1 to 100, found 0');
    expect(bad({ user: { persona: 'p', goal: 'g' } })).toThrow('system.openai.conversation.user.model: expected a provider object');
    expect(bad({ user: { model: { nope: {} }, persona: 'p', goal: 'g' } })).toThrow('system.openai.conversation.user.model: expected exactly one of openai');
    expect(bad({ turns: ['a'] })).toThrow('system.openai.conversation.turns: unknown key');
  });
});
