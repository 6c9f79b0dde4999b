import { describeConflict } from './claims/details.js';
import type { ClaimAnalysis } from './types.js';

/** The reasons of a claim's status, as the CLI prints them: what contradicts it, what the evidence leaves out, what the checker said. */
export function claimReasons(c: ClaimAnalysis): string[] {
  const out: string[] = [];
  if (c.error) out.push(`error: ${c.error}`);
  for (const x of c.contradicted_details ?? []) out.push(`contradicted: ${describeConflict(x)}`);
  if (c.unverified_details?.length) out.push(`not in evidence: ${c.unverified_details.join(', ')}`);
  if (c.check) {
    const p = c.check.score !== undefined ? ` (entailment ${c.check.score.toFixed(2)})` : '';
    out.push(`checker: ${c.check.verdict}${p}${c.check.reasons?.length ? ` — ${c.check.reasons.join('; ')}` : ''}`);
  }
  return out;
}
