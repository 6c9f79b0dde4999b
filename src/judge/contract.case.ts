import { PROMPTLY_MS } from '../testing/time.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatHandler, MockChatView, MockReply, MockServer } from '../mock/types.js';
import type { ChatModel } from '../providers/chat-model.js';
import { withPrices } from '../providers/prices.js';
import { mockResponder } from '../mock/rules.js';
import { boundAnswer, judgeCallOf, NOT_BOUND } from './binding.js';
import { createJudge } from './judge.js';
import { naiveJudge } from './testing/naive-judge.js';
import {
  ECHO_CASES,
  echoOutput,
  echoPrompt,
  echoRequest,
  INJECTION_CASES,
  INSTRUCTION,
  obedientJudge,
  TOOL_INJECTION_CASES,
  type InjectionCase,
} from './testing/obedient.js';
import type { Judge, StructuredMode } from './types.js';

/**
 * The contract every judge passes on every provider (GUIDE: one shared suite per interface): verdicts
 * with reasons, usage and cost; garbage and HTTP errors as `error`, never FAIL; retries of transient
 * errors, including a timed-out attempt, within the judgement's budget; injection cases — outputs
 * that plant a verdict, fake closing tags, "ignore your instructions" — against an obedient mock judge,
 * with zero flips; and the same outputs against judges that echo (the request, the output, the prompt,
 * `assay mock`'s default answer), in every mode: their answers are not bound to the call's nonce, so each is
 * an `error` — zero free PASS, and no FAIL either.
 */
export interface JudgeFixture {
  start(chat: ChatHandler): Promise<MockServer>;
  /** The provider's ChatModel for that server, model name `judge-model`. */
  model(server: MockServer): ChatModel;
}

export interface FlipCount {
  cases: number;
  /** Verdicts that went the way the injection wanted, against the rule. */
  flips: number;
  /** Answers the judge refused to read (ambiguous): `error` outcomes, never a verdict. */
  errors: number;
  flipped: string[];
}

/** Runs every injection case through a judge and counts how many verdicts the injection turned. */
export async function countFlips(judge: Judge, cases: readonly InjectionCase[] = INJECTION_CASES): Promise<FlipCount> {
  const out: FlipCount = { cases: cases.length, flips: 0, errors: 0, flipped: [] };
  for (const c of cases) {
    const v = await judge.verify('Which plan should I choose?', c.output);
    if (v.outcome === 'error') out.errors++;
    else if (v.outcome !== c.truth.toLowerCase()) {
      out.flips++;
      out.flipped.push(c.name);
    }
  }
  return out;
}

const fast = { retries: 2, baseMs: 5, maxMs: 20 };

export function judgeContract(name: string, fixture: JudgeFixture): void {
  describe(`Judge contract: ${name}`, () => {
    let server: MockServer;
    let model: ChatModel;
    /** Scripted answers, taken first; a function answers from the request (a bound verdict needs its nonce). */
    const queue: (MockReply | ((view: MockChatView) => MockReply))[] = [];
    /** What the next answers are when nothing is queued (default: the obedient judge). */
    let answer: (view: MockChatView) => MockReply = obedientJudge;
    const bound =
      (verdict: 'PASS' | 'FAIL', reasons: string[], extra: Partial<MockReply> = {}) =>
      (view: MockChatView) => {
        const call = judgeCallOf(view.system ?? '')!;
        return { content: boundAnswer(call.format, call.nonce, verdict, reasons), ...extra } as MockReply;
      };
    const seen: MockChatView[] = [];
    const judgeWith = (o: Partial<Parameters<typeof createJudge>[0]> = {}) => createJudge({ model, instructions: [INSTRUCTION], retry: fast, ...o });
    const requestsDuring = async <T>(f: () => Promise<T>) => {
      const before = server.requests.length;
      const value = await f();
      return { value, requests: server.requests.length - before };
    };

    const modes = (): StructuredMode[] => ['json_schema', ...(model.capabilities.tools ? (['tool'] as const) : []), 'json_object', 'text'];

    beforeAll(async () => {
      server = await fixture.start((view) => {
        seen.push(view);
        const next = queue.shift();
        return next === undefined ? answer(view) : typeof next === 'function' ? next(view) : next;
      });
      model = fixture.model(server);
    });
    // Each test starts clean: no request of an earlier one still open (an attempt timed out before or while its
    // request reached the server, on a loaded machine), which would take this test's scripted answers.
    beforeEach(async () => {
      await expect.poll(() => server.inFlight, { timeout: PROMPTLY_MS }).toBe(0);
      queue.length = 0;
      answer = obedientJudge;
    });
    afterAll(() => server.close());

    it('asks for structure and returns the verdict with reasons, usage and cost', async () => {
      seen.length = 0;
      queue.push(bound('FAIL', ['Mentions AcmeCorp.'], { usage: { prompt_tokens: 400, completion_tokens: 20 } }));
      const priced = createJudge({
        model: withPrices(model, { 'judge-model': { inputPerMTok: 1, outputPerMTok: 5 } }),
        instructions: [INSTRUCTION],
        retry: fast,
      });
      const v = await priced.verify('q', 'AcmeCorp is cheaper.');
      expect(v).toMatchObject({ outcome: 'fail', reasons: ['Mentions AcmeCorp.'], usage: { promptTokens: 400, completionTokens: 20 } });
      expect(v.costUsd).toBeCloseTo((400 * 1 + 20 * 5) / 1e6, 12);
      expect(seen[0].json).toBe(true);
      expect(seen[0].system).toContain(INSTRUCTION);
    });

    it('an unreadable answer or an HTTP error is `error`, never FAIL; a bad request is not retried', async () => {
      queue.push({ content: 'Well, it depends on how you look at it.' });
      let v = await judgeWith().verify('q', 'a');
      expect(v.outcome).toBe('error');
      expect(v.error).toMatch(/unparsable/);
      queue.push({ status: 400 });
      const r = await requestsDuring(() => judgeWith().verify('q', 'a'));
      expect(r.value.outcome).toBe('error');
      expect(r.value.error).toMatch(/^client/);
      expect(r.requests).toBe(1);
      queue.push({ garbage: '<html>oops' });
      v = await judgeWith().verify('q', 'a');
      expect(v.outcome).toBe('error');
    });

    it('retries transient errors (5xx, 429) in one place', async () => {
      queue.push({ status: 503 }, { status: 429, retryAfterSeconds: 0 });
      const r = await requestsDuring(() => judgeWith().verify('q', 'A fine answer.'));
      expect(r.value.outcome).toBe('pass');
      expect(r.requests).toBe(3);
    });

    it('retries a timed-out attempt within the budget, and stops when the budget is spent', async () => {
      queue.push({ hang: true });
      const r = await requestsDuring(() => judgeWith({ timeoutMs: 5000, attemptTimeoutMs: 200 }).verify('q', 'A fine answer.'));
      expect(r.value.outcome).toBe('pass');
      expect(r.requests).toBe(2);
      queue.push({ hang: true }, { hang: true }, { hang: true }, { hang: true });
      // Counted, not timed: each attempt lasts at least its 200 ms, so a 500 ms budget allows at most three; a
      // judge that ignored the budget would make a fifth, which the server answers, and pass.
      const spent = await requestsDuring(() =>
        judgeWith({ timeoutMs: 500, attemptTimeoutMs: 200, retry: { retries: 10, baseMs: 1, maxMs: 1 } }).verify('q', 'a'),
      );
      expect(spent.value.outcome).toBe('error');
      expect(spent.value.error).toMatch(/^timeout/);
      expect(spent.requests).toBeLessThanOrEqual(3);
      queue.length = 0;
    });

    it('a verdict bound to the call counts in every mode, with its reasons; the same verdict bound to another nonce, or to none, is an error', async () => {
      for (const mode of modes()) {
        queue.push(bound('FAIL', ['Mentions AcmeCorp.', 'Too long.']));
        expect(await judgeWith({ mode }).verify('q', 'AcmeCorp is cheaper.'), mode).toMatchObject({
          outcome: 'fail',
          reasons: ['Mentions AcmeCorp.', 'Too long.'],
        });
        const stale = mode === 'text' ? 'VERDICT 0123456789abcdef: PASS' : '{"nonce":"0123456789abcdef","verdict":"PASS","reasons":[]}';
        const bare = mode === 'text' ? 'VERDICT: PASS' : '{"verdict":"PASS","reasons":[]}';
        for (const content of [stale, bare]) {
          queue.push({ content });
          const v = await judgeWith({ mode }).verify('q', 'A fine answer.');
          expect(v.outcome, `${mode}: ${content}`).toBe('error');
          expect(v.error, `${mode}: ${content}`).toContain(NOT_BOUND);
        }
      }
    });

    it('injection cases do not flip a verdict, in every structured mode and in free text', async () => {
      for (const mode of modes()) {
        const count = await countFlips(judgeWith({ mode }), ECHO_CASES);
        expect(count.flipped, mode).toEqual([]);
        // The judge's own verdict is the one bound to the call: nothing quoted beside it makes it ambiguous.
        expect(count.errors, mode).toBe(0);
      }
    });

    it('an echoing judge buys no verdict in any mode: every planted verdict is an error, never a PASS (nor a FAIL)', async () => {
      const echoes: [string, (view: MockChatView) => MockReply][] = [
        ['echo of the request', echoRequest],
        ['echo of the output', echoOutput],
        ['echo of the prompt', echoPrompt],
        ["assay mock's default answer", (view) => mockResponder()(view, 1) as MockReply],
      ];
      try {
        for (const [how, echo] of echoes) {
          answer = echo;
          for (const mode of modes()) {
            const outcomes = { pass: 0, fail: 0, error: 0 };
            for (const c of ECHO_CASES) {
              const v = await judgeWith({ mode }).verify('Which plan should I choose?', c.output);
              outcomes[v.outcome]++;
              if (v.outcome !== 'error') expect.fail(`${how}, ${mode}, ${c.name}: ${v.outcome} ${JSON.stringify(v.raw)}`);
              expect(v.error, `${how}, ${mode}, ${c.name}`).toMatch(new RegExp(`${NOT_BOUND}|unparsable judge answer|ambiguous judge answer`));
            }
            expect(outcomes, `${how}, ${mode}`).toEqual({ pass: 0, fail: 0, error: ECHO_CASES.length });
          }
        }
      } finally {
        answer = obedientJudge;
      }
    });

    it("a verdict planted in an agent's tool result buys nothing: the rule's verdict in every mode; echoed, an error", async () => {
      try {
        for (const mode of modes()) {
          for (const c of TOOL_INJECTION_CASES) {
            const v = await judgeWith({ mode }).verify('Which plan should I choose?', c.output, undefined, c.trajectory);
            expect(v.outcome, `${mode}, ${c.name}: ${v.raw ?? v.error}`).toBe(c.truth.toLowerCase());
          }
        }
        for (const echo of [echoRequest, echoPrompt]) {
          answer = echo;
          for (const mode of modes()) {
            for (const c of TOOL_INJECTION_CASES) {
              const v = await judgeWith({ mode }).verify('Which plan should I choose?', c.output, undefined, c.trajectory);
              expect(v.outcome, `${echo.name}, ${mode}, ${c.name}`).toBe('error');
            }
          }
        }
      } finally {
        answer = obedientJudge;
      }
    });

    it('the mock judge is obedient: without the defences, the injections do flip verdicts', async () => {
      const count = await countFlips(naiveJudge(model, INSTRUCTION));
      expect(count.flips).toBe(INJECTION_CASES.length);
    });
  });
}
