import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { InputValue, Validator } from '../core/validator.js';
import { createOpenAIJudge } from '../judge/openai-judge.js';
import { verifierFromConfig } from '../judge/config.js';
import { ProviderError, type SystemUnderTest } from '../providers/types.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../testing/mock-openai.js';
import { openAttemptLog } from './attempt-log.js';
import { augmentInput } from './feedback.js';
import { guard, guardedCall } from './guard.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let mock: MockOpenAI | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** A system that answers from a script, one text per attempt, recording what it was sent. */
function scripted(texts: string[], usage = { promptTokens: 100, completionTokens: 20 }) {
  const sent: InputValue[] = [];
  const sys: SystemUnderTest = {
    id: 'scripted',
    generate: async (input) => {
      sent.push(input);
      return { text: texts[Math.min(sent.length - 1, texts.length - 1)], latencyMs: 1, usage };
    },
  };
  return { sys, sent };
}

const noDigits: Validator = { name: 'no_digits', message: 'Do not use digits.', minSuccess: 0.9, predicate: (o) => !/\d/.test(o) };
const short: Validator = { name: 'short', message: 'Keep it under 40 characters.', minSuccess: 0.9, predicate: (o) => o.length < 40 };

const userText = (b: ChatRequestBody) => String(b.messages.find((m) => m.role === 'user')?.content ?? '');

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
    const boom: Validator = { name: 'boom', message: 'm', minSuccess: 1, predicate: () => { throw new Error('kaput'); } };
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
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(r).toMatchObject({ accepted: false, reason: 'timeout', attempts: [{ status: 'timeout' }] });
    expect(r.detail).toMatch(/150 ms/);

    const slow: SystemUnderTest = { id: 'slow', generate: async () => (await new Promise((res) => setTimeout(res, 60)), { text: '1', latencyMs: 60 }) };
    const r2 = await guardedCall(slow, 'q', { validators: [noDigits], maxAttempts: 50, timeoutMs: 200 });
    expect(r2.reason).toBe('timeout');
    expect(r2.attempts.length).toBeGreaterThanOrEqual(2);
    expect(r2.attempts.length).toBeLessThanOrEqual(5);
    expect(r2.attempts.slice(0, -1).every((a) => a.status === 'rejected')).toBe(true);
  });

  it('persists attempts and the call in its own SQLite tables', async () => {
    const path = join(dir, 'nested', 'assay.db');
    const { sys } = scripted(['Call 555', 'Call us']);
    const r = await guardedCall(sys, { prompt: 'Invite' }, { validators: [noDigits], maxAttempts: 3, store: path, callId: 'c1' });
    const log = openAttemptLog(path);
    try {
      expect(log.getCall('c1')).toMatchObject({ accepted: true, reason: 'accepted', attempts: 2, output: 'Call us', prompt_tokens: 200 });
      const rows = log.listAttempts('c1');
      expect(rows.map((a) => a.status)).toEqual(['rejected', 'accepted']);
      expect(rows[1].input).toEqual(r.attempts[1].input);
      expect((rows[1].input as { prompt: string }).prompt).toContain('Do not use digits.');
      expect(rows[0].validators).toEqual([{ name: 'no_digits', outcome: 'fail' }]);
    } finally {
      log.close();
    }
  });

  it('reports a failing attempt log on the result without ending the loop', async () => {
    const broken = { recordAttempt: () => { throw new Error('disk full'); }, recordResult: () => {}, close: () => {} };
    const r = await guardedCall(scripted(['Call 555', 'Call us']).sys, 'q', { validators: [noDigits], maxAttempts: 3, store: broken });
    expect(r).toMatchObject({ accepted: true, attempts: { length: 2 }, logError: 'disk full' });
  });

  it('rejects bad options up front', () => {
    const { sys } = scripted(['x']);
    expect(() => guard(sys, { maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => guard(sys, { maxAttempts: 2, template: 'no placeholder' })).toThrow(/\{reasons\}/);
  });
});

describe('feedback template', () => {
  it('augments strings and object fields, without expanding placeholders inside the input', () => {
    expect(augmentInput('Say {reasons}', ['a', 'b'], 'Q: {input}\nFix:\n{reasons}')).toBe('Q: Say {reasons}\nFix:\n- a\n- b');
    expect(augmentInput({ question: 'Why?', id: 3 }, ['r'], '{input} [{reasons}]')).toEqual({ question: 'Why? [- r]', id: 3 });
    expect(augmentInput({ id: 3 }, ['r'], '{input}{reasons}')).toEqual({ id: 3, feedback: '- r' });
  });
});

describe('verifier-driven retry (§4.1) against a local OpenAI-compatible judge', () => {
  const REASON_1 = 'Mention the 30-day refund window.';
  const REASON_2 = 'Say how to start a return.';

  it('feeds the last reasons back until the judge passes', async () => {
    // The judge fails an answer until its (latest) reasons appear in the input it is shown: reason 1, then reason 2.
    mock = await startMockOpenAI({
      chat: (b) => {
        const u = userText(b);
        const reasons = u.includes(REASON_2) ? [] : u.includes(REASON_1) ? [REASON_2] : [REASON_1];
        return { content: JSON.stringify({ verdict: reasons.length ? 'FAIL' : 'PASS', reasons }), usage: { prompt_tokens: 50, completion_tokens: 10 } };
      },
    });
    const judge = createOpenAIJudge({ baseURL: mock.baseURL, model: 'judge', instructions: ['Answer must follow the refund policy.'] });
    const { sys, sent } = scripted(['Refunds are possible.', 'Refunds within 30 days.', 'Refunds within 30 days; start at /returns.']);
    const r = await guardedCall(sys, 'What is your refund policy?', {
      verifier: judge,
      maxAttempts: 4,
      prices: { system: { promptPer1k: 1, completionPer1k: 2 }, verifier: { promptPer1k: 10, completionPer1k: 20 } },
    });
    expect(r).toMatchObject({ accepted: true, reason: 'accepted', output: 'Refunds within 30 days; start at /returns.' });
    expect(r.attempts.map((a) => a.verifier)).toEqual([
      { outcome: 'fail', reasons: [REASON_1] },
      { outcome: 'fail', reasons: [REASON_2] },
      { outcome: 'pass', reasons: [] },
    ]);
    expect(sent[1]).toContain(REASON_1);
    // The last reasons are the ones fed back, not an accumulation.
    expect(sent[2]).toContain(REASON_2);
    expect(sent[2]).not.toContain(REASON_1);
    // The judge saw (input + reasons, output), delimited as data.
    expect(userText(mock.requests[1].body as ChatRequestBody)).toMatch(new RegExp(`<input-[0-9a-f]+>\\n[\\s\\S]*${REASON_1.replace('.', '\\.')}`));
    expect(r.usage.verifier).toEqual({ promptTokens: 150, completionTokens: 30 });
    expect(r.usage.total).toEqual({ promptTokens: 450, completionTokens: 90 });
    expect(r.cost!.total).toBeCloseTo((300 * 1 + 60 * 2 + 150 * 10 + 30 * 20) / 1000, 12);
  });

  it('works with a verifier from a config, skipping the judge when a validator already failed', async () => {
    mock = await startMockOpenAI({ chat: () => ({ content: '{"verdict":"PASS","reasons":[]}' }) });
    const verifier = verifierFromConfig({ name: 'policy', minSuccess: 0.9, instructions: 'x', judge: { openai: { baseURL: mock.baseURL, model: 'j' } } }, { env: {} });
    const { sys } = scripted(['Call 555', 'Call us']);
    const r = await guardedCall(sys, 'q', { validators: [noDigits], verifier, maxAttempts: 3 });
    expect(r.accepted).toBe(true);
    expect(r.attempts[0].verifier).toEqual({ outcome: 'skipped', reasons: [] });
    expect(mock.requests).toHaveLength(1);
    expect(r.usage.verifier.promptTokens).toBeGreaterThan(0);
  });

  it('a judge answering garbage gives `error`, never a rejection', async () => {
    mock = await startMockOpenAI({ chat: () => ({ content: 'Hmm. Interesting question, let me think about it.' }) });
    const judge = createOpenAIJudge({ baseURL: mock.baseURL, model: 'judge', instructions: ['x'] });
    const r = await guardedCall(scripted(['Fine answer']).sys, 'q', { verifier: judge, maxAttempts: 2 });
    expect(r).toMatchObject({ accepted: false, reason: 'error' });
    expect(r.attempts.map((a) => a.status)).toEqual(['error', 'error']);
    expect(r.attempts[0].verifier).toMatchObject({ outcome: 'error' });
    expect(r.detail).toMatch(/unparsable/);
  });

  it('a hanging judge is cut off by the overall timeout', async () => {
    mock = await startMockOpenAI({ chat: () => ({ hang: true }) });
    const judge = createOpenAIJudge({ baseURL: mock.baseURL, model: 'judge', instructions: ['x'] });
    const t0 = Date.now();
    const r = await guardedCall(scripted(['a']).sys, 'q', { verifier: judge, maxAttempts: 3, timeoutMs: 200 });
    expect(r.reason).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});
