import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Validator } from '../core/validator.js';
import { ProviderError, type SystemUnderTest } from '../providers/types.js';
import { openSqliteStore } from '../store/sqlite.js';
import { MemoryStore } from '../store/memory.js';
import { augmentInput } from './feedback.js';
import { guard, guardedCall } from './guard.js';
import { noDigits, scripted, short } from './testing/scripted.js';
import { PROMPTLY_MS } from '../testing/time.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('validator-driven retry (§4.2)', () => {
  it('regenerates until every validator passes, recording each attempt and summing tokens and cost', async () => {
    const { sys, sent } = scripted(['Call 555 now', 'Call us now, we are waiting for you, truly, always', 'Call us now']);
    const r = await guard(sys, {
      validators: [noDigits, short],
      maxAttempts: 5,
      prices: { system: { promptPer1k: 0.5, completionPer1k: 1.5 } },
    }).call('Invite the customer to call.');
    expect(r).toMatchObject({ accepted: true, reason: 'accepted', output: 'Call us now' });
    expect(r.attempts.map((a) => a.status)).toEqual(['rejected', 'rejected', 'accepted']);
    expect(r.attempts[0].validators).toEqual([
      { name: 'no_digits', outcome: 'fail' },
      { name: 'short', outcome: 'pass' },
    ]);
    // Default feedback: the messages of the failed validators of the last attempt only.
    expect(sent[0]).toBe('Invite the customer to call.');
    expect(sent[1]).toContain('- Do not use digits.');
    expect(sent[2]).toContain('- Keep it under 40 characters.');
    expect(sent[2]).not.toContain('digits');
    expect(r.usage.system).toEqual({ promptTokens: 300, completionTokens: 60 });
    expect(r.usage.total).toEqual({ promptTokens: 300, completionTokens: 60 });
    expect(r.cost!.total).toBeCloseTo((300 * 0.5 + 60 * 1.5) / 1000, 12);
    expect(r.cost!.verifier).toBe(0);
  });

  it('returns rejection as data once maxAttempts are used up', async () => {
    const { sys, sent } = scripted(['Call 555']);
    const r = await guardedCall(sys, 'q', { validators: [noDigits], maxAttempts: 3, feedback: false });
    expect(r).toMatchObject({ accepted: false, reason: 'exhausted', attempts: { length: 3 } });
    expect(r.output).toBeUndefined();
    expect(r.cost).toBeNull();
    expect(sent).toEqual(['q', 'q', 'q']); // feedback off: the §4.2 loop regenerates from the same input
  });

  it('treats a throwing validator as an error, not a rejection', async () => {
    const boom: Validator = {
      name: 'boom',
      message: 'm',
      minSuccess: 1,
      predicate: () => {
        throw new Error('kaput');
      },
    };
    const r = await guardedCall(scripted(['fine']).sys, 'q', { validators: [boom], maxAttempts: 2 });
    expect(r).toMatchObject({ accepted: false, reason: 'error' });
    expect(r.attempts[1].validators[0]).toMatchObject({ outcome: 'error' });
    expect(r.detail).toMatch(/kaput/);
  });

  it('stops with `error` when the system fails for good, after backoff on transient errors', async () => {
    let calls = 0;
    const sys: SystemUnderTest = {
      id: 'flaky',
      generate: async () => {
        calls++;
        if (calls <= 2) throw new ProviderError('server', 'HTTP 503', { status: 503 });
        throw new ProviderError('client', 'HTTP 400 bad request', { status: 400 });
      },
    };
    const r = await guardedCall(sys, 'q', { validators: [noDigits], maxAttempts: 5, retry: { baseMs: 1, maxMs: 2 } });
    expect(r).toMatchObject({ accepted: false, reason: 'error', attempts: { length: 1 } });
    expect(r.attempts[0].generationError).toMatch(/400/);
    expect(calls).toBe(3);
  });

  it('ends the loop at the overall timeout, even if the system ignores its signal', async () => {
    const hang: SystemUnderTest = { id: 'hang', generate: () => new Promise(() => {}) };
    const t0 = Date.now();
    const r = await guardedCall(hang, 'q', { validators: [noDigits], maxAttempts: 5, timeoutMs: 150 });
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(r).toMatchObject({ accepted: false, reason: 'timeout', attempts: [{ status: 'timeout' }] });
    expect(r.detail).toMatch(/150 ms/);

    const slow: SystemUnderTest = { id: 'slow', generate: async () => (await new Promise((res) => setTimeout(res, 60)), { text: '1', latencyMs: 60 }) };
    const r2 = await guardedCall(slow, 'q', { validators: [noDigits], maxAttempts: 50, timeoutMs: 200 });
    expect(r2.reason).toBe('timeout');
    expect(r2.attempts.length).toBeGreaterThanOrEqual(2);
    expect(r2.attempts.length).toBeLessThanOrEqual(5);
    expect(r2.attempts.slice(0, -1).every((a) => a.status === 'rejected')).toBe(true);
  });

  // Issue 30: a timed-out call is retried only inside an overall budget that bounds the retries.
  it('retries a timed-out call within the overall timeoutMs, and not without one', async () => {
    let calls = 0;
    const hangsOnce: SystemUnderTest = {
      id: 'hangs-once',
      generate: () => (++calls === 1 ? new Promise(() => {}) : Promise.resolve({ text: 'fine', latencyMs: 1 })),
    };
    const bounded = await guardedCall(hangsOnce, 'q', {
      validators: [noDigits],
      maxAttempts: 3,
      callTimeoutMs: 50,
      timeoutMs: 10_000,
      retry: { baseMs: 1, maxMs: 2 },
    });
    expect(bounded).toMatchObject({ accepted: true, output: 'fine' });
    expect(calls).toBe(2);
    calls = 0;
    const unbounded = await guardedCall(hangsOnce, 'q', { validators: [noDigits], maxAttempts: 3, callTimeoutMs: 50, retry: { baseMs: 1, maxMs: 2 } });
    expect(unbounded).toMatchObject({ accepted: false, reason: 'error' });
    expect(unbounded.detail).toMatch(/no answer within 50 ms/);
    expect(calls).toBe(1);
    calls = 0;
    const asked = await guardedCall(hangsOnce, 'q', {
      validators: [noDigits],
      maxAttempts: 3,
      callTimeoutMs: 50,
      retry: { baseMs: 1, maxMs: 2, timeoutRetries: 1 },
    });
    expect(asked).toMatchObject({ accepted: true, output: 'fine' });
  });

  it('ends with `error` when the caller cancels, keeping the attempts made', async () => {
    const ac = new AbortController();
    let calls = 0;
    const sys: SystemUnderTest = {
      id: 'cancel-on-second',
      generate: async (_input, o) => {
        if (++calls === 2) {
          ac.abort();
          return new Promise((_, reject) => o.signal.addEventListener('abort', () => reject(new Error('aborted'))));
        }
        return { text: 'Call 555', latencyMs: 1, usage: { promptTokens: 7, completionTokens: 3 } };
      },
    };
    const r = await guardedCall(sys, 'q', { validators: [noDigits], maxAttempts: 5, signal: ac.signal });
    expect(r).toMatchObject({ accepted: false, reason: 'error', detail: 'cancelled by the caller' });
    expect(r.attempts.map((a) => a.status)).toEqual(['rejected', 'timeout']);
    expect(r.usage.total).toEqual({ promptTokens: 7, completionTokens: 3 });
  });

  it('persists attempts and the call in the store it is given by location', async () => {
    const path = join(dir, 'nested', 'assay.db');
    const { sys } = scripted(['Call 555', 'Call us']);
    const r = await guardedCall(sys, { prompt: 'Invite' }, { validators: [noDigits], maxAttempts: 3, store: path, callId: 'c1' });
    expect(r.logError).toBeUndefined();
    await using log = openSqliteStore(path, { readonly: true });
    expect(await log.guard.getCall('c1')).toMatchObject({ accepted: true, reason: 'accepted', attempts: 2, output: 'Call us', usage: { promptTokens: 200 } });
    const rows = await log.guard.listAttempts('c1');
    expect(rows.map((a) => a.status)).toEqual(['rejected', 'accepted']);
    expect(rows[1].input).toEqual(r.attempts[1].input);
    expect((rows[1].input as { prompt: string }).prompt).toContain('Do not use digits.');
    expect(rows[0].validators).toEqual([{ name: 'no_digits', outcome: 'fail' }]);
  });

  it('writes each attempt as it ends, into a Store it is given (and leaves that store open)', async () => {
    const store = new MemoryStore();
    const seen: number[] = [];
    let calls = 0;
    const sys: SystemUnderTest = {
      id: 'counting',
      generate: async () => {
        seen.push((await store.guard.listAttempts('c2')).length); // the earlier attempts are already stored
        return { text: ++calls < 3 ? 'Call 555' : 'Call us', latencyMs: 1 };
      },
    };
    const r = await guardedCall(sys, 'q', { validators: [noDigits], maxAttempts: 3, store, callId: 'c2' });
    expect(r.accepted).toBe(true);
    expect(seen).toEqual([0, 1, 2]);
    expect((await store.guard.getCall('c2'))!.attempts).toBe(3);
  });

  it('a store that cannot be opened is a logError; the loop still runs', async () => {
    const r = await guardedCall(scripted(['Call us']).sys, 'q', { validators: [noDigits], maxAttempts: 1, store: 'postgres://nobody@127.0.0.1:1/none' });
    expect(r).toMatchObject({ accepted: true, output: 'Call us' });
    expect(r.logError).toMatch(/cannot .*127\.0\.0\.1:1/);
  });

  it('reports a failing attempt log on the result without ending the loop', async () => {
    const broken = {
      recordAttempt: () => {
        throw new Error('disk full');
      },
      recordResult: () => {},
      close: () => {},
    };
    const r = await guardedCall(scripted(['Call 555', 'Call us']).sys, 'q', { validators: [noDigits], maxAttempts: 3, store: broken });
    expect(r).toMatchObject({ accepted: true, attempts: { length: 2 }, logError: 'disk full' });
  });

  it('rejects bad options up front', () => {
    const { sys } = scripted(['x']);
    expect(() => guard(sys, { maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => guard(sys, { maxAttempts: 2, template: 'no placeholder' })).toThrow(/\{reasons\}/);
    // Node fires a timer of more than 2^31 − 1 ms after 1 ms: such a limit would end every call at once.
    expect(() => guard(sys, { maxAttempts: 2, timeoutMs: Infinity })).toThrow(/timeoutMs must be .* got Infinity/);
    expect(() => guard(sys, { maxAttempts: 2, timeoutMs: 2 ** 31 })).toThrow(/timeoutMs/);
    expect(() => guard(sys, { maxAttempts: 2, callTimeoutMs: 0 })).toThrow(/callTimeoutMs/);
    expect(() => guard(sys, { maxAttempts: 2, validatorTimeoutMs: Number.NaN })).toThrow(/validatorTimeoutMs/);
  });
});

describe('feedback template', () => {
  it('augments strings and object fields, without expanding placeholders inside the input', () => {
    expect(augmentInput('Say {reasons}', ['a', 'b'], 'Q: {input}\nFix:\n{reasons}')).toBe('Q: Say {reasons}\nFix:\n- a\n- b');
    expect(augmentInput({ question: 'Why?', id: 3 }, ['r'], '{input} [{reasons}]')).toEqual({ question: 'Why? [- r]', id: 3 });
    expect(augmentInput({ id: 3 }, ['r'], '{input}{reasons}')).toEqual({ id: 3, feedback: '- r' });
  });
});
