/**
 * A `generateText` result shaped as the AI SDK (v5/v6) gives it: classes whose `text`, `toolCalls` and
 * `toolResults` are getters over each step's `content` parts (tool-call, tool-result, tool-error, text), usage
 * as `{ inputTokens, outputTokens }`. What tests hand to function systems, as a user's agent would return it.
 */

export type Part =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; dynamic?: boolean; invalid?: boolean; error?: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; input: unknown; output: unknown }
  | { type: 'tool-error'; toolCallId: string; toolName: string; input: unknown; error: unknown };

export class FakeStepResult {
  constructor(
    readonly content: Part[],
    readonly finishReason: string,
    readonly usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  ) {}
  get text(): string {
    return this.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  }
  get toolCalls() {
    return this.content.filter((p) => p.type === 'tool-call');
  }
  get toolResults() {
    return this.content.filter((p) => p.type === 'tool-result');
  }
}

export class FakeGenerateTextResult {
  constructor(readonly steps: FakeStepResult[]) {}
  /** The last step's, as the AI SDK's. */
  get text(): string {
    return this.steps[this.steps.length - 1]?.text ?? '';
  }
  get toolCalls() {
    return this.steps[this.steps.length - 1]?.toolCalls ?? [];
  }
  get toolResults() {
    return this.steps[this.steps.length - 1]?.toolResults ?? [];
  }
  get finishReason() {
    return this.steps[this.steps.length - 1]?.finishReason;
  }
  get totalUsage() {
    const sum = (k: 'inputTokens' | 'outputTokens') => this.steps.reduce((a, s) => a + s.usage[k], 0);
    return { inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens') };
  }
}

let ids = 0;

/** An agent's result: each call (name, input, output or error) in a step of its own, then the final text. */
export function agentResult(calls: { name: string; input: unknown; output?: unknown; error?: unknown }[], text: string): FakeGenerateTextResult {
  const steps = calls.map((c) => {
    const toolCallId = `call_${++ids}`;
    const done: Part =
      c.error !== undefined
        ? { type: 'tool-error', toolCallId, toolName: c.name, input: c.input, error: c.error }
        : { type: 'tool-result', toolCallId, toolName: c.name, input: c.input, output: c.output ?? null };
    return new FakeStepResult([{ type: 'tool-call', toolCallId, toolName: c.name, input: c.input }, done], 'tool-calls');
  });
  return new FakeGenerateTextResult([...steps, new FakeStepResult([{ type: 'text', text }], 'stop')]);
}
