import { describe, expect, it } from 'vitest';
import type { SystemCallContext } from './index.js';
import { describeReliability } from './index.js';

// The input's type is inferred from `inputs` (issue 26, item 7): a system function given strings receives a
// string, one given objects receives those objects. `npm run typecheck` checks these lines (never run here).
function typed(): void {
  describeReliability('strings', {
    inputs: ['Where is my order?', 'I want a refund'],
    system: async (question) => question.toUpperCase(),
  });
  describeReliability('objects', {
    inputs: [{ topic: 'refunds', tone: 'angry' }],
    system: async (input, ctx: SystemCallContext) => `${input.topic} ${input.tone} ${ctx.sample}`,
  });
  describeReliability('a function declared apart', { inputs: ['a'], system: async (q: string) => q });
  describeReliability('strings are not objects', {
    inputs: ['a'],
    // @ts-expect-error a string input has no .topic
    system: async (question) => question.topic,
  });
}

describe('describeReliability types', () => {
  it('infers the input type from inputs (checked by the typecheck)', () => {
    expect(typeof typed).toBe('function');
  });
});
