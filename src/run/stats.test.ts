import { describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { SampleRecord } from '../store/types.js';
import { computeStats } from './stats.js';

const ok = (latencyMs: number, outcomes: OutcomeCode[] = [Outcome.PASS, Outcome.FAIL], errors?: (string | undefined)[]): SampleRecord => ({
  i: 0,
  j: 0,
  outcomes,
  latencyMs,
  attempts: 1,
  output: 'x',
  ...(errors ? { errors } : {}),
});
const failed = (message: string, attempts: number): SampleRecord => ({
  i: 0,
  j: 0,
  outcomes: [Outcome.ERROR, Outcome.ERROR],
  errors: [message, message],
  generationError: message,
  latencyMs: 5000,
  attempts,
});

describe('computeStats', () => {
  it('counts generation and validator errors apart, and keeps latency of answered samples only', () => {
    const s = computeStats([ok(10), ok(30, [Outcome.ERROR, Outcome.PASS], ['validator v: boom', undefined]), failed('HTTP 503', 5), ok(20)]);
    expect([s.samples, s.generationErrors, s.validatorErrors, s.attempts, s.retries]).toEqual([4, 1, 1, 8, 4]);
    expect(s.latencyMs).toEqual({ mean: 20, p50: 20, p95: 30, max: 30 });
  });

  it('names the most frequent error messages, most frequent first, one per failed generation', () => {
    const s = computeStats([
      failed('HTTP 503', 5),
      ok(1, [Outcome.ERROR, Outcome.ERROR], ['timed out', 'timed out']),
      failed('HTTP 503', 5),
      failed('HTTP 400', 1),
    ]);
    expect(s.topErrors).toEqual([
      { message: 'HTTP 503', count: 2, variants: 1 },
      { message: 'timed out', count: 2, variants: 1 },
      { message: 'HTTP 400', count: 1, variants: 1 },
    ]);
    expect(s.distinctErrors).toBe(3);
    expect(computeStats([ok(1), ok(2)]).topErrors).toEqual([]);
  });

  it('lists the 20 largest groups, counts them all, and stays bounded when every message differs', () => {
    const s = computeStats(Array.from({ length: 1000 }, (_, n) => failed(`request ${n} failed`, 1)));
    expect(s.topErrors.length).toBe(20);
    expect(s.distinctErrors).toBe(1000);
    expect(s.generationErrors).toBe(1000);
    // Messages that differ only in an id are one group.
    const ids = computeStats(Array.from({ length: 50 }, (_, n) => failed(`request req_${(1e9 + n).toString(36)}x1 failed`, 1)));
    expect(ids.topErrors).toEqual([{ message: 'request req_gjdgxsx1 failed', count: 50, variants: 50 }]);
  });
});

describe('computeStats: conversations', () => {
  const turn = (user: string, calls = 0) => ({
    messages: [{ role: 'user' as const, content: user }],
    toolCalls: Array.from({ length: calls }, () => ({ name: 'lookup', arguments: {} })),
    text: 'ok',
  });
  const conv = (turns: number, ended: 'final' | 'max-turns'): SampleRecord => ({
    ...ok(10),
    trajectory: { steps: Array.from({ length: turns }, (_, n) => turn(`u${n}`)), turns, ended },
  });

  it('counts conversations, their turns and those the turn limit ended apart from the step limit, in the agent line too', async () => {
    const task: SampleRecord = { ...ok(10), trajectory: { steps: [turn('q', 1), { toolCalls: [] }], ended: 'max-steps' } };
    const s = computeStats([conv(2, 'final'), conv(4, 'max-turns'), task]);
    expect(s.agent).toMatchObject({ trajectories: 3, cutByLimit: 2, turns: { conversations: 2, mean: 3, max: 4, cutByLimit: 1 } });
    const { agentLine } = await import('../report/trajectory.js');
    expect(agentLine(s.agent!)).toBe(
      'agent: 3 runs with steps · 2 conversations, turns mean 3.0, max 4 · steps mean 2.7, max 4 · 1 tool call (lookup 1) · 1 cut by the step limit · 1 cut by the turn limit',
    );
    // Without conversations the line and the stats are as they were.
    expect(computeStats([task]).agent!.turns).toBeUndefined();
  });
});
