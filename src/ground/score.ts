import type { CheckVerdict } from './checkers/types.js';
import type { Conflict } from './claims/details.js';
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
 * unsupported only claims below 0.50. One function, claimStatus, decides a claim's status from its
 * similarity and its detail check together; everything else (coverage, risk, every view) reads that status:
 * - CONTRADICTED: evidence that matches the claim states one of its details differently. Counted as
 *   unsupported, and a single one makes the risk at least MEDIUM;
 * - a detail the evidence does not mention makes the claim UNSUPPORTED (when the detail check counts).
 * Claims whose embedding failed are errors: left out of every figure and the report is marked partial.
 */

export interface ScoredClaim {
  claim: string;
  /** Max cosine over the retrieved evidence; null when the claim could not be scored (embedding failed). */
  support: number | null;
  /** Whether any evidence was retrieved for the claim. */
  evidence: boolean;
  /** Details (numbers, dates, names) its evidence does not mention. */
  unverified: string[];
  /** Details its evidence states differently. */
  conflicts?: Conflict[];
  /** A claim checker's verdict on the claim against its evidence (NLI model or LLM judge), when one ran. */
  checked?: CheckVerdict;
  error?: string;
}

export type DetailMode = 'count' | 'report' | 'off';

export interface AggregateOptions {
  thresholds: SupportThresholds;
  /**
   * 'count' (default): a detail missing from the evidence makes a claim unsupported; 'report': missing details are
   * listed only; 'off': no detail check. Contradicted details decide the status in 'count' and 'report'.
   */
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
  /** Each claim's status, from claimStatus. */
  statuses: SupportStatus[];
  supported: boolean[];
  contradicted: number;
  unsupported_claims: string[];
  scored: number;
}

/** The similarity band of a support score alone (the design's three levels); claimStatus adds the detail check. */
export function classifySupport(score: number, t: SupportThresholds): 'STRONG' | 'WEAK' | 'UNSUPPORTED' {
  if (score >= t.strong) return 'STRONG';
  if (score >= t.weak) return 'WEAK';
  return 'UNSUPPORTED';
}

/**
 * A claim's status: the one function that decides it. Similar evidence that states a detail differently
 * makes it CONTRADICTED; a detail the evidence does not mention makes it UNSUPPORTED (in 'count' mode);
 * otherwise its similarity band. A claim with low similarity is UNSUPPORTED whatever its details: the
 * evidence does not otherwise match it, so a differing number there is no contradiction.
 */
export function claimStatus(
  c: Pick<ScoredClaim, 'support' | 'unverified' | 'conflicts' | 'checked'>,
  thresholds: SupportThresholds,
  details: DetailMode = 'count',
): SupportStatus {
  if (c.support === null) return 'UNSUPPORTED';
  const band = classifySupport(c.support, thresholds);
  if (c.checked !== undefined) return checkedStatus(c, band, details);
  if (details === 'off' || band === 'UNSUPPORTED') return band;
  if (c.conflicts?.length) return 'CONTRADICTED';
  if (details === 'count' && c.unverified.length > 0) return 'UNSUPPORTED';
  return band;
}

/**
 * With a claim checker's verdict (NLI or LLM), which reads meaning where similarity reads words: a figure the
 * similar evidence states differently is still CONTRADICTED (the detail check is exact where models blur
 * numbers); otherwise the checker decides support — contradicted, not stated (UNSUPPORTED), or entailed, which
 * a paraphrase with low similarity can be — and a detail the evidence leaves out still counts in 'count' mode.
 * An entailed claim is STRONG when its similarity is, else WEAK.
 */
function checkedStatus(c: Pick<ScoredClaim, 'unverified' | 'conflicts' | 'checked'>, band: SupportStatus, details: DetailMode): SupportStatus {
  if (details !== 'off' && band !== 'UNSUPPORTED' && c.conflicts?.length) return 'CONTRADICTED';
  if (c.checked === 'contradicted') return 'CONTRADICTED';
  if (c.checked === 'neutral') return 'UNSUPPORTED';
  if (details === 'count' && c.unverified.length > 0) return 'UNSUPPORTED';
  return band === 'STRONG' ? 'STRONG' : 'WEAK';
}

/** Whether a claim checker's verdict could change the claim's status: not when similar evidence already contradicts a detail. */
export function checkerDecides(
  c: Pick<ScoredClaim, 'support' | 'evidence' | 'conflicts'>,
  thresholds: SupportThresholds,
  details: DetailMode = 'count',
): boolean {
  if (c.support === null || !c.evidence) return false;
  return !(details !== 'off' && classifySupport(c.support, thresholds) !== 'UNSUPPORTED' && c.conflicts?.length);
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
  const statuses = claims.map((c) => claimStatus(c, options.thresholds, details));
  const supported = statuses.map((s, i) => claims[i].support !== null && (s === 'STRONG' || s === 'WEAK'));
  const nSupported = supported.filter(Boolean).length;
  const contradicted = statuses.filter((s) => s === 'CONTRADICTED').length;
  const coverage = scored.length ? nSupported / scored.length : 0;
  const avg = scored.length ? scored.reduce((s, c) => s + (c.support as number), 0) / scored.length : 0;
  const confidence = confidenceScore(coverage, avg);
  // Design §5: no evidence retrieved → force HIGH; low similarity across all claims → flag hallucination.
  const noEvidence = scored.length > 0 && scored.every((c) => !c.evidence);
  const flag = scored.length > 0 && scored.every((c) => (c.support as number) < options.thresholds.weak);
  let risk = noEvidence || scored.length === 0 ? 'HIGH' : classifyRisk(confidence);
  // a stated fact the evidence contradicts is never a low risk, however well the rest is supported
  if (contradicted > 0 && risk === 'LOW') risk = 'MEDIUM';
  return {
    coverage,
    avg_similarity: avg,
    confidence_score: confidence,
    hallucination_risk: risk,
    evidence_coverage: nSupported === 0 ? 'NONE' : nSupported === scored.length ? 'FULL' : 'PARTIAL',
    hallucination_flag: flag,
    no_evidence: noEvidence,
    partial: scored.length < claims.length,
    statuses,
    supported,
    contradicted,
    unsupported_claims: claims.filter((c, i) => c.support !== null && !supported[i]).map((c) => c.claim),
    scored: scored.length,
  };
}
