export { runExperiment, validatorMeta, type RunPlan, type RunOptions, type RunResult, type RunProgress, type EvaluateFn } from './runner.js';
export { callWithRetry, backoffDelay, isTransient, seededRandom, sleep, DEFAULT_RETRY, type RetryOptions, type RetryInfo } from './retry.js';
export { limitedWorkers } from './limit.js';
export { StatsAccumulator, computeStats, type RunStats } from './stats.js';
export { summaryOptionsOf } from './options.js';
export { createProgressView, type ProgressView } from './progress.js';
export { executeSample, type SampleContext, type SampleOptions } from './sample.js';
export { firstDecision, settledBy, type StopDecision, type StopRule } from './stop.js';
export { maxCostRule, formatUsd } from './cost.js';
