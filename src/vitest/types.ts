import type { ExperimentConfig } from '../config/schema.js';
import type { InputValue } from '../core/validator.js';

import type { SystemCallContext } from '../providers/function-system.js';

/**
 * Any async function from an input to the system's answer: text; or an agent's, the AI SDK's `generateText` result
 * as it is, or `{ output, steps }` (its tool calls become the sample's trajectory, which trajectory checks read).
 */
export type { SystemCallContext, SystemFunction } from '../providers/function-system.js';

/** A validator as in a config (`{ name, minSuccess, check }` or `{ name, minSuccess, predicate }`, the predicate a function). */
export type ValidatorSpec = NonNullable<ExperimentConfig['validators']>[number];
/** A verifier (LLM judge) as in a config: `{ name, minSuccess, instructions, judge: { openai: {...} } }`. */
export type VerifierSpec = NonNullable<ExperimentConfig['verifiers']>[number];

/**
 * `describeReliability(name, options)`: an assay experiment whose every rule is one Vitest test. `I`, the type of
 * an input, is inferred from `inputs`: a system function given `['Where is my order?']` receives a `string`.
 */
export interface ReliabilityOptions<I extends InputValue = InputValue> {
  inputs: readonly I[];
  /** Samples per input (M). Default 1. */
  samples?: number;
  /** A function (input, ctx) => string or an agent's result, or an assay system config such as `{ openai: { model: 'gpt-4o-mini' } }`. */
  system: ((input: I, ctx: SystemCallContext) => unknown) | Record<string, unknown>;
  validators?: ValidatorSpec[];
  verifiers?: VerifierSpec[];
  /** fixed (every sample, the default) or sequential (stop each rule once its confidence sequence decides it). */
  stopping?: 'fixed' | 'sequential';
  /**
   * What the verdicts are about: `inputs` (the default, the inputs run) or `population` (an input drawn at random from
   * the population the inputs came from, each input a unit; docs/verdicts.md#two-claims-the-inputs-run-and-the-input-population).
   */
  estimand?: 'inputs' | 'population';
  /** Confidence level of intervals and verdicts; default 0.95. */
  confidence?: number;
  /** confident (default: the interval must clear minSuccess) or point (rate ≥ minSuccess). */
  verdict?: 'confident' | 'point';
  interval?: 'clopper-pearson' | 'wilson' | 'wald';
  /** Largest share of error cells a verdict may rest on; default 0.05. */
  maxErrorShare?: number;
  /** Most system calls in flight at once; default 8. */
  concurrency?: number;
  /** Per-call time limit in ms for the system and each judge; default 30 000 in assay/vitest (a config file's is 60 000). */
  timeoutMs?: number;
  /**
   * Spaces the system's calls: at most `requestsPerMinute` (and `tokensPerMinute`), as `rateLimit` beside a
   * config's `system:` (docs/teams.md#rate-limits). A judge takes its own under `judge:`.
   */
  rateLimit?: { requestsPerMinute?: number; tokensPerMinute?: number; key?: string };
  /** Each input must pass at least this share of its repeats: the config's `perInput`, for every rule that sets none. */
  perInput?: { minSuccess: number };
  /**
   * pass^k and pass@k at k for every rule that sets none (a rule's own `passK`, or `passK: false`, wins): all k of k
   * tries succeed, per input and over inputs, with intervals; with `minSuccess`, the rule also needs pass^k ≥ it.
   */
  passK?: { k: number; minSuccess?: number };
  /** An inconclusive verdict fails its test (the default) or marks it skipped. */
  onInconclusive?: 'fail' | 'skip';
  /**
   * The response cache: on by default under `vitest --watch`, off in `vitest run`; ASSAY_CACHE=0|1 overrides both.
   * It keeps the requests sent to models (an assay provider, the judges, a model wrapped with `withAssayCache`),
   * never a function system's own outputs, unless `{ key }` names a version of them you control: outputs stored
   * under that key are replayed until it changes.
   */
  cache?: boolean | { key: string };
  /** Where the run is stored: a SQLite file or a postgres:// URL; default ASSAY_STORE, else .assay/assay.db. */
  store?: string;
  /**
   * Time limit of the whole experiment in ms; default 30 minutes. When it passes the run is stopped as Ctrl-C stops
   * `assay run` (stored as interrupted, finished samples kept) and every rule test fails saying so.
   */
  runTimeoutMs?: number;
}

/** What a rule's test decides, as the worker hands it to the test and the reporter. */
export interface RuleOutcome {
  name: string;
  verdict: 'pass' | 'fail' | 'inconclusive' | 'error';
  /** The test passes (pass), is skipped (inconclusive with onInconclusive: 'skip'), or fails. */
  test: 'pass' | 'skip' | 'fail';
  /** The message in assay's style: rate, interval, error share, why, worst inputs. */
  message: string;
}

/** One describeReliability's run, shown by the reporter (kept in each rule test's `meta.assay`). */
export interface RunOutcome {
  runId: string;
  name: string;
  /** The terminal table of the run (src/report/terminal.ts) and its Markdown report (src/report/markdown.ts). */
  terminal: string;
  markdown: string;
  rules: RuleOutcome[];
  /** With the cache on: calls made past the cache in this run (system and judges), and answers it served. */
  calls: number;
  cached: number;
  cache: boolean;
  /** When the answers served from the cache were stored (ISO 8601, oldest and newest). */
  cachedFrom?: string;
  cachedTo?: string;
  /** Every answer came from the cache, none was called: the run is not stored (runId names no stored run). */
  replay?: boolean;
}
