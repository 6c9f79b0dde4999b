/**
 * `assay/spade`: assertions synthesized from prompt version histories, and a minimal set chosen by integer
 * programming — the steps of `assay spade`, for use from code. Listed in docs/api.md; the solver, benchmark
 * and report helpers behind them are internal.
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
} from '../spade/types.js';
export { diffVersions, promptDeltas, type PromptDelta, type PromptVersion } from '../spade/deltas.js';
export { gitVersions, parseVersions, readVersionsFile } from '../spade/versions.js';
export { createSpadeLlm, llmFromOptions, usageLine, type LlmChoice, type SpadeLlm, type SpadeLlmOptions, type SpadeUsage } from '../spade/llm.js';
export { categoriseDelta, evaluateTaxonomy, type AnnotatedDelta, type CategorisedSentence, type TaxonomyAgreement } from '../spade/taxonomy.js';
export { synthesizeCandidates, type Criterion, type SynthesisResult } from '../spade/synthesize.js';
export { proposeSubsumptions } from '../spade/propose.js';
export { evaluateCandidates, type EvaluateOptions, type JudgeSettings } from '../spade/evaluate.js';
export { assertionStats, matrixFromResults, setMetrics, type AssertionStats, type SetMetrics } from '../spade/metrics.js';
export { select, type Method, type SelectionResult, type SelectOptions, type SubObjective } from '../spade/select.js';
export { pruneSubsumptions, subsumptionRoots, type PruneReport, type RootsResult } from '../spade/subsumption.js';
export { selectionToConfig, type ExportOptions, type ReplayExport } from '../spade/export.js';
export { gradedExamples, type GradedExamples } from '../spade/graded.js';
export { assertionAgreement, setAgreement, type AssertionAgreement } from '../spade/agreement.js';
export { matrixToJson, readCandidates, readExamples, readMatrix, readSubsumptions } from '../spade/io.js';
