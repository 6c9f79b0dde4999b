import { afterAll, describe, expect, it } from 'vitest';
import type { Validator } from '../core/validator.js';
import { QuickJSSandbox } from '../sandbox/quickjs.js';
import { evaluateValidator } from './evaluate.js';
import { sandboxedValidator } from './sandboxed.js';
import { PROMPTLY_MS } from '../testing/time.js';

const base = { name: 'v', message: 'm', minSuccess: 0.9 };

describe('evaluateValidator', () => {
  const sandbox = new QuickJSSandbox({ timeoutMs: 200 });
  afterAll(() => sandbox.dispose());

  it('pass and fail from a plain (sync or async) predicate, with the input as second argument', async () => {
    const v: Validator = { ...base, predicate: (o, i) => o.includes(String(i)) };
    expect(await evaluateValidator(v, 'hello Ada', 'Ada')).toEqual({ outcome: 'pass' });
    expect(await evaluateValidator(v, 'hello Bob', 'Ada')).toEqual({ outcome: 'fail' });
    const a: Validator = { ...base, predicate: async (o) => o.length < 3 };
    expect(await evaluateValidator(a, 'abcd', '')).toEqual({ outcome: 'fail' });
  });

  it('a throw, a rejection or a non-boolean is an error, never a fail', async () => {
    const thrower: Validator = {
      ...base,
      predicate: () => {
        throw new Error('bad regex');
      },
    };
    const rejecter: Validator = { ...base, predicate: async () => Promise.reject(new Error('nope')) };
    const vague = { ...base, predicate: () => 'yes' } as unknown as Validator;
    expect(await evaluateValidator(thrower, 'x', '')).toEqual({ outcome: 'error', error: 'validator v: bad regex' });
    expect(await evaluateValidator(rejecter, 'x', '')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/nope/) });
    expect(await evaluateValidator(vague, 'x', '')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/returned a string, expected a boolean/) });
  });

  it('a predicate that never settles times out as an error', async () => {
    const v: Validator = { ...base, predicate: () => new Promise<boolean>(() => {}) };
    const t = Date.now();
    expect(await evaluateValidator(v, 'x', '', { timeoutMs: 50 })).toEqual({ outcome: 'error', error: 'validator v: timed out after 50 ms' });
    expect(Date.now() - t).toBeLessThan(PROMPTLY_MS);
    // the validator's own limit wins over the run's
    expect(await evaluateValidator({ ...v, timeoutMs: 20 }, 'x', '', { timeoutMs: 5000 })).toMatchObject({ error: expect.stringMatching(/20 ms/) });
  });

  it('an abort (Ctrl-C) ends the evaluation as an error', async () => {
    const ac = new AbortController();
    const v: Validator = { ...base, predicate: () => new Promise<boolean>(() => {}) };
    const p = evaluateValidator(v, 'x', '', { timeoutMs: 10_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    expect(await p).toEqual({ outcome: 'error', error: 'validator v: aborted' });
    expect(await evaluateValidator(v, 'x', '', { signal: ac.signal })).toMatchObject({ outcome: 'error' });
  });

  it('uses evaluate when present, passes a signal that fires on timeout, and keeps reasons', async () => {
    let sawAbort = false;
    const judge: Validator = {
      ...base,
      kind: 'verifier',
      predicate: () => {
        throw new Error('not used');
      },
      evaluate: async (o) => ({ outcome: o.length > 2 ? 'pass' : 'fail', reasons: ['length'] }),
    };
    expect(await evaluateValidator(judge, 'abc', '')).toEqual({ outcome: 'pass', reasons: ['length'] });
    const slow: Validator = {
      ...judge,
      evaluate: (_o, _i, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({ outcome: 'error', error: 'aborted' });
          }),
        ),
    };
    expect(await evaluateValidator(slow, 'abc', '', { timeoutMs: 30 })).toMatchObject({ outcome: 'error', error: expect.stringMatching(/timed out/) });
    expect(sawAbort).toBe(true);
    const garbage: Validator = { ...judge, evaluate: async () => ({ outcome: 'maybe' }) as never };
    expect(await evaluateValidator(garbage, 'abc', '')).toMatchObject({ outcome: 'error' });
  });

  it("sandboxed: the paper's contraction predicate gives pass and fail; throws and loops give error", async () => {
    const v = await sandboxedValidator(base, "o => (o.match(/'/g) ?? []).length <= 3", sandbox);
    expect(await evaluateValidator(v, 'It is a fine day and I am glad to see it.', 'x')).toEqual({ outcome: 'pass' });
    expect(await evaluateValidator(v, "It's fine, isn't it? Don't worry, I can't complain.", 'x')).toEqual({ outcome: 'fail' });
    const thrower = await sandboxedValidator(base, 'o => o.nope.deeper', sandbox);
    expect(await evaluateValidator(thrower, 'x', 'x')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/TypeError/) });
    const loop = await sandboxedValidator({ ...base, timeoutMs: 50 }, 'o => { for (;;) {} }', sandbox);
    expect(await evaluateValidator(loop, 'x', 'x')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/timed out/) });
    const noReturn = await sandboxedValidator(base, 'o => { o.length < 5 }', sandbox);
    expect(await evaluateValidator(noReturn, 'x', 'x')).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/returned undefined, expected a boolean/),
    });
  });

  it('sandboxed two-argument predicates see the input object', async () => {
    const v = await sandboxedValidator(base, '(o, input) => o.includes(input.customer)', sandbox);
    expect(await evaluateValidator(v, 'Dear Ada,', { customer: 'Ada' })).toEqual({ outcome: 'pass' });
    expect(await evaluateValidator(v, 'Dear Bob,', { customer: 'Ada' })).toEqual({ outcome: 'fail' });
  });

  it('a sandboxed predicate that does not compile is rejected when it is built', async () => {
    await expect(sandboxedValidator(base, 'o => o.match(/(/)', sandbox)).rejects.toThrow(/compile/);
  });

  it('onError: fail — a rule that throws on an output fails it; a broken rule, a timeout or a sandbox limit stays an error', async () => {
    const parse = { ...base, onError: 'fail' as const, predicate: (o: string) => (JSON.parse(o) as { ok?: unknown }).ok === true };
    expect(await evaluateValidator(parse, '{"ok":true}', '')).toEqual({ outcome: 'pass' });
    expect(await evaluateValidator(parse, 'not json', '')).toMatchObject({
      outcome: 'fail',
      reasons: [expect.stringMatching(/^the predicate threw \(onError: fail\): .*JSON/)],
    });
    // Without it, the same throw is an error (the default).
    expect(await evaluateValidator({ ...parse, onError: undefined }, 'not json', '')).toMatchObject({ outcome: 'error' });
    const rejecter: Validator = { ...base, onError: 'fail', predicate: async () => Promise.reject(new Error('nope')) };
    expect(await evaluateValidator(rejecter, 'x', '')).toMatchObject({ outcome: 'fail' });
    const vague = { ...base, onError: 'fail', predicate: () => 'yes' } as unknown as Validator;
    expect(await evaluateValidator(vague, 'x', '')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/expected a boolean/) });
    const asyncVague = { ...base, onError: 'fail', predicate: async () => 1 } as unknown as Validator;
    expect(await evaluateValidator(asyncVague, 'x', '')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/returned a number/) });
    const never: Validator = { ...base, onError: 'fail', predicate: () => new Promise<boolean>(() => {}) };
    expect(await evaluateValidator(never, 'x', '', { timeoutMs: 30 })).toMatchObject({ outcome: 'error', error: expect.stringMatching(/timed out/) });
  });

  it('onError: fail in the sandbox: JSON.parse of non-JSON fails the output, an endless loop is still an error', async () => {
    const v = { ...(await sandboxedValidator(base, 'o => JSON.parse(o).ok === true', sandbox)), onError: 'fail' as const };
    expect(await evaluateValidator(v, '{"ok":true}', 'x')).toEqual({ outcome: 'pass' });
    expect(await evaluateValidator(v, 'Sure! {"ok":true}', 'x')).toMatchObject({ outcome: 'fail', reasons: [expect.stringMatching(/SyntaxError/)] });
    const loop = { ...(await sandboxedValidator({ ...base, timeoutMs: 50 }, 'o => { for (;;) {} }', sandbox)), onError: 'fail' as const };
    expect(await evaluateValidator(loop, 'x', 'x')).toMatchObject({ outcome: 'error', error: expect.stringMatching(/timed out/) });
    const noReturn = { ...(await sandboxedValidator(base, 'o => { o.length < 5 }', sandbox)), onError: 'fail' as const };
    expect(await evaluateValidator(noReturn, 'x', 'x')).toMatchObject({ outcome: 'error' });
  });
});
