import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIJudge } from '../judge/openai-judge.js';
import { verifierFromConfig } from '../judge/config.js';
import { startMockOpenAI, type ChatRequestBody, type MockOpenAI } from '../mock/openai.js';
import { judgeReply } from '../mock/judge.js';
import { guardedCall } from './guard.js';
import { noDigits, scripted } from './testing/scripted.js';
import { PROMPTLY_MS } from '../testing/time.js';

let mock: MockOpenAI | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const userText = (b: ChatRequestBody) => String(b.messages.find((m) => m.role === 'user')?.content ?? '');

describe('verifier-driven retry (§4.1) against a local OpenAI-compatible judge', () => {
  const REASON_1 = 'Mention the 30-day refund window.';
  const REASON_2 = 'Say how to start a return.';

  it('feeds the last reasons back until the judge passes', async () => {
    // The judge fails an answer until its (latest) reasons appear in the input it is shown: reason 1, then reason 2.
    mock = await startMockOpenAI({
      chat: (b) => {
        const u = userText(b);
        const reasons = u.includes(REASON_2) ? [] : u.includes(REASON_1) ? [REASON_2] : [REASON_1];
        return { content: judgeReply(b, reasons.length ? 'FAIL' : 'PASS', reasons), usage: { prompt_tokens: 50, completion_tokens: 10 } };
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
    mock = await startMockOpenAI({ chat: (b) => ({ content: judgeReply(b, 'PASS') }) });
    const verifier = verifierFromConfig(
      { name: 'policy', minSuccess: 0.9, instructions: 'x', judge: { openai: { baseURL: mock.baseURL, model: 'j' } } },
      { env: {} },
    );
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
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
  });

  it('meters a verifier used as a validator column too, and feeds its reasons back', async () => {
    // Two judges on one server: "policy" (the retry's verifier) always passes; "tone" (a column) fails a curt answer.
    mock = await startMockOpenAI({
      chat: (b) => {
        if (b.model === 'policy') return { content: judgeReply(b, 'PASS'), usage: { prompt_tokens: 40, completion_tokens: 4 } };
        const fixed = userText(b).includes('lovely');
        return {
          content: judgeReply(b, fixed ? 'PASS' : 'FAIL', fixed ? [] : ['Be warmer.']),
          usage: { prompt_tokens: 30, completion_tokens: 6 },
        };
      },
    });
    const judge = (model: string, name: string) =>
      verifierFromConfig({ name, minSuccess: 0.9, instructions: 'x', judge: { openai: { baseURL: mock!.baseURL, model } } }, { env: {} });
    const { sys, sent } = scripted(['Hi.', 'Hello, lovely to hear from you!']);
    const r = await guardedCall(sys, 'Greet me', {
      validators: [judge('tone', 'tone')],
      verifier: judge('policy', 'policy'),
      maxAttempts: 3,
      feedback: 'verifier',
      prices: { system: { promptPer1k: 1, completionPer1k: 1 }, verifier: { promptPer1k: 2, completionPer1k: 4 } },
    });
    expect(r).toMatchObject({ accepted: true, attempts: { length: 2 } });
    expect(r.attempts[0]).toMatchObject({ status: 'rejected', reasons: ['Be warmer.'], verifier: { outcome: 'skipped' } });
    expect(sent[1]).toContain('Be warmer.');
    // Attempt 1: tone only (policy skipped after a failed column); attempt 2: tone and policy.
    expect(r.attempts[0].usage.verifier).toEqual({ promptTokens: 30, completionTokens: 6 });
    expect(r.attempts[1].usage.verifier).toEqual({ promptTokens: 70, completionTokens: 10 });
    expect(r.usage.verifier).toEqual({ promptTokens: 100, completionTokens: 16 });
    expect(r.cost!.verifier).toBeCloseTo((100 * 2 + 16 * 4) / 1000, 12);
    expect(r.cost!.total).toBeCloseTo(r.cost!.system + r.cost!.verifier, 12);
  });

  it("feedback: 'verifier' sends the judge's reasons only, not the messages of failed rules", async () => {
    mock = await startMockOpenAI({
      chat: (b) => ({ content: userText(b).includes('Cite the policy.') ? judgeReply(b, 'PASS') : judgeReply(b, 'FAIL', ['Cite the policy.']) }),
    });
    const judge = createOpenAIJudge({ baseURL: mock.baseURL, model: 'judge', instructions: ['x'] });
    const { sys, sent } = scripted(['Refund 30 days', 'Refunds: see the policy', 'Refunds: see the policy']);
    const r = await guardedCall(sys, 'q', { validators: [noDigits], verifier: judge, verifyAlways: true, feedback: 'verifier', maxAttempts: 3 });
    expect(r.accepted).toBe(true);
    expect(r.attempts[0].reasons).toEqual(['Cite the policy.']);
    expect(sent[1]).toContain('Cite the policy.');
    expect(sent[1]).not.toContain('Do not use digits.');
  });

  it('a judge slower than its per-call limit makes that attempt an `error`; the loop goes on', async () => {
    mock = await startMockOpenAI({ chat: (b, n) => (n === 1 ? { hang: true } : { content: judgeReply(b, 'PASS') }) });
    const judge = createOpenAIJudge({ baseURL: mock.baseURL, model: 'judge', instructions: ['x'], retry: { retries: 0 } });
    const r = await guardedCall(scripted(['a']).sys, 'q', { verifier: judge, maxAttempts: 1, verifierTimeoutMs: 150, validatorTimeoutMs: 10_000 });
    expect(r).toMatchObject({ accepted: false, reason: 'error', attempts: [{ status: 'error', verifier: { outcome: 'error' } }] });
    expect(r.detail).toMatch(/could not be checked: verifier: timed out after 150 ms/);
    const again = await guardedCall(scripted(['a']).sys, 'q', { verifier: judge, maxAttempts: 2, verifierTimeoutMs: 150 });
    expect(again).toMatchObject({ accepted: true, attempts: [{ status: 'accepted' }] });
  });

  it('gives a verifier column the time of an LLM call, not the short limit of a rule', async () => {
    mock = await startMockOpenAI({ chat: (b) => ({ content: judgeReply(b, 'PASS'), delayMs: 120 }) });
    const tone = verifierFromConfig(
      { name: 'tone', minSuccess: 0.9, instructions: 'x', judge: { openai: { baseURL: mock.baseURL, model: 'j' } } },
      { env: {} },
    );
    const r = await guardedCall(scripted(['Hello']).sys, 'q', { validators: [noDigits, tone], maxAttempts: 1, validatorTimeoutMs: 30 });
    expect(r).toMatchObject({ accepted: true, attempts: [{ validators: [{ outcome: 'pass' }, { name: 'tone', outcome: 'pass' }] }] });
  });
});
