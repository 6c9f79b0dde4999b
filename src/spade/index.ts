/**
 * SPADE (the package root's `spade` namespace): assertions synthesized from prompt version histories, and a
 * minimal set chosen by integer programming — the steps of `assay spade`, for use from code. Listed in
 * docs/api.md; the solver, benchmark and report helpers behind them are internal.
 */
export {
  TAXONOMY,
  type AssertionForm,
  type CandidateAssertion,
  type EvaluationMatrix,
  type Label,
  type LabelledExample,
  type SubsumptionPair,
  type TaxonomyCategory,
} from './types.js';
export { diffVersions, promptDeltas, type PromptDelta, type PromptVersion } from './deltas.js';
export { gitVersions, parseVersions, readVersionsFile } from './versions.js';
export { createSpadeLlm, llmFromOptions, usageLine, type LlmChoice, type SpadeLlm, type SpadeLlmOptions, type SpadeUsage } from './llm.js';
export { categoriseDelta, evaluateTaxonomy, type AnnotatedDelta, type CategorisedSentence, type TaxonomyAgreement } from './taxonomy.js';
export { synthesizeCandidates, type Criterion, type SynthesisResult } from './synthesize.js';
export { proposeSubsumptions } from './propose.js';
export { evaluateCandidates, type EvaluateOptions, type JudgeSettings } from './evaluate.js';
export { assertionStats, matrixFromResults, setMetrics, type AssertionStats, type SetMetrics } from './metrics.js';
export { select, type Method, type SelectionResult, type SelectOptions, type SubObjective } from './select.js';
export { pruneSubsumptions, subsumptionRoots, type PruneReport, type RootsResult } from './subsumption.js';
export { selectionToConfig, type ExportOptions, type ReplayExport } from './export.js';
export { gradedExamples, type GradedExamples } from './graded.js';
export { assertionAgreement, setAgreement, type AssertionAgreement } from './agreement.js';
export { matrixToJson, readCandidates, readExamples, readMatrix, readSubsumptions } from './io.js';
