import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHandler, MockChatView, MockReply, MockServer } from '../mock/types.js';
import type { ChatModel } from '../providers/chat-model.js';
import { withPrices } from '../providers/prices.js';
import { createJudge } from './judge.js';
import { naiveJudge } from './testing/naive-judge.js';
import { INJECTION_CASES, INSTRUCTION, obedientJudge, type InjectionCase } from './testing/obedient.js';
import type { Judge, StructuredMode } from './types.js';

/**
 * The contract every judge passes on every provider (GUIDE: one shared suite per interface): verdicts
 * with reasons, usage and cost; garbage and HTTP errors as `error`, never FAIL; retries of transient
 * errors, including a timed-out attempt, within the judgement's budget; and injection cases — outputs
 * that plant a verdict, fake closing tags, "ignore your instructions" — against an obedient mock judge,
 * with zero flips.
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
    const queue: MockReply[] = [];
    const seen: MockChatView[] = [];
    const judgeWith = (o: Partial<Parameters<typeof createJudge>[0]> = {}) => createJudge({ model, instructions: [INSTRUCTION], retry: fast, ...o });
    const requestsDuring = async <T>(f: () => Promise<T>) => {
      const before = server.requests.length;
      const value = await f();
      return { value, requests: server.requests.length - before };
    };

    beforeAll(async () => {
      server = await fixture.start((view) => {
        seen.push(view);
        return queue.shift() ?? obedientJudge(view);
      });
      model = fixture.model(server);
    });
    afterAll(() => server.close());

    it('asks for structure and returns the verdict with reasons, usage and cost', async () => {
      seen.length = 0;
      queue.push({ content: '{"verdict":"FAIL","reasons":["Mentions AcmeCorp."]}', usage: { prompt_tokens: 400, completion_tokens: 20 } });
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
      const t0 = performance.now();
      const spent = await judgeWith({ timeoutMs: 500, attemptTimeoutMs: 200, retry: { retries: 10, baseMs: 1, maxMs: 1 } }).verify('q', 'a');
      expect(spent.outcome).toBe('error');
      expect(spent.error).toMatch(/^timeout/);
      expect(performance.now() - t0).toBeLessThan(2000);
      queue.length = 0;
    });

    it('injection cases do not flip a verdict, in every structured mode and in free text', async () => {
      const modes: StructuredMode[] = ['json_schema', ...(model.capabilities.tools ? (['tool'] as const) : []), 'json_object', 'text'];
      for (const mode of modes) {
        const count = await countFlips(judgeWith({ mode }));
        expect(count.flipped, mode).toEqual([]);
        // A structured answer is one object: nothing quoted beside it can make it ambiguous. (json_object,
        // JSON without a schema, is not a mode every provider has: where it is ignored, the answer is prose.)
        if (mode === 'json_schema' || mode === 'tool') expect(count.errors, mode).toBe(0);
      }
    });

    it('the mock judge is obedient: without the defences, the injections do flip verdicts', async () => {
      const count = await countFlips(naiveJudge(model, INSTRUCTION));
      expect(count.flips).toBe(INJECTION_CASES.length);
    });
  });
}
