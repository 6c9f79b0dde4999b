import { judgeMakerFromConfig, type VerifierContext } from '../../judge/config.js';
import type { Judge, JudgeVerdict } from '../../judge/types.js';
import type { ClaimCheck, ClaimCheckBatch, ClaimCheckItem, ClaimChecker } from './types.js';

/**
 * The LLM claim checker: an LLM judge (src/judge, on any of the chat providers) asked, claim by claim, whether
 * the evidence supports the claim. It is the verifiers' judge, unchanged: the claim and its evidence are data
 * between nonce-tagged delimiters, and a verdict counts only when it carries the call's nonce (binding.ts), so
 * a claim that plants a verdict ("… VERDICT: PASS", a JSON object) gets an `error` for that claim, never a
 * pass. PASS is "entailed"; FAIL is "contradicted" when the judge's first reason starts with CONTRADICTED, and
 * "not stated" (neutral) otherwise. Tokens and cost are added up per analysis.
 */

export const CLAIM_CHECK_INSTRUCTIONS: readonly string[] = [
  'The OUTPUT is one claim taken from an answer. The INPUT holds the question the answer was given to and the EVIDENCE: a passage of the knowledge base.',
  'PASS only if the evidence states the claim or directly implies it, every number, date, quantity and name of the claim included. Judge by the evidence alone, not by what you know.',
  'Otherwise FAIL. On FAIL, begin the first reason with "CONTRADICTED:" when the evidence states something that conflicts with the claim (another number, date, name or fact), or with "NOT STATED:" when the evidence does not say it.',
];

const CONTRADICTED = /^\W*contradict/i;

export interface LlmCheckerOptions {
  /** A judge built with CLAIM_CHECK_INSTRUCTIONS (see judgeMakerFromConfig / createJudge). */
  judge: Judge;
  /** Claims checked at once (default 4). */
  concurrency?: number;
}

/** The judge's verdict as a claim check: PASS entailed; FAIL contradicted or not stated; an error stays an error. */
export function checkOfVerdict(v: JudgeVerdict): ClaimCheck {
  if (v.outcome === 'error') return { error: v.error ?? 'the judge gave no verdict' };
  if (v.outcome === 'pass') return { verdict: 'entailed', ...(v.reasons.length ? { reasons: v.reasons } : {}) };
  return { verdict: CONTRADICTED.test(v.reasons[0] ?? '') ? 'contradicted' : 'neutral', reasons: v.reasons };
}

/** What the judge reads as its INPUT: the question, then the evidence. */
export function claimCheckInput(item: ClaimCheckItem): string {
  return `QUESTION:\n${item.query}\n\nEVIDENCE:\n${item.evidence}`;
}

export function createLlmClaimChecker(options: LlmCheckerOptions): ClaimChecker {
  const { judge } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  return {
    id: `llm:${judge.id}`,
    kind: 'llm',
    async check(items: readonly ClaimCheckItem[], signal?: AbortSignal): Promise<ClaimCheckBatch> {
      const verdicts: JudgeVerdict[] = new Array(items.length);
      let next = 0;
      const lane = async () => {
        while (next < items.length && !signal?.aborted) {
          const i = next++;
          verdicts[i] = await judge.verify(claimCheckInput(items[i]), items[i].claim, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
      signal?.throwIfAborted();
      const usage = { promptTokens: 0, completionTokens: 0 };
      let costUsd: number | undefined;
      for (const v of verdicts) {
        usage.promptTokens += v.usage?.promptTokens ?? 0;
        usage.completionTokens += v.usage?.completionTokens ?? 0;
        if (v.costUsd !== undefined) costUsd = (costUsd ?? 0) + v.costUsd;
      }
      return {
        checks: verdicts.map(checkOfVerdict),
        ...(usage.promptTokens + usage.completionTokens > 0 ? { usage } : {}),
        ...(costUsd !== undefined ? { costUsd } : {}),
      };
    },
  };
}

/**
 * The LLM claim checker of a `judge:` value (a provider object, as a verifier's judge), checked now: a bad value
 * or a missing key is a usage error naming `ctx.path`. Calls are priced (`ctx.prices`, else the built-in table).
 */
export function llmClaimCheckerFromConfig(raw: unknown, ctx: VerifierContext = {}, concurrency?: number): ClaimChecker {
  const make = judgeMakerFromConfig(raw, ctx, 'grounding:judge');
  return createLlmClaimChecker({
    judge: make({ instructions: CLAIM_CHECK_INSTRUCTIONS, ...(ctx.timeoutMs ? { timeoutMs: ctx.timeoutMs } : {}) }),
    concurrency,
  });
}
