import { describe, expect, it } from 'vitest';
import type { DecisionParameters } from '../core/decision.js';
import { Outcome } from '../core/outcome.js';
import { ReliabilityTensor } from '../core/tensor.js';
import type { Validator } from '../core/validator.js';
import { ProviderError, type ProviderErrorKind, type SystemUnderTest } from '../providers/types.js';
import { MemoryStore } from '../store/memory.js';
import type { SampleRecord } from '../store/types.js';
import { DEFAULT_MAX_ERRORS, FailFastRule } from './fail-fast.js';
import { runExperiment, type RunPlan } from './runner.js';
import { argumentErrorOf } from '../testing/errors.js';
import { stopRulesOf } from './assemble.js';

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

  // Issue 30: a hanging system timed out on every sample, and the run waited for each (timeouts did not count).
  it('stops after maxErrors timeouts in a row, saying which limit and how to change it', () => {
    const hung = () => failed('no answer within 30000 ms', 'timeout');
    const r = new FailFastRule(3);
    expect(feed(r, [hung(), hung(), hung(), hung()])).toBe(3);
    expect(r.check()).toMatchObject({ rule: 'fail-fast', status: 'interrupted', cancelInFlight: true, exitCode: 3 });
    expect(r.check()!.cause).toBe('3 samples in a row failed the same way (timeout): no answer within 30000 ms');
    expect(r.check()!.message).toMatch(/Fix the cause \(or, if the system needs longer, raise timeoutMs, the per-call limit, in the config\), then finish/);
    // A connection failure's advice says nothing of timeoutMs.
    const refused = new FailFastRule(1);
    feed(refused, [failed('ECONNREFUSED', 'connection')]);
    expect(refused.check()!.message).not.toMatch(/timeoutMs/);
  });

  it('a success, another failure or a rate limit breaks the streak; resumed samples do not count', () => {
    const e = (m = 'HTTP 401: invalid api key') => failed(m, 'client');
    expect(feed(new FailFastRule(3), [e(), e(), ok, e(), e(), ok, e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), e('HTTP 404: model "x" does not exist'), e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), failed('HTTP 429', 'rate_limit'), e(), e()])).toBeUndefined();
    expect(feed(new FailFastRule(3), [e(), e(), failed('no answer within 60000 ms', 'timeout'), e(), e()])).toBeUndefined();
    const hung = failed('no answer within 60000 ms', 'timeout');
    expect(feed(new FailFastRule(3), [hung, hung, ok, hung, hung])).toBeUndefined();
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
/** The decision a plain config gives (no sequential stopping): the stop rules are assembleRun's defaults. */
const decision: DecisionParameters = {
  confidence: 0.95,
  interval: 'clopper-pearson',
  verdict: 'confident',
  maxErrorShare: 0.1,
  stopping: 'fixed',
  rules: [{ name: 'v', minSuccess: 0.5 }],
};

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

  // Issue 30, for `assay run` too: with the default retry policy and fail fast (what assembleRun gives every run),
  // a system that never answers is met by one timeout per sample, and the run stops after a handful of them
  // instead of waiting out 100 samples × 5 attempts.
  it('stops a run whose system never answers: each call made once, fail fast after a handful', async () => {
    let calls = 0;
    const hangs: SystemUnderTest = {
      id: 'hangs',
      generate: () => {
        calls++;
        return new Promise<never>(() => undefined);
      },
    };
    const store = new MemoryStore();
    const res = await runExperiment({ experiment: plan, system: hangs, store, concurrency: 4, timeoutMs: 200, stopRules: stopRulesOf(decision, {}) });
    expect(res.status).toBe('interrupted');
    expect(res.stopped).toMatchObject({ rule: 'fail-fast', exitCode: 3 });
    expect(res.stopped!.message).toMatch(/failed the same way \(timeout\): no answer within 200 ms\. .*raise timeoutMs/);
    const stored = await store.samples.list(res.run.id);
    expect(stored.length).toBeGreaterThanOrEqual(DEFAULT_MAX_ERRORS);
    expect(stored.every((s) => s.attempts === 1 && s.generationErrorKind === 'timeout')).toBe(true);
    expect(calls).toBeLessThanOrEqual(DEFAULT_MAX_ERRORS + 4);
  }, 30_000);

  it('without the rule every sample is tried', async () => {
    const system = endpoint();
    const res = await runExperiment({ experiment: plan, system, store: new MemoryStore(), concurrency: 4 });
    expect(res.status).toBe('complete');
    expect(system.calls).toBe(100);
  });
});
