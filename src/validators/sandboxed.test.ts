import { afterAll, describe, expect, it } from 'vitest';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { Validator } from '../core/validator.js';
import { SimulatedSystem } from '../providers/simulated.js';
import { runExperiment } from '../run/runner.js';
import { createSandbox } from '../sandbox/index.js';
import { QuickJSSandbox } from '../sandbox/quickjs.js';
import { MemoryStore } from '../store/memory.js';
import { evaluateValidator } from './evaluate.js';
import { sandboxedValidator } from './sandboxed.js';

const inputs = ['Describe the weather.', 'Say hello.', 'Greet a customer.', 'Summarise the news.'];
const system = () =>
  new SimulatedSystem({
    seed: 42,
    latencyMs: 5,
    outputs: [
      { text: 'It is a fine day and I am glad to see it.', weight: 9 },
      { text: "It's fine, isn't it?", weight: 1 },
    ],
  });

/** Runs the plan at the given concurrency; per validator, how many cells ended pass, fail, error, and the error texts. */
async function run(validators: Validator[], samples: number, concurrency: number) {
  const res = await runExperiment({ experiment: { name: 'qa', inputs, samples, validators }, system: system(), store: new MemoryStore(), concurrency });
  expect(res.status).toBe('complete');
  const store = res.tensor;
  return validators.map((v, k) => {
    const counts = { pass: 0, fail: 0, error: 0 };
    for (let i = 0; i < inputs.length; i++) for (let j = 0; j < samples; j++) counts[name(store.get(i, j, k))]++;
    return { name: v.name, ...counts };
  });
}
const name = (c: OutcomeCode) => (c === Outcome.PASS ? 'pass' : c === Outcome.FAIL ? 'fail' : 'error');

describe('sandboxed predicates under a concurrent run: the time limit is their own, not the queue’s', () => {
  const sandbox = createSandbox();
  afterAll(() => sandbox.dispose());

  it('a slow predicate within its limit and a trivial neighbour both pass every cell (QA scenario, scaled)', async () => {
    // 100 ms of work against a 300 ms limit, 16 cells in flight: the slow predicate's calls queue for up to
    // 1.6 s, which must count neither against it nor against the trivial one.
    const slow = await sandboxedValidator(
      { name: 'slow_but_ok', minSuccess: 0.9, timeoutMs: 300 },
      'o => { const t = Date.now(); while (Date.now() - t < 100) {} return true }',
      sandbox,
    );
    const trivial = await sandboxedValidator({ name: 'trivial', minSuccess: 0.9, timeoutMs: 300 }, 'o => o.length > 0', sandbox);
    expect(await run([slow, trivial], 4, 16)).toEqual([
      { name: 'slow_but_ok', pass: 16, fail: 0, error: 0 },
      { name: 'trivial', pass: 16, fail: 0, error: 0 },
    ]);
  });

  it('an infinite loop is an error in every cell; its healthy neighbour has none', async () => {
    const looping = await sandboxedValidator({ name: 'looping', minSuccess: 0.9, timeoutMs: 100 }, 'o => { for (;;) {} }', sandbox);
    const healthy = await sandboxedValidator({ name: 'healthy', minSuccess: 0.9, timeoutMs: 100 }, "o => (o.match(/'/g) ?? []).length <= 3", sandbox);
    expect(await run([looping, healthy], 3, 8)).toEqual([
      { name: 'looping', pass: 0, fail: 0, error: 12 },
      { name: 'healthy', pass: 12, fail: 0, error: 0 },
    ]);
  });

  it('a typed-array bomb is an out-of-memory error in every cell, not a timeout (issue 18 reproducer, 4 cells at once)', async () => {
    const bomb = await sandboxedValidator({ name: 'bomb', minSuccess: 0.9 }, 'o => { const a = []; for (;;) a.push(new Float64Array(1 << 20)); }', sandbox);
    const store = new MemoryStore();
    const res = await runExperiment({ experiment: { name: 'qa', inputs, samples: 1, validators: [bomb] }, system: system(), store, concurrency: 4 });
    const samples = await store.samples.list(res.run.id);
    expect(samples).toHaveLength(inputs.length);
    for (const s of samples) {
      expect(res.tensor.get(s.i, s.j, 0)).toBe(Outcome.ERROR);
      expect(s.errors?.[0]).toMatch(/ran out of memory \(limit 32 MiB\)/);
    }
  });
});

describe('evaluateValidator with sandboxed predicates', () => {
  it('keeps answering for a neighbour that shares a worker with a looping predicate', async () => {
    const shared = new QuickJSSandbox({ maxWorkers: 1 });
    try {
      const looping = await sandboxedValidator({ name: 'looping', minSuccess: 0.9, timeoutMs: 100 }, 'o => { for (;;) {} }', shared);
      const healthy = await sandboxedValidator({ name: 'healthy', minSuccess: 0.9, timeoutMs: 100 }, 'o => o.length > 0', shared);
      const order: string[] = [];
      const check = (v: Validator) => evaluateValidator(v, 'x', 'x').finally(() => order.push(v.name));
      const loops = Array.from({ length: 6 }, () => check(looping));
      const checks = await Promise.all(Array.from({ length: 6 }, () => check(healthy)));
      expect(checks).toEqual(Array.from({ length: 6 }, () => ({ outcome: 'pass' })));
      for (const r of await Promise.all(loops)) expect(r).toEqual({ outcome: 'error', error: 'validator looping: timed out after 100 ms' });
      // The worker takes turns: the healthy calls are answered after one looping call (a few on a loaded
      // machine, where the batch may be split over turns), not after all six.
      const loopsBeforeLastHealthy = order.slice(0, order.lastIndexOf('healthy')).filter((n) => n === 'looping').length;
      expect(order[0]).toBe('looping');
      expect(loopsBeforeLastHealthy).toBeLessThanOrEqual(3);
    } finally {
      shared.dispose();
    }
  });

  it('waiting for the sandbox ends only at the overall bound, as an error', async () => {
    const shared = new QuickJSSandbox({ maxWorkers: 1 });
    try {
      const looping = await sandboxedValidator({ name: 'looping', minSuccess: 0.9, timeoutMs: 800 }, 'o => { for (;;) {} }', shared);
      const healthy = await sandboxedValidator({ name: 'healthy', minSuccess: 0.9, timeoutMs: 50 }, 'o => o.length > 0', shared);
      const loop = evaluateValidator(looping, 'x', 'x');
      // Queued behind the loop for far longer than its own 50 ms: still a pass, unless the bound is shorter.
      const patient = evaluateValidator(healthy, 'x', 'x');
      const bounded = evaluateValidator(healthy, 'x', 'x', { sandboxWaitMs: 200 });
      expect(await bounded).toEqual({ outcome: 'error', error: 'validator healthy: got no answer from the sandbox within 200 ms' });
      expect(await patient).toEqual({ outcome: 'pass' });
      expect(await loop).toMatchObject({ outcome: 'error', error: expect.stringMatching(/timed out after 800 ms/) });
    } finally {
      shared.dispose();
    }
  });
});

describe('a predicate must return a primitive boolean', () => {
  const sandbox = createSandbox();
  afterAll(() => sandbox.dispose());

  it.each([
    ['o => new Boolean(true)', /Boolean object/],
    ['o => new Boolean(false)', /Boolean object/],
    ['o => ({ toJSON: () => true })', /toJSON/],
    ['async o => ({ toJSON: () => false })', /toJSON/],
  ])('%s is an error outcome, not a pass or a fail', async (source, message) => {
    const v = await sandboxedValidator({ name: 'boxed', minSuccess: 0.9 }, source, sandbox);
    const r = await evaluateValidator(v, 'x', 'x');
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(message);
  });

  it('the same holds for real functions (assay.config.ts), with a message that says what came back', async () => {
    const header = { name: 'ts', minSuccess: 0.9, kind: 'validator' as const, message: 'm' };
    expect(await evaluateValidator({ ...header, predicate: () => new Boolean(true) as unknown as boolean }, 'x', 'x')).toEqual({
      outcome: 'error',
      error: 'validator ts: predicate returned a Boolean object (new Boolean), expected a primitive boolean',
    });
    expect(await evaluateValidator({ ...header, predicate: () => ({ toJSON: () => true }) as unknown as boolean }, 'x', 'x')).toEqual({
      outcome: 'error',
      error: 'validator ts: predicate returned an object, expected a boolean',
    });
  });
});
