import { describe, expect, it } from 'vitest';
import { agentResult, FakeGenerateTextResult, FakeStepResult } from './testing/ai-sdk-result.js';
import { toolCallsOf } from './trajectory.js';
import { agentAnswer } from './trajectory-from.js';
import { limitTrajectory, renderTrajectory, trajectoryLine } from './trajectory-text.js';

describe('agentAnswer: what a function system returns, as the runner reads it', () => {
  it('a string is a text answer with no trajectory', () => {
    expect(agentAnswer('hello')).toEqual({ text: 'hello' });
  });

  it("reads the AI SDK's generateText result through its getters: steps, calls, results, errors, tokens summed", () => {
    const r = agentResult(
      [
        { name: 'lookup_order', input: { orderId: 'A1' }, output: { status: 'shipped' } },
        { name: 'refund', input: { orderId: 'A1' }, error: new Error('refunds are closed') },
      ],
      'Your order shipped.',
    );
    const a = agentAnswer(r);
    if ('problem' in a) throw new Error(a.problem);
    expect(a.text).toBe('Your order shipped.');
    expect(a.trajectory!.steps).toHaveLength(3);
    expect(a.trajectory!.ended).toBe('final');
    expect(toolCallsOf(a.trajectory)).toEqual([
      { id: expect.any(String), name: 'lookup_order', arguments: { orderId: 'A1' }, result: { status: 'shipped' } },
      { id: expect.any(String), name: 'refund', arguments: { orderId: 'A1' }, error: 'refunds are closed' },
    ]);
    expect(a.trajectory!.steps[0].finishReason).toBe('tool-calls');
    expect(a.usage).toEqual({ promptTokens: 30, completionTokens: 15 });
  });

  it('a last step still asking for tools ended by the step limit; AI SDK v4 names (args, result, promptTokens) read too', () => {
    const v4 = {
      text: '',
      steps: [
        {
          text: '',
          toolCalls: [{ toolCallId: 'x', toolName: 'search', args: { q: 'a' } }],
          toolResults: [{ toolCallId: 'x', toolName: 'search', args: { q: 'a' }, result: ['hit'] }],
          finishReason: 'tool-calls',
          usage: { promptTokens: 7, completionTokens: 2 },
        },
      ],
    };
    const a = agentAnswer(v4);
    if ('problem' in a) throw new Error(a.problem);
    expect(a.trajectory!.ended).toBe('max-steps');
    expect(toolCallsOf(a.trajectory)).toEqual([{ id: 'x', name: 'search', arguments: { q: 'a' }, result: ['hit'] }]);
    expect(a.usage).toEqual({ promptTokens: 7, completionTokens: 2 });
  });

  it('an invalid call (an undeclared tool, arguments that are not JSON) is recorded on its step, never a crash', () => {
    const r = new FakeGenerateTextResult([
      new FakeStepResult(
        [
          {
            type: 'tool-call',
            toolCallId: 'i1',
            toolName: 'drop_tables',
            input: '{oops',
            dynamic: true,
            invalid: true,
            error: new Error('no such tool: drop_tables'),
          },
        ],
        'tool-calls',
      ),
      new FakeStepResult([{ type: 'text', text: 'done' }], 'stop'),
    ]);
    const a = agentAnswer(r);
    if ('problem' in a) throw new Error(a.problem);
    expect(toolCallsOf(a.trajectory)).toEqual([
      { id: 'i1', name: 'drop_tables', arguments: undefined, argumentsText: '{oops', error: 'no such tool: drop_tables' },
    ]);
  });

  it("a plain { output, steps } in assay's own words, with declared tools and cost", () => {
    const a = agentAnswer({
      output: 'ok',
      steps: [
        {
          toolCalls: [{ name: 'lookup', arguments: { id: 1 }, result: 'found', durationMs: 4 }],
          costUsd: 0.25,
          usage: { promptTokens: 3, completionTokens: 1 },
        },
      ],
      tools: [{ name: 'lookup', parameters: { type: 'object' } }],
    });
    if ('problem' in a) throw new Error(a.problem);
    expect(a).toMatchObject({ text: 'ok', costUsd: 0.25, usage: { promptTokens: 3, completionTokens: 1 } });
    expect(a.trajectory).toEqual({
      steps: [
        {
          toolCalls: [{ name: 'lookup', arguments: { id: 1 }, result: 'found', durationMs: 4 }],
          costUsd: 0.25,
          usage: { promptTokens: 3, completionTokens: 1 },
        },
      ],
      tools: [{ name: 'lookup', parameters: { type: 'object' } }],
      ended: 'final',
    });
  });

  it("reads the AI SDK's tool set as declarations (a JSON Schema given with jsonSchema(); a zod schema is left out) and steps' messages", () => {
    const a = agentAnswer({
      text: 'ok',
      steps: [
        {
          text: '',
          toolCalls: [],
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
            { role: 'robot', content: 'x' },
          ],
        },
      ],
      tools: {
        refund: { description: 'Refund an order', inputSchema: { jsonSchema: { type: 'object', required: ['orderId'] } } },
        lookup: { inputSchema: { _zod: {}, parse() {} } },
      },
    });
    if ('problem' in a) throw new Error(a.problem);
    expect(a.trajectory!.tools).toEqual([
      { name: 'refund', description: 'Refund an order', parameters: { type: 'object', required: ['orderId'] } },
      { name: 'lookup' },
    ]);
    expect(a.trajectory!.steps[0].messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it("an assay system's own answer ({ text, trajectory, usage, costUsd }) is read as it is", () => {
    const trajectory = {
      steps: [
        { toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { orderId: 'A1' }, result: 'shipped' }], usage: { promptTokens: 5, completionTokens: 2 } },
      ],
      ended: 'final' as const,
      tools: [{ name: 'lookup_order', parameters: { type: 'object' } }],
    };
    expect(agentAnswer({ text: 'It shipped.', trajectory, latencyMs: 3, costUsd: 0.5 })).toEqual({
      text: 'It shipped.',
      trajectory,
      usage: { promptTokens: 5, completionTokens: 2 },
      costUsd: 0.5,
    });
    // A `trajectory` that is not assay's (no steps with toolCalls) is not taken for one.
    expect(agentAnswer({ text: 'x', trajectory: { steps: [{}] } })).toEqual({ text: 'x' });
  });

  it('says what it cannot read: no text, steps that are not a list, a call without a name', () => {
    expect(agentAnswer({ steps: [] })).toEqual({ problem: expect.stringMatching(/without a string text or output/) });
    expect(agentAnswer({ output: 'x', steps: 'many' })).toEqual({ problem: 'steps: expected a list of steps, found string' });
    expect(agentAnswer({ output: 'x', steps: [{ toolCalls: [{ arguments: {} }] }] })).toEqual({
      problem: expect.stringMatching(/^steps\[0\]\.toolCalls\[0\]: a tool call has no name/),
    });
    expect(agentAnswer(42)).toEqual({ problem: expect.stringMatching(/found number$/) });
  });
});

describe('trajectory text: stored whole up to a limit, shown short', () => {
  const big = {
    steps: [
      {
        toolCalls: [
          { name: 'fetch', arguments: { url: 'u' }, result: 'x'.repeat(50) },
          { name: 'fetch', arguments: {}, result: 'y' },
        ],
      },
    ],
  };

  it('cuts a result past the limit, marks it, and leaves a trajectory that fits as it is', () => {
    const cut = limitTrajectory(big, 1_000 + 10);
    expect(cut).toBe(big);
    const small = limitTrajectory({ steps: [{ toolCalls: [{ name: 'fetch', arguments: {}, result: 'z'.repeat(5000) }] }] }, 2000);
    expect(small.steps[0].toolCalls[0]).toMatchObject({ truncated: true });
    expect((small.steps[0].toolCalls[0].result as string).length).toBe(2000);
  });

  it('renders each step and call on a line, results cut for the judge, the whole bounded', () => {
    const text = renderTrajectory({ ...big, ended: 'max-steps' }, 10);
    expect(text).toBe(`step 1:\n  call fetch({"url":"u"}) → xxxxxxxxx…\n  call fetch({}) → y\n(the step limit ended it before a final answer)`);
    expect(renderTrajectory(big, 10, 30)).toMatch(/^step 1:\n… 2 more line\(s\) left out$/);
    expect(trajectoryLine({ ...big, ended: 'max-steps' })).toBe('1 step, 2 tool calls (fetch ×2), cut by the step limit');
  });
});
