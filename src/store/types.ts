import type { OutcomeCode } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { CheckedClaim, InputValue, ValidatorMeta } from '../core/validator.js';
import type { CallErrorKind, TokenUsage } from '../core/call.js';
import type { Trajectory } from '../core/trajectory.js';
import type { ProductionExperiment, ProductionSample, ProductionSpan } from '../core/production.js';

export type RunStatus = 'running' | 'complete' | 'interrupted' | 'failed';

export interface NewRun {
  /** Experiment name from the config; runs of one name form a trend. */
  name: string;
  /** The resolved config as JSON-serialisable data (predicates as their source text). */
  config: unknown;
  /** Path of the config file it came from, if any (so --resume can reload predicates). */
  configPath?: string;
  inputs: InputValue[];
  samples: number;
  validators: ValidatorMeta[];
  systemId: string;
}

export interface RunRecord extends NewRun {
  id: string;
  status: RunStatus;
  createdAt: string; // ISO 8601
  finishedAt?: string;
  N: number;
  M: number;
  K: number;
}

/** One generation (input i, sample j) and its K validator outcomes: the unit written atomically. */
export interface SampleRecord {
  i: number;
  j: number;
  /** The output text (an agent's final answer), or undefined when the generation itself failed after retries. */
  output?: string;
  /**
   * An agent's steps that led to `output`, when the system returned them. Each tool result is stored whole up to
   * STORED_RESULT_MAX_CHARS (core/trajectory-text.ts) and cut there (`truncated`); the model had the whole of it.
   */
  trajectory?: Trajectory;
  /** Set when the generation failed (all K cells are then ERROR). */
  generationError?: string;
  /** The provider error's kind when the generation failed (for stop rules; not every store keeps it). */
  generationErrorKind?: CallErrorKind;
  /** One per validator, in validator order. */
  outcomes: OutcomeCode[];
  /** Per-validator error message (undefined where the outcome is not ERROR). */
  errors?: (string | undefined)[];
  /** Per-validator verifier reasons, for verifier columns (undefined elsewhere). */
  reasons?: (string[] | undefined)[];
  /** Per column: the claims a grounding check decided (undefined for other columns and for its error cells). */
  claims?: (CheckedClaim[] | undefined)[];
  latencyMs: number;
  /** Provider calls made for this sample, including retried ones. */
  attempts: number;
  usage?: TokenUsage;
  /** What this sample's calls cost at the configured prices (absent when no call was priced). */
  cost?: SampleCost;
  /** The generation was served from the response cache (no call was made). */
  cached?: boolean;
  finishedAt?: string;
}

export interface SampleCost {
  /** USD of every priced call of the sample: its generation and its checks. */
  usd: number;
  /** Per column k: USD its check spent (verifiers); undefined for columns that made no priced call. */
  checks?: (number | undefined)[];
  /** Calls that reported tokens but whose model has no price (not in `usd`). */
  unpriced?: number;
}

/** One stored answer of the response cache. */
export interface CacheEntry {
  value: string;
  /** ISO 8601; the cache's TTL is checked against it. */
  storedAt: string;
}

/**
 * The response cache kept with the runs (`--cache`). Deliberately small: keys are opaque hashes made by
 * the model layer (src/providers/cache.ts), values opaque JSON text; TTL and key design live there.
 */
export interface ResponseCache {
  get(key: string): Promise<CacheEntry | undefined>;
  /** Insert or replace. */
  set(key: string, value: string): Promise<void>;
  /** Insert unless the key is there: whether it was inserted (one of two racing writers wins; a call journal's claim). */
  add(key: string, value: string): Promise<boolean>;
  /** Remove these entries (absent keys are ignored): a queued run's call journal once its sample is stored. */
  delete(keys: readonly string[]): Promise<void>;
  /** Remove every entry; returns how many there were. */
  clear(): Promise<number>;
}

/** Which runs to list: newest first (created_at, then id, descending); `limit`/`offset` page through them. */
export interface RunFilter {
  /** Exactly this experiment name. */
  name?: string;
  /** Names containing this text, case-insensitively (the dashboard's search box). */
  nameContains?: string;
  /** Ids starting with this text (a run named by the start of its id). */
  idPrefix?: string;
  limit?: number;
  /** Skip this many of the matching runs (pagination). */
  offset?: number;
}

/** One attempt of a guarded call (src/guard), as the guard's attempt log keeps it. */
export interface GuardAttemptRecord {
  callId: string;
  /** 1-based attempt number. */
  n: number;
  systemId: string;
  status: 'accepted' | 'rejected' | 'error' | 'timeout';
  /** The input as sent (augmented with reasons after a rejection, when feedback is on). */
  input: InputValue;
  output?: string;
  generationError?: string;
  validators: { name: string; outcome: 'pass' | 'fail' | 'error'; error?: string }[];
  verifier?: { outcome: 'pass' | 'fail' | 'error' | 'skipped'; reasons: string[]; error?: string };
  reasons: string[];
  latencyMs: number;
  usage: { system: TokenUsage; verifier: TokenUsage };
  startedAt: string;
}

/** How a guarded call ended. */
export interface GuardCallRecord {
  callId: string;
  systemId: string;
  /** The caller's original input. */
  input: InputValue;
  accepted: boolean;
  reason: 'accepted' | 'exhausted' | 'timeout' | 'error';
  detail?: string;
  output?: string;
  /** Number of attempts made. */
  attempts: number;
  /** Tokens of every attempt, system and verifier together. */
  usage: TokenUsage;
  cost: number | null;
  latencyMs: number;
  finishedAt: string;
}

export type GradeValue = 'pass' | 'fail';

/** A person's PASS/FAIL for one rule on one output (input i, sample j) of a run, as given. */
export interface NewGrade {
  /** Input index, 0-based as in the run's JSON. */
  i: number;
  /** Sample index, 0-based. */
  j: number;
  /** The rule's name: one of the run's validators or verifiers. */
  rule: string;
  grade: GradeValue;
  /** Who graded (a name; control characters are refused). */
  grader: string;
  /** ISO 8601; default: when it is stored. Refused if no calendar has it or it is over a minute in the future. */
  gradedAt?: string;
  /**
   * The output's inclusion probability when it was drawn at random for grading (`assay grade --suggest`, the
   * page's queue); absent for a hand-picked output or an import without one. The correction is unbiased only
   * for random draws with known probabilities.
   */
  probability?: number;
  /** The draw's design, e.g. "stratified by the judge's verdict, seed 7" (with `probability`). */
  design?: string;
}

/** A stored grade. Grades are a log: a second grade of one output by one grader is a new row; the latest counts. */
export interface GradeRecord extends NewGrade {
  /** Unique in the store, never reused (undo deletes by it). */
  id: number;
  runId: string;
  gradedAt: string;
}

/** Which grades to list (all of the run's when empty). */
export interface GradeFilter {
  /** One grade, by its id (an undo finds it without reading the run's other grades). */
  id?: number;
  /** Only grades recorded after the one with this id (a kept summary adds them instead of reading all again). */
  after?: number;
  rule?: string;
  grader?: string;
  i?: number;
  j?: number;
}

/** The runs of a store: their records and status. */
export interface RunStore {
  /** Store a new run, `running`; a shape N×M×K this process could not allocate as a tensor is refused (RangeError). */
  create(run: NewRun): Promise<RunRecord>;
  get(runId: string): Promise<RunRecord | undefined>;
  list(filter?: RunFilter): Promise<RunRecord[]>;
  /** How many runs match (for pagination); limit and offset are ignored. */
  count(filter?: RunFilter): Promise<number>;
  /** Any status but `running` also sets finishedAt; UnknownRunError for no run. */
  setStatus(runId: string, status: RunStatus): Promise<void>;
}

/**
 * The samples of a run: one generation (i, j) with its K outcomes each, and the tensor they fill. Writes of
 * one sample are atomic: after a crash a sample is either fully stored or absent, so resume never duplicates
 * or loses a completed cell; of two writers of one (i, j), exactly one succeeds.
 */
export interface SampleStore {
  /** Insert one sample; storing the same (i, j) twice is an error (DuplicateSampleError: no duplicates). */
  record(runId: string, sample: SampleRecord): Promise<void>;
  get(runId: string, i: number, j: number): Promise<SampleRecord | undefined>;
  /** All stored samples of a run, ordered by (i, j). */
  list(runId: string): Promise<SampleRecord[]>;
  /** The run's tensor; cells of samples not yet stored are PENDING. */
  tensor(runId: string): Promise<ReliabilityTensor>;
  /**
   * Deletes the run's samples whose generation failed (an infrastructure error: no output was checked), so
   * that a resume runs them again (`assay run --resume ID --retry-errors`); returns how many were deleted.
   */
  discardGenerationErrors(runId: string): Promise<number>;
}

/** People's grades of stored outputs: a log per run, checked against the run. */
export interface GradeStore {
  /**
   * Store a person's grade of one stored output (durable once resolved: it survives kill -9). Refused with a
   * GradeError (exit 2) when i or j is outside the run, the rule is not one of the run's, the output was
   * never stored or has none (its generation failed), or a field is malformed; UnknownRunError for no run.
   */
  record(runId: string, grade: NewGrade): Promise<GradeRecord>;
  /** Several grades in one transaction: all are stored, or (any one refused) none. */
  recordMany(runId: string, grades: readonly NewGrade[]): Promise<GradeRecord[]>;
  /** Delete one grade of the run (undo); false when the run has no grade with this id. */
  delete(runId: string, id: number): Promise<boolean>;
  /**
   * The run's grades in the order they were recorded (by id; not by gradedAt, which an import may claim):
   * the later of two grades of one output by one grader is the one that counts. A store from before grades existed has none.
   */
  list(runId: string, filter?: GradeFilter): Promise<GradeRecord[]>;
  /**
   * The same grades in the same order, a page (a few thousand) at a time: a run's millions of grades are
   * combined as they are read, never held all at once (issue 30). UnknownRunError for no run.
   */
  pages(runId: string, filter?: GradeFilter): AsyncIterable<GradeRecord[]>;
  /**
   * The grades that decide what combining the run's grades gives (core/grades.ts GradeCombiner, with each grade's
   * id as its place in the log), in the order recorded, a page at a time: each grader's latest grade of each
   * output, each output's first grade and its first grade whose probability is inside [MIN_PROBABILITY, 1], and
   * every grade whose probability is outside it. A few rows per output however many grades the run has (a
   * dashboard page over millions of grades reads these, found by an index; issue 30). UnknownRunError for no run.
   */
  decisive(runId: string): AsyncIterable<GradeRecord[]>;
  /**
   * A token that changes whenever a grade of any run (with `runId`: of that run) is recorded or deleted (the
   * number of grades and the largest id, which is never reused): one cheap query tells a cache whether grades changed.
   */
  version(runId?: string): Promise<string>;
}

/** The grounding audit's verdict on one claim (as ground/types.ts SupportStatus). */
export type AuditClaimStatus = CheckedClaim['status'];

/** One decided claim of a stored audit batch: its answer's id, its 1-based position in the answer, its text, status, evidence. */
export interface AuditClaimRecord {
  answer: string;
  claim: number;
  text: string;
  status: AuditClaimStatus;
  evidence?: string;
}

/** A batch of grounding audits (`assay analyze --answers … --json`), kept so people can grade its claims (issue 27). */
export interface NewAudit {
  /** A name for people (the batch file's name by default). */
  name: string;
  claims: AuditClaimRecord[];
  /** The run and rule whose claims these are, for a batch of an experiment's `grounded` rule (`assay audits import --run`). */
  run?: AuditRun;
}

/** A run's `grounded` rule (by its name) whose per-claim audits a batch holds; each answer is "input,sample" counted from 1. */
export interface AuditRun {
  id: string;
  rule: string;
}

export interface AuditRecord extends NewAudit {
  id: string;
  createdAt: string;
}

/** A person's grade of one claim of a stored audit: supported by its evidence or not. */
export interface NewClaimGrade {
  answer: string;
  claim: number;
  supported: boolean;
  grader: string;
  /** ISO 8601; default: when it is stored. */
  gradedAt?: string;
}

/** A stored claim grade; a log like run grades: the latest grade of a claim counts. */
export interface ClaimGradeRecord extends NewClaimGrade {
  id: number;
  auditId: string;
  gradedAt: string;
}

/** Stored audit batches and people's grades of their claims. */
export interface AuditStore {
  /**
   * Store a batch; refused (GradeError naming the field) when a claim is malformed or repeated. Idempotent by
   * content: a batch whose claims (in any order) and run are already stored is not stored again — that one comes
   * back, `created: false` (its name is kept).
   */
  create(audit: NewAudit): Promise<{ audit: AuditRecord; created: boolean }>;
  get(auditId: string): Promise<AuditRecord | undefined>;
  /** Every batch, newest first, without its claims (their number instead). */
  list(): Promise<(Omit<AuditRecord, 'claims'> & { claims: number })[]>;
  /**
   * Store grades of the batch's claims, all or none: GradeError (with the batch position) for a claim the
   * batch does not have or a malformed field; UsageError for no such batch.
   */
  recordGrades(auditId: string, grades: readonly NewClaimGrade[]): Promise<ClaimGradeRecord[]>;
  /** The batch's grades in the order recorded. */
  listGrades(auditId: string): Promise<ClaimGradeRecord[]>;
}

/** The guard's attempt log (src/guard): an attempt is written when it ends, a call when it ends. */
export interface GuardLog {
  /** Writing (callId, n) again replaces the attempt. */
  recordAttempt(attempt: GuardAttemptRecord): Promise<void>;
  /** How a guarded call ended; writing a callId again replaces it. */
  recordCall(call: GuardCallRecord): Promise<void>;
  getCall(callId: string): Promise<GuardCallRecord | undefined>;
  /** A call's attempts, in order of n. */
  listAttempts(callId: string): Promise<GuardAttemptRecord[]>;
  /** Calls, most recently finished first. */
  listCalls(filter?: { limit?: number; offset?: number }): Promise<GuardCallRecord[]>;
}

/**
 * Persistence of runs and of the guard's attempt log (SQLite by default, PostgreSQL for teams, memory for
 * tests), one part per entity. Every adapter passes the contract suite of each part (store/*.case.ts), run
 * against every adapter from one list (store/contract.test.ts). `await using store = …` closes it.
 */
export interface Store extends AsyncDisposable {
  readonly runs: RunStore;
  readonly samples: SampleStore;
  readonly grades: GradeStore;
  /** The response cache, shared by every run of the store. */
  readonly cache: ResponseCache;
  readonly guard: GuardLog;
  /** Batches of grounding audits and people's grades of their claims. */
  readonly audits: AuditStore;
  /** Production traffic read from OpenTelemetry spans, and what the monitor made of it. */
  readonly production: ProductionStore;
  /** Commit what is queued and let go of the file or the connections; the store is not used after. */
  close(): Promise<void>;
}

/** What a monitor's rule said of one sampled production sample. */
export interface ProductionCheck {
  /** The sample's position in its stream (ProductionSample.seq). */
  seq: number;
  outcome: 'pass' | 'fail' | 'error';
  /** The sample's end (ms since the epoch): windows are cut by it. */
  atMs: number;
  /** A failure's reasons or an error's message, one line. */
  reason?: string;
}

/** What identifies a stored alarm. */
export type AlarmKey = Pick<ProductionAlarm, 'experiment' | 'rule' | 'kind' | 'atSeq'>;

/** An alarm a monitor raised on a rule. */
export interface ProductionAlarm {
  experiment: string;
  rule: string;
  /** `below-min-success`: the rate is below the rule's minSuccess; `dropped`: below the baseline's. */
  kind: 'below-min-success' | 'dropped';
  /** The seq of the last check read when it was raised; with experiment, rule and kind, the alarm's identity. */
  atSeq: number;
  /** The end of that sample (ms since the epoch). */
  atMs: number;
  /** One line for people: the rate, its bound, the threshold. */
  message: string;
  /** ISO 8601, when it was stored. */
  raisedAt?: string;
  /**
   * Whether it reached the people it is for (the monitor's webhook): false until delivered, so the next pass
   * sends it again; absent when there was nobody to tell.
   */
  delivered?: boolean;
}

/**
 * Production traffic: GenAI spans stored once per (trace id, span id), the samples of each production
 * experiment in stream order (seq), and per monitor rule the checks made and the alarms raised.
 */
export interface ProductionStore {
  /**
   * Store spans, atomically (one transaction or statement). A span whose (traceId, spanId) is stored already
   * is skipped, so a retried export adds nothing. Resolves once durable.
   */
  ingest(spans: readonly ProductionSpan[]): Promise<{ stored: number; duplicates: number }>;
  /** Every experiment with samples, by name. */
  experiments(): Promise<ProductionExperiment[]>;
  /** Samples of one experiment with seq > afterSeq (default: all), oldest first, at most `limit`; `newest` lists the last ones, newest first. */
  list(experiment: string, page?: { afterSeq?: number; limit?: number; newest?: boolean }): Promise<ProductionSample[]>;
  /**
   * Store a rule's checks and move its cursor to `cursor` in one transaction; a check of a seq stored already is
   * replaced. `settings` (JSON data: how the monitor watches the rule) is kept with the cursor, for the dashboard.
   */
  recordChecks(experiment: string, rule: string, checks: readonly ProductionCheck[], cursor: number, settings?: unknown): Promise<void>;
  /** The rule's checks, by seq. */
  checks(experiment: string, rule: string): Promise<ProductionCheck[]>;
  /** The last seq the rule has read (0: none). */
  cursor(experiment: string, rule: string): Promise<number>;
  /** The rules a monitor has read the experiment with (each has a cursor), by name, with their number of checks. */
  rules(experiment: string): Promise<{ rule: string; checks: number; settings?: unknown }[]>;
  /** Store an alarm; false when the same alarm (experiment, rule, kind, atSeq) is stored already. */
  recordAlarm(alarm: ProductionAlarm): Promise<boolean>;
  /** The experiment's alarms, oldest first. */
  alarms(experiment: string): Promise<ProductionAlarm[]>;
  /** Mark a stored alarm (by experiment, rule, kind, atSeq) delivered; no-op when there is no such alarm. */
  markDelivered(alarm: AlarmKey): Promise<void>;
}
