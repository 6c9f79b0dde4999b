import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../core/trajectory.js';
import { turnReplies } from '../core/trajectory.js';
import { UsageError } from '../errors.js';
import { experimentFromDocument } from './load.js';

/** `perTurn: true`: a rule on every reply of a conversation, not only its final answer. */

const conversation: Trajectory = {
  turns: 3,
  ended: 'final',
  steps: [
    { messages: [{ role: 'user', content: 'Where is A1?' }], toolCalls: [{ name: 'lookup_order', arguments: { orderId: 'A1' }, result: 'shipped' }] },
    { text: 'It shipped, sorry sorry sorry.', toolCalls: [] },
    { messages: [{ role: 'user', content: 'Thanks' }], text: 'You are welcome.', toolCalls: [] },
    { messages: [{ role: 'user', content: 'Bye' }], text: 'Bye!', toolCalls: [] },
  ],
};

const experiment = (perTurn?: boolean, check: Record<string, unknown> = { type: 'max-count', pattern: 'sorry', max: 1 }) =>
  experimentFromDocument(
    {
      system: { simulated: { outputs: ['x'] } },
      inputs: ['a'],
      validators: [{ name: 'no apology loop', check, minSuccess: 0.9, ...(perTurn !== undefined ? { perTurn } : {}) }],
    },
    { file: 'c.yaml', configPath: 'c.yaml', baseDir: '.' },
  );

describe('perTurn', () => {
  it("turnReplies: each turn's reply, the turns started by a user's message", () => {
    expect(turnReplies(conversation)).toEqual(['It shipped, sorry sorry sorry.', 'You are welcome.', 'Bye!']);
    // A task without turns: its last step's text; a turn cut while calling tools has no reply.
    expect(turnReplies({ steps: [{ toolCalls: [], text: 'done' }] })).toEqual(['done']);
    expect(turnReplies({ steps: [{ toolCalls: [{ name: 't', arguments: {} }] }] })).toEqual([]);
  });

  it('a text check with perTurn fails a conversation whose middle reply breaks it; without, only the final answer counts', async () => {
    const every = await experiment(true);
    const last = await experiment();
    try {
      expect(await every.validators[0].predicate('Bye!', 'a', conversation)).toBe(false);
      expect(await last.validators[0].predicate('Bye!', 'a', conversation)).toBe(true);
      expect(every.validators[0].source).toMatch(/in every turn's reply$/);
      // A text answer (no steps) is checked as it is.
      expect(await every.validators[0].predicate('sorry sorry', 'a')).toBe(false);
      expect(await every.validators[0].predicate('fine', 'a')).toBe(true);
    } finally {
      every.dispose();
      last.dispose();
    }
  });

  it('perTurn must be a boolean, named by its field', async () => {
    await expect(experiment('yes' as unknown as boolean)).rejects.toSatisfy(
      (e: Error) => UsageError.isInstance(e) && e.message.includes('validators[0].perTurn: expected true or false'),
    );
  });
});
