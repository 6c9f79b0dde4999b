import type { GroundingReport, SupportStatus, SupportThresholds } from './types.js';

/**
 * Scoring and aggregation exactly as the design states (§3.4–3.6, §5):
 *   support_score  = max_i cosine(claim, evidence_i)
 *   status         STRONG ≥ strong (0.75), WEAK ≥ weak (0.50), else UNSUPPORTED (thresholds per embedder)
 *   coverage       = supported claims / total claims
 *   avg_similarity = mean(support_score)
 *   confidence     = 0.6 × coverage + 0.4 × avg_similarity
 *   risk           LOW ≥ 0.80, MEDIUM ≥ 0.60, HIGH below
 * "Supported" means STRONG or WEAK: the design calls 0.50–0.75 "weakly supported" and lists as
 * unsupported only claims below 0.50. A claim whose numbers, dates or names are absent from its best
 * evidence is not counted as supported (when the detail check counts), so it lowers coverage and risk.
 * Claims whose embedding failed are errors: left out of every figure and the report is marked partial.
 */

export interface ScoredClaim {
  claim: string;
  /** Max cosine over the retrieved evidence; null when the claim could not be scored (embedding failed). */
  support: number | null;
  /** Whether any evidence was retrieved for the claim. */
  evidence: boolean;
  unverified: string[];
  error?: string;
}

export type DetailMode = 'count' | 'report' | 'off';

export interface AggregateOptions {
  thresholds: SupportThresholds;
  /** 'count' (default): unverified details make a claim unsupported; 'report': listed only; 'off': not checked. */
  details?: DetailMode;
}

export interface Aggregate {
  coverage: number;
  avg_similarity: number;
  confidence_score: number;
  hallucination_risk: GroundingReport['hallucination_risk'];
  evidence_coverage: GroundingReport['evidence_coverage'];
  hallucination_flag: boolean;
  no_evidence: boolean;
  partial: boolean;
  supported: boolean[];
  unsupported_claims: string[];
  scored: number;
}

export function classifySupport(score: number, t: SupportThresholds): SupportStatus {
  if (score >= t.strong) return 'STRONG';
  if (score >= t.weak) return 'WEAK';
  return 'UNSUPPORTED';
}

/** Design §3.6; the tiny tolerance keeps 0.6 × 1 + 0.4 × 0.5 = 0.7999999… at 0.80. */
export function classifyRisk(confidence: number): 'LOW' | 'MEDIUM' | 'HIGH' {
  const c = confidence + 1e-9;
  if (c >= 0.8) return 'LOW';
  if (c >= 0.6) return 'MEDIUM';
  return 'HIGH';
}

export function confidenceScore(coverage: number, avgSimilarity: number): number {
  return 0.6 * coverage + 0.4 * avgSimilarity;
}

export function aggregate(claims: ScoredClaim[], options: AggregateOptions): Aggregate {
  const details = options.details ?? 'count';
  const scored = claims.filter((c) => c.support !== null);
  const supported = claims.map(
    (c) => c.support !== null && classifySupport(c.support, options.thresholds) !== 'UNSUPPORTED' && !(details === 'count' && c.unverified.length > 0),
  );
  const nSupported = supported.filter(Boolean).length;
  const coverage = scored.length ? nSupported / scored.length : 0;
  const avg = scored.length ? scored.reduce((s, c) => s + (c.support as number), 0) / scored.length : 0;
  const confidence = confidenceScore(coverage, avg);
  // Design §5: no evidence retrieved → force HIGH; low similarity across all claims → flag hallucination.
  const noEvidence = scored.length > 0 && scored.every((c) => !c.evidence);
  const flag = scored.length > 0 && scored.every((c) => (c.support as number) < options.thresholds.weak);
  return {
    coverage,
    avg_similarity: avg,
    confidence_score: confidence,
    hallucination_risk: noEvidence || scored.length === 0 ? 'HIGH' : classifyRisk(confidence),
    evidence_coverage: nSupported === 0 ? 'NONE' : nSupported === scored.length ? 'FULL' : 'PARTIAL',
    hallucination_flag: flag,
    no_evidence: noEvidence,
    partial: scored.length < claims.length,
    supported,
    unsupported_claims: claims.filter((c, i) => c.support !== null && !supported[i]).map((c) => c.claim),
    scored: scored.length,
  };
}
