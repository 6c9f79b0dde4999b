/**
 * The public library API of assay (`import { … } from 'assay'`): what a program needs to define, run, store,
 * report and gate experiments, to guard calls at run time, and to use SPADE and the grounding audit. It is
 * chosen on purpose and listed in docs/api.md; everything else under src/ is internal and may change in any
 * release. src/index.test.ts holds this list to the docs.
 */

// Errors and exit codes.
export { AssayError, UsageError, MissingPackageError, ExitCode, type ErrorExitCode } from './errors.js';

// Experiments: configs in code (assay.config.ts) and loading config files.
export { defineConfig, loadExperiment, type Experiment, type LoadOptions } from './config/load.js';
export { experimentConfigSchema, type ExperimentConfig, type ValidatorConfig } from './config/schema.js';

// Rules: the validator contract, outcomes, built-in checks.
export { Outcome, type OutcomeCode, type OutcomeName } from './core/outcome.js';
export type { CheckResult, InputValue, Predicate, Validator } from './core/validator.js';
export { builtinValidator, type CheckSpec } from './validators/builtin.js';

// Systems under test.
export { createSystem, type SystemContext } from './providers/factory.js';
export { systemSchema, type SystemConfig } from './providers/schemas.js';
export { ProviderError, type ProviderErrorKind, type GenerateOptions, type Generation, type SystemUnderTest, type TokenUsage } from './providers/types.js';

// Models: the spec every LLM call goes through, its adapters, and the decorators that price and cache it.
export type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatMessage,
  ChatCallOptions,
  ChatModelCapabilities,
  JsonResponseFormat,
  ChatTool,
  ToolCall,
} from './providers/chat-model.js';
export type { EmbeddingModel, EmbedOptions, EmbedResult } from './providers/embedding-model.js';
export { chatModelFromConfig, type ModelContext } from './providers/chat-factory.js';
export { OpenAIChatModel } from './providers/openai.js';
export { anthropicChatModel, googleChatModel, bedrockChatModel, azureChatModel, mistralChatModel } from './providers/sdk-providers.js';
export { OllamaChatModel, OllamaEmbeddingModel } from './providers/ollama.js';
export { OpenAIEmbeddingModel } from './providers/embeddings.js';
export { ChatSystem } from './providers/chat-system.js';
export { withPrices, priceTable, DEFAULT_PRICES, type ModelPrice, type PriceTable } from './providers/prices.js';
export { withResponseCache, type CacheSettings } from './providers/cache.js';
export { maxCostRule } from './run/cost.js';

// Running experiments and storing runs.
export { runExperiment, type RunOptions, type RunPlan, type RunProgress, type RunResult } from './run/runner.js';
export { summaryOptionsOf } from './core/summary-options.js';
export { decisionOfRun, summarizeRun, type DecisionParameters, type RuleDecision } from './core/decision.js';
export type { StopDecision, StopRule } from './run/stop.js';
export { FailFastRule, DEFAULT_MAX_ERRORS } from './run/fail-fast.js';
export { MemoryStore } from './store/memory.js';
export { openSqliteStore, defaultStorePath, type SqliteStoreOptions } from './store/sqlite.js';
export { openStore, storeLocation, type OpenStoreOptions } from './store/open.js';
export { openPostgresStore, type PostgresStoreOptions } from './store/postgres.js';
export { StoreError, DuplicateSampleError, GradeError } from './store/errors.js';
export type { RunRecord, RunStatus, SampleRecord, Store, RunFilter, GuardAttemptRecord, GuardCallRecord, ResponseCache, CacheEntry } from './store/types.js';
export type { RunStore, SampleStore, GradeStore, GuardLog } from './store/types.js';
export type { NewGrade, GradeRecord, GradeFilter } from './store/types.js';
export { ReliabilityTensor } from './core/tensor.js';

// Statistics: summaries, intervals, verdicts, comparisons.
export { summarize } from './core/summarize.js';
export type {
  Interval,
  IntervalMethod,
  PooledRate,
  RateWithCI,
  RunSummary,
  SequentialSummary,
  StoppingRule,
  SummaryOptions,
  ValidatorSummary,
  Verdict,
  VerdictMode,
} from './core/summary-types.js';
export { wilson, clopperPearson, wald, interval } from './core/intervals.js';
export { validatorVerdict, errorBounds } from './core/verdict.js';
export { perInputFloors, combinePerInput, binomialCdf, binomialSf, type PerInputFloor, type PerInputResult, type InputFloor } from './core/per-input.js';
export { toDecide, fixedSampleSize, sequentialSampleSize } from './core/sample-size.js';
export { sequenceBounds } from './core/sequence.js';
export { sequentialStatus } from './core/stopping.js';
export { SequentialStopRule } from './run/sequential.js';
export { compareProportions, type ProportionComparison } from './core/significance.js';
export { combineGrades, type PersonGrade, type GradedOutput } from './core/grades.js';
export { alignment, type Alignment, type GradedPair, type RateInterval } from './core/alignment.js';
export { correctedRate, type CorrectedRate, type CorrectedRateArgs } from './core/ppi.js';
export { suggestGrading, gradesForWidth, type GradingDesign, type GradingOptions, type GradingPick, type GradesForWidthArgs } from './core/grading-sample.js';
export { loadGrading } from './grades/load.js';
export type { GradingSummary, Disagreement } from './core/summary-types.js';

// Reports and CI gating.
export { loadStoredRun, type StoredRunReport } from './report/load.js';
export { exitCodeFor } from './report/meta.js';
export { buildJsonReport, renderJsonReport, REPORT_SCHEMA_VERSION, type JsonReport } from './report/json.js';
export { renderJunitReport } from './report/junit.js';
export { renderMarkdownReport } from './report/markdown.js';
export { renderHtmlReport } from './report/html.js';
export { formatTerminalSummary } from './report/terminal.js';
export { compareRuns, type RunComparison } from './report/compare.js';

// Retries at run time: the guard, LLM verifiers, and the planner that predicts what retries cost.
export { guard, guardedCall, type GuardedSystem } from './guard/guard.js';
export type { GuardOptions, GuardResult, Attempt } from './guard/types.js';
export { createOpenAIJudge, type OpenAIJudgeOptions } from './judge/openai-judge.js';
export { createJudge, type JudgeOptions } from './judge/judge.js';
export type { Judge, JudgeVerdict } from './judge/types.js';
export { verifierFromConfig, verifierFromJudge } from './judge/config.js';
export { planFromRates, minAttempts, pSuccessWithin, type RatePlan } from './core/retry.js';
export { planFromTensor, type TensorRetryPlan } from './core/retry-tensor.js';
export { independenceCheck, type IndependenceCheck } from './core/independence.js';

// Predicates from untrusted text, in the QuickJS sandbox.
export { createSandbox, SandboxError, type Sandbox, type SandboxedFunction, type SandboxLimits } from './sandbox/index.js';

// Grounding audit: knowledge bases, claim-by-claim analysis, the HTTP service.
export { createGroundingEngine, type GroundingEngineOptions, type OpenGroundingEngine } from './ground/service.js';
export { createGroundingPool, PoolOverloadedError, WorkerCrashedError, type GroundingPool, type GroundingPoolOptions } from './ground/pool/grounding.js';
export { ingest, type IngestOptions, type IngestSummary } from './ground/ingest.js';
export { createEmbedder, type EmbedderConfig } from './ground/embedders/resolve.js';
export { createNliChecker, type NliCheckerOptions } from './ground/checkers/nli.js';
export { createLlmClaimChecker, type LlmCheckerOptions } from './ground/checkers/llm.js';
export type { ClaimChecker, ClaimCheck, ClaimCheckItem, ClaimCheckBatch, CheckVerdict, CheckerSummary } from './ground/checkers/types.js';
export {
  GroundingRequestError,
  GroundingUnavailableError,
  type AnalyzeRequest,
  type ClaimAnalysis,
  type GroundingEngine,
  type GroundingReport,
} from './ground/types.js';
export { startServer, type ServerHandle, type StartOptions } from './server/start.js';

// SPADE has its own vocabulary (deltas, candidates, selection): one namespace, listed in docs/api.md.
export * as spade from './spade/index.js';
