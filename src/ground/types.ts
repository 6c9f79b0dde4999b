import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import type { CheckerSummary, CheckVerdict } from './checkers/types.js';

/** Cosine-similarity thresholds; they belong to the embedder, since cosine scales differ between embedders. */
export interface SupportThresholds {
  /** support_score ≥ strong → STRONG (design: 0.75) */
  strong: number;
  /** support_score ≥ weak → WEAK (design: 0.50); below → UNSUPPORTED */
  weak: number;
}

/** Turns texts into L2-normalised vectors. Every adapter passes the shared embedder contract suite. */
export interface Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly thresholds: SupportThresholds;
  /** One L2-normalised vector per text, packed row-major into one Float32Array of texts.length × dimension. */
  embed(texts: string[]): Promise<Float32Array>;
  /** Token count with the embedder's own tokenizer (for chunking). */
  countTokens(text: string): number;
}

/** The longest query and answer one analysis takes (POST /analyze, analyze --answer and --answers): the
 * claim extraction and retrieval of a 20 MB answer took 24 s and 2.2 GB (issue 30). */
export const MAX_QUERY_CHARS = 10_000;
export const MAX_ANSWER_CHARS = 100_000;

/** The design's request to POST /analyze. */
export interface AnalyzeRequest {
  query: string;
  /** Given: audit it (post-hoc). Absent: generate it with the configured LLM, then audit. */
  answer?: string;
  /** Evidence passages retrieved per claim (default 5). */
  top_k?: number;
}

/**
 * STRONG / WEAK / UNSUPPORTED by similarity and the detail check; CONTRADICTED when evidence that matches
 * the claim states one of its numbers, quantities, dates or names differently (counted as unsupported).
 */
export type SupportStatus = 'STRONG' | 'WEAK' | 'UNSUPPORTED' | 'CONTRADICTED';

export interface EvidenceRef {
  chunk_id: string;
  source: string;
  text: string;
  score: number;
}

export interface ClaimAnalysis {
  claim: string;
  support_score: number;
  status: SupportStatus;
  /** Best evidence, so every score is traceable; null when nothing was retrieved. */
  evidence: EvidenceRef | null;
  /** Numbers, dates or named entities of the claim its best evidence does not state. */
  unverified_details?: string[];
  /** With status CONTRADICTED: each detail of the claim and what the evidence states instead ("60 days" / "14 days"). */
  contradicted_details?: { claim: string; evidence: string }[];
  /** The claim checker's verdict (NLI model or LLM judge), when one checked this claim; claimStatus has used it. */
  check?: { verdict: CheckVerdict; score?: number; reasons?: string[] };
  /** Set when the claim could not be scored (e.g. its embedding failed); such claims are left out of every figure. */
  error?: string;
}

/** The design's response JSON plus traceability fields. Field names follow the design document. */
export interface GroundingReport {
  query: string;
  answer: string;
  confidence_score: number;
  hallucination_risk: 'LOW' | 'MEDIUM' | 'HIGH';
  evidence_coverage: 'FULL' | 'PARTIAL' | 'NONE';
  unsupported_claims: string[];
  claims_analysis: ClaimAnalysis[];
  /** Low similarity across all claims. */
  hallucination_flag: boolean;
  /** Embedding (or the claim checker) failed for part of the analysis. */
  partial: boolean;
  /** The claim checker that ran, how many claims it checked, and what its calls cost. */
  checker?: CheckerSummary;
  [extra: string]: unknown;
}

const GROUNDING_REQUEST_ERROR = Symbol.for('assay.GroundingRequestError');

/** A problem with the request itself; the HTTP layer maps it to its status (400, or 422 for an empty answer). */
export class GroundingRequestError extends AssayError {
  constructor(
    message: string,
    readonly status: 400 | 422,
    readonly field?: string,
  ) {
    super(message, ExitCode.USAGE);
    this.name = 'GroundingRequestError';
    setMarker(this, GROUNDING_REQUEST_ERROR);
  }

  static override isInstance(err: unknown): err is GroundingRequestError {
    return hasMarker(err, GROUNDING_REQUEST_ERROR);
  }
}

const GROUNDING_UNAVAILABLE_ERROR = Symbol.for('assay.GroundingUnavailableError');

/** The analysis could not be done now (the LLM failed, or embedding failed for every claim): HTTP 503. */
export class GroundingUnavailableError extends AssayError {
  readonly status = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'GroundingUnavailableError';
    setMarker(this, GROUNDING_UNAVAILABLE_ERROR);
  }

  static override isInstance(err: unknown): err is GroundingUnavailableError {
    return hasMarker(err, GROUNDING_UNAVAILABLE_ERROR);
  }
}

/** What the HTTP service needs from the grounding engine. */
export interface GroundingEngine {
  analyze(request: AnalyzeRequest, signal?: AbortSignal): Promise<GroundingReport>;
}
