import { checkerDecides, type DetailMode, type ScoredClaim } from '../score.js';
import { GroundingUnavailableError, type SupportThresholds } from '../types.js';
import type { CheckerSummary, ClaimCheck, ClaimChecker } from './types.js';
import { thrownMessage } from '../../errors.js';

/** Each claim's evidence as the checker reads it: its best window (a sentence or two) and that window's chunk. */
export interface CheckEvidence {
  window: string;
  chunk: string;
}

/**
 * Asks the checker about every claim whose status it could change (scored, with evidence, not already
 * contradicted by a figure), then writes its verdict on the claim (`checked`) for claimStatus to use. A claim
 * the checker could not check becomes an error claim: left out of every figure, the report partial. A checker
 * that fails as a whole makes the analysis unavailable (503 / exit 3), never a verdict.
 */
export async function applyChecker(
  checker: ClaimChecker,
  scored: ScoredClaim[],
  evidence: (CheckEvidence | null)[],
  query: string,
  o: { thresholds: SupportThresholds; details: DetailMode; signal?: AbortSignal },
): Promise<{ summary: CheckerSummary; checks: (ClaimCheck | undefined)[] }> {
  const asked = scored.map((c, i) => (evidence[i] && checkerDecides(c, o.thresholds, o.details) ? i : -1)).filter((i) => i >= 0);
  // An NLI model reads a premise of a few hundred word pieces: the best window; an LLM reads the whole chunk.
  const textOf = (e: CheckEvidence) => (checker.kind === 'nli' ? e.window : e.chunk);
  const checks: (ClaimCheck | undefined)[] = scored.map(() => undefined);
  const summary: CheckerSummary = { id: checker.id, kind: checker.kind, checked: asked.length, errors: 0 };
  if (asked.length === 0) return { summary, checks };
  let batch;
  try {
    batch = await checker.check(
      asked.map((i) => ({ claim: scored[i].claim, evidence: textOf(evidence[i]!), query })),
      o.signal,
    );
  } catch (err) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw new GroundingUnavailableError(`the claim checker ${checker.id} failed: ${thrownMessage(err)}`, { cause: err });
  }
  if (batch.checks.length !== asked.length)
    throw new GroundingUnavailableError(`the claim checker ${checker.id} answered ${batch.checks.length} checks for ${asked.length} claims`);
  asked.forEach((i, j) => {
    const check = batch.checks[j];
    checks[i] = check;
    if ('error' in check) {
      summary.errors++;
      scored[i] = { ...scored[i], support: null, error: `the claim checker ${checker.id} could not check this claim: ${check.error}` };
    } else scored[i] = { ...scored[i], checked: check.verdict };
  });
  // Nothing left to decide on: no figure may rest on zero claims.
  if (scored.every((c) => c.support === null)) {
    const first = batch.checks.find((c) => 'error' in c) as { error: string } | undefined;
    throw new GroundingUnavailableError(`the claim checker ${checker.id} could not check any claim (${first?.error ?? 'no answer'})`);
  }
  if (batch.usage) summary.usage = batch.usage;
  if (batch.costUsd !== undefined) summary.cost_usd = batch.costUsd;
  return { summary, checks };
}
