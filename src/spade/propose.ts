/**
 * Subsumption pairs proposed by an LLM (SPADE §3.3.2): two calls per pipeline, as in the paper —
 * first every assertion in one prompt with a request to list as many subsumptions as it can find,
 * then a second call turning that answer into a parseable list of pairs. The pairs are then pruned
 * by `pruneSubsumptions` (counterexamples, FFR skip, transitivity).
 */
import * as z from 'zod';
import type { SpadeLlm } from './llm.js';
import type { CandidateAssertion, SubsumptionPair } from './types.js';

const pairsSchema = z.strictObject({ pairs: z.array(z.strictObject({ subsumer: z.string(), subsumed: z.string() })) });

const describe = (c: CandidateAssertion) =>
  `- ${c.id}: ${c.description} [${c.form.kind === 'llm' ? `asks: ${c.form.question}` : c.form.kind === 'js' ? `js: ${c.form.source}` : `check: ${JSON.stringify(c.form.check)}`}]`;

export const SUBSUMPTION_SYSTEM = [
  'You analyse data-quality assertions on LLM outputs. Assertion A subsumes assertion B when every output',
  'that B rejects is also rejected by A (A is at least as strict as B on what B checks).',
].join(' ');

export async function proposeSubsumptions(llm: SpadeLlm, candidates: CandidateAssertion[]): Promise<SubsumptionPair[]> {
  if (candidates.length < 2) return [];
  const list = candidates.map(describe).join('\n');
  const free = await llm.text(
    SUBSUMPTION_SYSTEM,
    `Assertions:\n${list}\n\nList as many subsumption relationships between these assertions as you can identify, with a reason for each.`,
  );
  const r = await llm.json(
    'subsumptions',
    pairsSchema,
    SUBSUMPTION_SYSTEM,
    `Assertion names: ${candidates.map((c) => c.id).join(', ')}\n\nTurn this analysis into {"pairs": [{"subsumer": name, "subsumed": name}, ...]}:\n${free}`,
  );
  const ids = new Set(candidates.map((c) => c.id));
  return r.pairs.filter((p) => ids.has(p.subsumer) && ids.has(p.subsumed) && p.subsumer !== p.subsumed);
}
