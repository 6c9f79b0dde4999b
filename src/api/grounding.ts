/**
 * `assay/grounding`: the grounding audit — knowledge bases, embedders, the engine that analyses an answer
 * claim by claim, the same engine in a pool of worker threads, and claim checkers. Listed in docs/api.md.
 */
export { createGroundingEngine, type GroundingEngineOptions, type OpenGroundingEngine } from '../ground/service.js';
export { createGroundingPool, PoolOverloadedError, WorkerCrashedError, type GroundingPool, type GroundingPoolOptions } from '../ground/pool/grounding.js';
export { ingest, type IngestOptions, type IngestSummary } from '../ground/kb/ingest.js';
export { createEmbedder, type EmbedderConfig } from '../ground/embedders/resolve.js';
export { createNliChecker, type NliCheckerOptions } from '../ground/checkers/nli.js';
export { createLlmClaimChecker, type LlmCheckerOptions } from '../ground/checkers/llm.js';
export { createMiniCheckChecker, createOllamaMiniCheckChecker, type MiniCheckOptions } from '../ground/checkers/minicheck.js';
export {
  auditedClaims,
  gradingOrder,
  groundingGrading,
  readClaimGrades,
  type AuditedClaim,
  type ClaimGrade,
  type GroundingGrading,
} from '../ground/grading.js';
export type { ClaimChecker, ClaimCheck, ClaimCheckItem, ClaimCheckBatch, CheckVerdict, CheckerSummary } from '../ground/checkers/types.js';
export {
  GroundingRequestError,
  GroundingUnavailableError,
  type AnalyzeRequest,
  type ClaimAnalysis,
  type GroundingEngine,
  type GroundingReport,
} from '../ground/types.js';
