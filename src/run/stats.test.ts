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
