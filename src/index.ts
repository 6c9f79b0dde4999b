/**
 * The package root (`import { … } from 'assay'`): the run lifecycle — define an experiment, load it, run it
 * into a store, summarize, report and gate — and the errors it raises. What a program needs first, and no
 * more; every other public name lives under one subpath (`assay/stats`, `assay/providers`, `assay/judges`,
 * `assay/guard`, `assay/store`, `assay/sandbox`, `assay/grounding`, `assay/server`, `assay/spade`; entry files
 * in src/api/). Listed in docs/api.md; src/index.test.ts holds every entry to its section there. Everything
 * else under src/ is internal and may change in any release.
 */

// Errors and exit codes.
export { AssayError, UsageError, ArgumentError, MissingPackageError, ExitCode, type ErrorExitCode } from './errors.js';
export { ProviderError, type ProviderErrorKind } from './providers/types.js';
export { StoreError } from './store/errors.js';

// Define: configs in code (assay.config.ts), the validator contract, built-in checks, the system under test.
export { defineConfig, loadExperiment, type Experiment, type LoadOptions } from './config/load.js';
export { experimentConfigSchema, type ExperimentConfig, type ValidatorConfig } from './config/schema.js';
export { Outcome, type OutcomeCode, type OutcomeName } from './core/outcome.js';
export type { CheckResult, InputValue, Predicate, Validator } from './core/validator.js';
export { builtinValidator, type CheckSpec } from './validators/builtin.js';
export { createSystem, type SystemContext } from './providers/factory.js';
export type { SystemConfig } from './providers/schemas.js';
export type { GenerateOptions, Generation, SystemUnderTest, TokenUsage } from './providers/types.js';

// Assemble and run: a loaded experiment made runnable (the system, its judges, rate limits, prices, cache, stop rules), then run.
export { assembleRun, type AssembleOptions, type AssembledRun } from './run/assemble.js';
export { runExperiment, type RunOptions, type RunPlan, type RunProgress, type RunResult } from './run/runner.js';
export type { StopDecision, StopRule } from './run/stop.js';
export { FailFastRule, DEFAULT_MAX_ERRORS } from './run/fail-fast.js';
export { SequentialStopRule } from './run/sequential.js';
export { maxCostRule } from './run/cost.js';
export { ReliabilityTensor } from './core/tensor.js';

// Open a store: one function, a SQLite path or a postgres:// URL (the adapters: assay/store).
export { openStore, type OpenStoreOptions } from './store/open.js';
export type { Store, RunRecord, RunStatus, SampleRecord } from './store/types.js';

// Summarize: rates, intervals and verdicts of a tensor, or of a stored run as it was decided.
export { summarize } from './core/summarize.js';
export { summaryOptionsOf } from './core/summary-options.js';
export { summarizeRun } from './core/decision.js';
export type {
  Disagreement,
  GradingSummary,
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

// Report and gate.
export { loadStoredRun, type StoredRunReport } from './report/load.js';
export { exitCodeFor } from './report/meta.js';
export { buildJsonReport, renderJsonReport, REPORT_SCHEMA_VERSION, type JsonReport } from './report/json.js';
export { renderJunitReport } from './report/junit.js';
export { renderMarkdownReport } from './report/markdown.js';
export { renderHtmlReport } from './report/html.js';
export { formatTerminalSummary } from './report/terminal.js';
export { compareRuns, type RunComparison } from './report/compare.js';
