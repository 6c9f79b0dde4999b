import type { OutcomeCode } from '../core/outcome.js';
import type { Trajectory } from '../core/trajectory.js';
import type { CheckedClaim } from '../core/validator.js';
import type { GradeRecord, NewGrade, RunRecord, RunStatus, SampleCost, SampleRecord } from './types.js';

/** The SQLite store's tables and the mapping between their rows and the Store's records. */

/**
 * Versioned migrations, applied in order on open (store/sqlite.ts); `meta.schema_version` records the last
 * one applied. Never edit a released migration: add the next one.
 */
export const MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'runs and samples',
    // One row per run, one row per sample (i, j). A sample's K tensor cells are one K-byte BLOB, so the
    // tensor is stored as compactly as it lives in memory and a sample is written in one atomic statement.
    sql: `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  system_id TEXT NOT NULL,
  config_path TEXT,
  config_json TEXT NOT NULL,
  inputs_json TEXT NOT NULL,
  validators_json TEXT NOT NULL,
  n INTEGER NOT NULL,
  m INTEGER NOT NULL,
  k INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs (name, created_at);
CREATE TABLE IF NOT EXISTS samples (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  i INTEGER NOT NULL,
  j INTEGER NOT NULL,
  outcomes BLOB NOT NULL,
  output TEXT,
  generation_error TEXT,
  errors_json TEXT,
  reasons_json TEXT,
  latency_ms REAL NOT NULL,
  attempts INTEGER NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  finished_at TEXT NOT NULL,
  PRIMARY KEY (run_id, i, j)
) WITHOUT ROWID;
`,
  },
  {
    version: 2,
    name: 'guard attempt log; run listing indexes',
    // IF NOT EXISTS: files written by the earlier stand-alone attempt log already have these two tables.
    sql: `
CREATE TABLE IF NOT EXISTS guard_calls (
  call_id TEXT PRIMARY KEY,
  system_id TEXT NOT NULL,
  input_json TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT,
  output TEXT,
  attempts INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost REAL,
  latency_ms REAL NOT NULL,
  finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS guard_attempts (
  call_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  system_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  input_json TEXT NOT NULL,
  output TEXT,
  generation_error TEXT,
  status TEXT NOT NULL,
  validators_json TEXT NOT NULL,
  verifier_json TEXT,
  reasons_json TEXT NOT NULL,
  latency_ms REAL NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  verifier_prompt_tokens INTEGER NOT NULL,
  verifier_completion_tokens INTEGER NOT NULL,
  PRIMARY KEY (call_id, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS guard_calls_by_finished ON guard_calls (finished_at);
DROP INDEX IF EXISTS runs_by_name;
CREATE INDEX runs_by_name ON runs (name, created_at, id);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs (created_at, id);
`,
  },
  {
    version: 3,
    name: 'response cache; what each sample cost',
    sql: `
ALTER TABLE samples ADD COLUMN cost_json TEXT;
ALTER TABLE samples ADD COLUMN cached INTEGER;
CREATE TABLE IF NOT EXISTS response_cache (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  stored_at TEXT NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 4,
    name: "people's grades of outputs",
    // A log: every grade is a row (undo deletes one); AUTOINCREMENT so a deleted grade's id is never reused.
    sql: `
CREATE TABLE IF NOT EXISTS grades (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  i INTEGER NOT NULL,
  j INTEGER NOT NULL,
  rule TEXT NOT NULL,
  grade TEXT NOT NULL CHECK (grade IN ('pass', 'fail')),
  grader TEXT NOT NULL,
  graded_at TEXT NOT NULL,
  probability REAL,
  design TEXT
);
CREATE INDEX IF NOT EXISTS grades_by_run ON grades (run_id, graded_at, id);
`,
  },
  {
    version: 5,
    name: "an agent's steps with each sample",
    // JSON text of the sample's Trajectory (core/trajectory.ts); NULL for a text answer and for older samples.
    sql: `
ALTER TABLE samples ADD COLUMN trajectory_json TEXT;
`,
  },
  {
    version: 6,
    name: 'production traffic: GenAI spans, monitor checks and alarms',
    // One row per span, unique by (trace_id, span_id) so a retried export adds nothing; seq orders the stream.
    sql: `
CREATE TABLE IF NOT EXISTS production_spans (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_id TEXT NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('sample', 'step')),
  experiment TEXT NOT NULL,
  name TEXT NOT NULL,
  start_ms REAL NOT NULL,
  end_ms REAL NOT NULL,
  input TEXT,
  output TEXT,
  model TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  error TEXT,
  step_json TEXT,
  UNIQUE (trace_id, span_id)
);
CREATE INDEX IF NOT EXISTS production_by_experiment ON production_spans (experiment, kind, seq);
CREATE INDEX IF NOT EXISTS production_by_parent ON production_spans (trace_id, parent_span_id);
CREATE TABLE IF NOT EXISTS production_checks (
  experiment TEXT NOT NULL,
  rule TEXT NOT NULL,
  seq INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pass', 'fail', 'error')),
  at_ms REAL NOT NULL,
  reason TEXT,
  PRIMARY KEY (experiment, rule, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS production_cursors (
  experiment TEXT NOT NULL,
  rule TEXT NOT NULL,
  seq INTEGER NOT NULL,
  settings_json TEXT,
  PRIMARY KEY (experiment, rule)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS production_alarms (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  experiment TEXT NOT NULL,
  rule TEXT NOT NULL,
  kind TEXT NOT NULL,
  at_seq INTEGER NOT NULL,
  at_ms REAL NOT NULL,
  message TEXT NOT NULL,
  raised_at TEXT NOT NULL,
  UNIQUE (experiment, rule, kind, at_seq)
);
`,
  },
  {
    version: 7,
    name: 'grades listed by run in the order recorded',
    // Grades are read in recorded order (id), a page at a time (store/sqlite-grades.ts): the index serves both.
    sql: `
CREATE INDEX IF NOT EXISTS grades_by_run_recorded ON grades (run_id, id);
`,
  },
  {
    version: 8,
    name: "a monitor's settings with each rule's cursor",
    // JSON of how the monitor watches the rule (core/monitor.ts WatchOptions), for the dashboard's rule page. A
    // table of its own: some stores got migration 6 with production_cursors.settings_json and some without (it
    // was edited after release), so that column is left unused.
    sql: `
CREATE TABLE IF NOT EXISTS production_rule_settings (
  experiment TEXT NOT NULL,
  rule TEXT NOT NULL,
  settings_json TEXT NOT NULL,
  PRIMARY KEY (experiment, rule)
) WITHOUT ROWID;
`,
  },
  {
    version: 9,
    name: "whether each alarm reached the monitor's webhook",
    // NULL: nobody was to be told; 0: not delivered yet (the next `assay monitor` pass sends it again); 1: delivered.
    sql: `
ALTER TABLE production_alarms ADD COLUMN delivered INTEGER;
`,
  },
  {
    version: 10,
    name: "grounding audit batches and people's grades of their claims",
    // The claims of a batch are read and written whole (store/sqlite-audits.ts): one JSON column.
    sql: `
CREATE TABLE IF NOT EXISTS audits (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  claims_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_grades (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  audit_id TEXT NOT NULL REFERENCES audits (id),
  answer TEXT NOT NULL,
  claim INTEGER NOT NULL,
  supported INTEGER NOT NULL,
  grader TEXT NOT NULL,
  graded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_grades_by_audit ON audit_grades (audit_id, id);
`,
  },
  {
    version: 11,
    name: "the grounded rule's claims kept with each sample; audit batches of a run, stored once per content",
    // content_key: store/audits.ts auditContentKey. Batches stored before it have none and match nothing.
    sql: `
ALTER TABLE samples ADD COLUMN claims_json TEXT;
ALTER TABLE audits ADD COLUMN run_id TEXT;
ALTER TABLE audits ADD COLUMN rule TEXT;
ALTER TABLE audits ADD COLUMN content_key TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS audits_by_content ON audits (content_key);
CREATE INDEX IF NOT EXISTS audits_by_run ON audits (run_id);
`,
  },
  {
    version: 12,
    name: "the grades that decide a run's combined grades, found by one index",
    // GradeStore.decisive (store/sqlite-grades.ts): each grader's latest grade of an output, the output's first,
    // its first drawn at random, in one pass of the index per part, the table never read (probability is in it).
    // Grades are no longer read by date (issue 30: in the order recorded), so that index goes, paying for this one.
    sql: `
CREATE INDEX IF NOT EXISTS grades_by_output ON grades (run_id, rule, i, j, grader, id, probability);
DROP INDEX IF EXISTS grades_by_run;
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface RunRow {
  id: string;
  name: string;
  status: RunStatus;
  created_at: string;
  finished_at: string | null;
  system_id: string;
  config_path: string | null;
  config_json: string;
  inputs_json: string;
  validators_json: string;
  n: number;
  m: number;
  k: number;
}

export interface SampleRow {
  i: number;
  j: number;
  outcomes: Buffer;
  output: string | null;
  generation_error: string | null;
  errors_json: string | null;
  reasons_json: string | null;
  latency_ms: number;
  attempts: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  finished_at: string;
  /** Absent in a version-1 store opened read-only. */
  cost_json?: string | null;
  cached?: number | null;
  /** Absent in a store before version 5 opened read-only. */
  trajectory_json?: string | null;
  /** Absent in a store before version 11 opened read-only. */
  claims_json?: string | null;
}

export function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    createdAt: r.created_at,
    finishedAt: r.finished_at ?? undefined,
    systemId: r.system_id,
    configPath: r.config_path ?? undefined,
    config: JSON.parse(r.config_json),
    inputs: JSON.parse(r.inputs_json),
    validators: JSON.parse(r.validators_json),
    samples: r.m,
    N: r.n,
    M: r.m,
    K: r.k,
  };
}

export function toSample(r: SampleRow): SampleRecord {
  const s: SampleRecord = {
    i: r.i,
    j: r.j,
    outcomes: Array.from(r.outcomes) as OutcomeCode[],
    latencyMs: r.latency_ms,
    attempts: r.attempts,
    finishedAt: r.finished_at,
  };
  if (r.output !== null) s.output = r.output;
  if (r.generation_error !== null) s.generationError = r.generation_error;
  // JSON has no undefined: holes written as null come back as undefined, as they went in.
  if (r.errors_json !== null) s.errors = (JSON.parse(r.errors_json) as (string | null)[]).map((e) => e ?? undefined);
  if (r.reasons_json !== null) s.reasons = (JSON.parse(r.reasons_json) as (string[] | null)[]).map((e) => e ?? undefined);
  if (r.prompt_tokens !== null || r.completion_tokens !== null) {
    s.usage = { promptTokens: r.prompt_tokens ?? 0, completionTokens: r.completion_tokens ?? 0 };
  }
  if (r.cost_json !== null && r.cost_json !== undefined) {
    const cost = JSON.parse(r.cost_json) as SampleCost & { checks?: (number | null | undefined)[] };
    s.cost = cost.checks ? { ...cost, checks: cost.checks.map((c) => c ?? undefined) } : cost;
  }
  if (r.cached) s.cached = true;
  if (r.trajectory_json !== null && r.trajectory_json !== undefined) s.trajectory = JSON.parse(r.trajectory_json) as Trajectory;
  if (r.claims_json !== null && r.claims_json !== undefined) s.claims = (JSON.parse(r.claims_json) as (CheckedClaim[] | null)[]).map((c) => c ?? undefined);
  return s;
}

/** The named parameters of the sample INSERT. */
export function sampleParams(runId: string, s: SampleRecord) {
  return {
    run_id: runId,
    i: s.i,
    j: s.j,
    outcomes: Buffer.from(Uint8Array.from(s.outcomes)),
    output: s.output ?? null,
    generation_error: s.generationError ?? null,
    errors_json: s.errors ? JSON.stringify(s.errors) : null,
    reasons_json: s.reasons ? JSON.stringify(s.reasons) : null,
    latency_ms: s.latencyMs,
    attempts: s.attempts,
    prompt_tokens: s.usage?.promptTokens ?? null,
    completion_tokens: s.usage?.completionTokens ?? null,
    finished_at: s.finishedAt ?? new Date().toISOString(),
    // Holes in `checks` are written as null and read back as undefined, as with errors and reasons.
    cost_json: s.cost ? JSON.stringify(s.cost.checks ? { ...s.cost, checks: s.cost.checks.map((c) => c ?? null) } : s.cost) : null,
    cached: s.cached ? 1 : null,
    trajectory_json: s.trajectory ? JSON.stringify(s.trajectory) : null,
    claims_json: s.claims ? JSON.stringify(s.claims.map((c) => c ?? null)) : null,
  };
}

export interface GradeRow {
  id: number;
  run_id: string;
  i: number;
  j: number;
  rule: string;
  grade: 'pass' | 'fail';
  grader: string;
  graded_at: string;
  probability: number | null;
  design: string | null;
}

export const GRADE_COLUMNS = ['run_id', 'i', 'j', 'rule', 'grade', 'grader', 'graded_at', 'probability', 'design'] as const;

export function gradeValues(runId: string, g: NewGrade & { gradedAt: string }): unknown[] {
  return [runId, g.i, g.j, g.rule, g.grade, g.grader, g.gradedAt, g.probability ?? null, g.design ?? null];
}

/** A grade row of either SQL store (Postgres gives its id as a bigint string and graded_at as a Date). */
export function toGrade(r: Omit<GradeRow, 'id' | 'graded_at'> & { id: number | string; graded_at: string | Date }): GradeRecord {
  return {
    id: Number(r.id),
    runId: r.run_id,
    i: r.i,
    j: r.j,
    rule: r.rule,
    grade: r.grade,
    grader: r.grader,
    gradedAt: typeof r.graded_at === 'string' ? r.graded_at : r.graded_at.toISOString(),
    ...(r.probability !== null ? { probability: r.probability } : {}),
    ...(r.design !== null ? { design: r.design } : {}),
  };
}
