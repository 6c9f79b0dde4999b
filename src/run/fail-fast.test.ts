import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { Validator } from '../core/validator.js';
import { ProviderError, type ProviderErrorKind, type SystemUnderTest } from '../providers/types.js';
import { MemoryStore } from '../store/memory.js';
import type { SampleRecord } from '../store/types.js';
import { DEFAULT_MAX_ERRORS, FailFastRule } from './fail-fast.js';
import { runExperiment, type RunPlan } from './runner.js';
import { argumentErrorOf } from '../testing/errors.js';

const t = new ReliabilityTensor(1, 1, 1);
const failed = (message: string, kind: ProviderErrorKind, attempts = 1): SampleRecord => ({
  i: 0,
  j: 0,
  outcomes: [Outcome.ERROR],
  generationError: `generation failed after ${attempts} attempt(s): ${message}`,
  generationErrorKind: kind,
  latencyMs: 1,
  attempts,
});
const ok: SampleRecord = { i: 0, j: 0, outcomes: [Outcome.PASS], output: 'x', latencyMs: 1, attempts: 1 };

function feed(rule: FailFastRule, samples: SampleRecord[], resumed = false): number | undefined {
  for (const [n, s] of samples.entries()) {
    rule.observe(s, t, resumed);
    if (rule.check()) return n + 1;
  }
  return undefined;
}

describe('fail-fast rule', () => {
  it('stops after maxErrors samples in a row failing the same way, whatever the ids and attempt counts in the messages', () => {
    const msgs = Array.from({ length: 10 }, (_, n) =>
      failed(`http: outputPath x is not in the answer: {"id":"chatcmpl-${(1e9 + n * 977).toString(36)}9"}`, 'invalid_response', 1 + (n % 2)),
    );
    expect(feed(new FailFastRule(3), msgs)).toBe(3);
    expect(feed(new FailFastRule(), msgs)).toBe(DEFAULT_MAX_ERRORS);
    const d = new FailFastRule(2);
    feed(d, [
      failed('openai:m: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)', 'connection', 5),
      failed('openai:m: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)', 'connection', 5),
    ]);
    expect(d.check()).toMatchObject({ rule: 'fail-fast', status: 'interrupted', cancelInFlight: true, exitCode: 3 });
    expect(d.check()!.message).toMatch(
      /^stopped early: 2 samples in a row failed the same way \(connection\): openai:m: ECONNREFUSED \(connect ECONNREFUSED 127\.0\.0\.1:9\)\. Fix the cause/,
    );
  });

  it('a success, another failure, a rate limit or a timeout breaks the streak; resumed samples do not count', () => {
    const e = (m = 'HTTP 401: invalid api key') => failed(m, 'client');
    expect(feed(new FailFastRule(3), [e(), e(), ok, e(), e(), ok, e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), e('HTTP 404: model "x" does not exist'), e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), failed('HTTP 429', 'rate_limit'), e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), failed('no answer within 60000 ms', 'timeout'), e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), e(), e()], true)).toBeUndefined();
    // 401 vs 403 are different failures; a status code is never treated as an id.
    expect(feed(new FailFastRule(2), [e('HTTP 401: no'), e('HTTP 403: no'), e('HTTP 401: no')])).toBeUndefined();
  });

  it('refuses a maxErrors below 1', () => {
    expect(argumentErrorOf(() => new FailFastRule(0)).where).toEqual({ key: 'maxErrors' });
    expect(argumentErrorOf(() => new FailFastRule(1.5)).where).toEqual({ key: 'maxErrors' });
  });
});

const validators: Validator[] = [{ name: 'v', message: '', predicate: () => true, minSuccess: 0.5 }];
const plan: RunPlan = { name: 'ff', inputs: ['a', 'b', 'c', 'd'], samples: 25, validators };

/** Fails every call with a 401 until fixed; counts calls. */
function endpoint(): SystemUnderTest & { calls: number; fixed: boolean } {
  const s = {
    id: 'mock',
    calls: 0,
    fixed: false,
    generate: async () => {
      s.calls++;
      await new Promise((r) => setTimeout(r, 1));
      if (!s.fixed) throw new ProviderError('client', 'mock: HTTP 401: invalid api key', { status: 401 });
      return { text: 'fine', latencyMs: 1 };
    },
  };
  return s;
}

describe('fail-fast in the runner', () => {
  it('stops a run whose every call fails the same way after a handful of samples, cancels the rest, and a resume finishes it', async () => {
    const store = new MemoryStore();
    const system = endpoint();
    const res = await runExperiment({ experiment: plan, system, store, concurrency: 4, stopRules: [new FailFastRule(5)] });
    expect(res.status).toBe('interrupted');
    expect(res.stopped).toMatchObject({ rule: 'fail-fast', exitCode: 3 });
    // The fifth failure decides; calls in flight then were cancelled, not waited for, and nothing new started.
    expect(system.calls).toBeLessThanOrEqual(5 + 4);
    const stored = await store.samples.list(res.run.id);
    expect(stored.length).toBeGreaterThanOrEqual(5);
    expect(stored.length).toBeLessThanOrEqual(system.calls);
    expect(stored.every((s) => s.generationErrorKind === 'client')).toBe(true);
    expect((await store.runs.get(res.run.id))?.status).toBe('interrupted');

    system.fixed = true;
    const again = await runExperiment({ experiment: plan, system, store, runId: res.run.id, concurrency: 4, stopRules: [new FailFastRule(5)] });
    expect(again.status).toBe('complete');
    expect(again.stopped).toBeUndefined();
    expect(await store.samples.list(res.run.id)).toHaveLength(100);
  });

  it('without the rule every sample is tried', async () => {
    const system = endpoint();
    const res = await runExperiment({ experiment: plan, system, store: new MemoryStore(), concurrency: 4 });
    expect(res.status).toBe('complete');
    expect(system.calls).toBe(100);
  });
});
