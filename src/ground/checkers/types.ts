import type { TokenUsage } from '../../providers/chat-model.js';

/**
 * A claim checker reads a claim against its evidence for meaning, where the similarity score reads words: an
 * NLI / cross-encoder model from a local folder (nli.ts) or an LLM judge on any chat provider (llm.ts). Its
 * verdict is one input of the one status function (claimStatus in score.ts), beside the similarity band and
 * the detail check; it never shows as a second status.
 */

/** What the checker found: the evidence states (or implies) the claim, says nothing about it, or conflicts with it. */
export type CheckVerdict = 'entailed' | 'neutral' | 'contradicted';

export interface ClaimCheckItem {
  claim: string;
  /** The text the claim is checked against (the claim's best evidence). */
  evidence: string;
  /** The question the answer was given to (context for an LLM; an NLI model ignores it). */
  query: string;
}

export type ClaimCheck =
  | {
      verdict: CheckVerdict;
      /** The model's probability that the evidence entails the claim (NLI). */
      score?: number;
      /** Why (an LLM judge's reasons). */
      reasons?: string[];
    }
  | {
      /** The check could not be made for this claim (the judge's answer was not bound to its call, a timeout …). */
      error: string;
    };

export interface ClaimCheckBatch {
  /** One per item, in order. */
  checks: ClaimCheck[];
  /** Tokens the checker's calls spent (LLM). */
  usage?: TokenUsage;
  /** USD of those calls, when the model has a price. */
  costUsd?: number;
}

export interface ClaimChecker {
  /** e.g. "nli:nli-deberta-v3-xsmall" or "llm:openai:gpt-4o-mini" */
  readonly id: string;
  readonly kind: 'nli' | 'llm';
  /**
   * Checks each item. A problem with one item is that item's `error`; a throw means the checker cannot work at
   * all (the analysis is then unavailable: HTTP 503, exit 3). Honours `signal` (deadline, Ctrl-C).
   */
  check(items: readonly ClaimCheckItem[], signal?: AbortSignal): Promise<ClaimCheckBatch>;
  close?(): Promise<void>;
}

/** What a report says about the checker that ran: which, how many claims, what it spent. */
export interface CheckerSummary {
  id: string;
  kind: 'nli' | 'llm';
  /** Claims it was asked about (claims already contradicted by the detail check, or without evidence, are not). */
  checked: number;
  /** Claims it could not check (left out of every figure, like claims that could not be scored). */
  errors: number;
  usage?: TokenUsage;
  cost_usd?: number;
}
