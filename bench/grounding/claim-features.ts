import { words } from '../../src/ground/claims/text.js';
import { STOPWORDS, stem } from '../../src/ground/claims/tokens.js';

/**
 * Features of one claim against its best evidence, for the learned detector that was tried and not adopted (detector-fit.ts; docs/grounding.md, "A learned detector").
 * Pure: the texts and the KB's word idf come in, numbers go out. Coverage is over the claim's content
 * words (stop words and one-letter words left out), compared by stem; numbers are the detail check's job.
 */

export interface ClaimEvidence {
  claim: string;
  /** Cosine of the claim with its best window (the current support score). */
  support: number;
  /** The best window (sentence) and the chunk holding it; empty when nothing was retrieved. */
  window: string;
  chunk: string;
  /** Claims in the answer. */
  claims: number;
  /** Details (numbers, dates, names) of the claim its evidence does not state, from the detail check. */
  missing?: number;
}

export const FEATURE_NAMES = [
  'support',
  'idf_coverage_window',
  'idf_coverage_chunk',
  'bigram_coverage_chunk',
  'unmatched_words',
  'negation_mismatch',
  'claim_words',
  'answer_claims',
  'missing_details',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nor', 'neither', 'without', 'cannot', 'nobody', 'nothing']);

const contentStems = (text: string) => words(text).filter((w) => /^\p{L}/u.test(w) && w.length > 1 && !STOPWORDS.has(w));
const negated = (ws: string[]) => ws.some((w) => NEGATIONS.has(w) || w.endsWith("n't") || w.endsWith('n’t'));

/** IDF-weighted share of the claim's content words found in `evidence` (1 for a claim with none). */
function idfCoverage(claimWords: string[], evidence: Set<string>, idf: (w: string) => number): number {
  let all = 0;
  let found = 0;
  for (const w of claimWords) {
    const x = idf(w);
    all += x;
    if (evidence.has(stem(w))) found += x;
  }
  return all > 0 ? found / all : 1;
}

export function claimFeatures(c: ClaimEvidence, idf: (word: string) => number = () => 1): Record<FeatureName, number> {
  const cw = contentStems(c.claim);
  const windowWords = contentStems(c.window);
  const chunkWords = contentStems(c.chunk);
  const inWindow = new Set(windowWords.map(stem));
  const inChunk = new Set(chunkWords.map(stem));
  const stems = cw.map(stem);
  // adjacent content words of the claim that stand adjacent in the chunk too (stop words skipped on both sides)
  const chunkBigrams = new Set(chunkWords.map((w, i) => (i ? stem(chunkWords[i - 1]) + ' ' + stem(w) : '')));
  const claimBigrams = stems.slice(1).map((s, i) => stems[i] + ' ' + s);
  return {
    support: c.support,
    idf_coverage_window: idfCoverage(cw, inWindow, idf),
    idf_coverage_chunk: idfCoverage(cw, inChunk, idf),
    bigram_coverage_chunk: claimBigrams.length ? claimBigrams.filter((b) => chunkBigrams.has(b)).length / claimBigrams.length : 1,
    unmatched_words: Math.log1p(stems.filter((s) => !inChunk.has(s)).length),
    negation_mismatch: negated(words(c.claim)) !== negated(words(c.window)) ? 1 : 0,
    claim_words: Math.log1p(cw.length),
    answer_claims: Math.log(Math.max(1, c.claims)),
    missing_details: Math.log1p(c.missing ?? 0),
  };
}
