/** SPADE: assertions synthesized from prompt version histories, and a minimal set chosen by integer programming. */
export { TAXONOMY, TAXONOMY_NAMES, type AssertionForm, type CandidateAssertion, type EvaluationMatrix, type Label, type LabelledExample, type SubsumptionPair, type TaxonomyCategory } from './types.js';
export { diffVersions, formatDelta, initialDelta, promptDeltas, splitSentences, type PromptDelta, type PromptVersion } from './deltas.js';
export { gitVersions, parseVersions, readVersionsFile } from './versions.js';
export { assertionStats, failView, matrixFromResults, setMetrics, type AssertionStats, type SetMetrics } from './metrics.js';
export { solveBinaryProgram, solveLexicographic, toLpFormat, type BinaryProgram, type IlpSolution } from './ilp.js';
export { countExcludedNotSubsumed, eligibleForPenalty, select, unevaluatedColumns, type Method, type SelectionResult, type SelectOptions, type SubObjective } from './select.js';
export { diagnose, type Infeasibility } from './infeasible.js';
export { pruneSubsumptions, subsumptionRoots, transitiveAdditions, type PruneReport, type RootsResult } from './subsumption.js';
export { createSpadeLlm, llmFromEnv, llmFromOptions, usageLine, type LlmChoice, type SpadeLlm, type SpadeLlmOptions, type SpadeUsage } from './llm.js';
export { agreement, categoriseDelta, evaluateTaxonomy, versionsFromNdiff, type AnnotatedDelta, type CategorisedSentence, type TaxonomyAgreement } from './taxonomy.js';
export { synthesizeAssertions, synthesizeCandidates, synthesizeCriteria, type Criterion, type SynthesisResult } from './synthesize.js';
export { proposeSubsumptions } from './propose.js';
export { evaluateCandidates, llmInstruction, type EvaluateOptions, type JudgeSettings } from './evaluate.js';
export { assertionReports, selectionToConfig, type AssertionReport, type ExportOptions } from './export.js';
export { matrixToJson, readCandidates, readExamples, readMatrix, readSubsumptions } from './io.js';
export { loadPipelines, parsePipeline, parseTable4, type BenchmarkPipeline, type LabelVariant } from './benchmark-data.js';
export { checkAgainstTable4, readTable4, runBenchmark, type BenchmarkMethod, type BenchmarkRow, type Table4Check } from './benchmark.js';
export { formatErrors, formatSelection } from './report.js';
