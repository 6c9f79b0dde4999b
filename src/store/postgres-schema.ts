import { UsageError } from '../errors.js';

/**
 * The PostgreSQL store's schema as versioned migrations, applied in order on first use (store/postgres.ts)
 * and recorded in `assay_migrations`. Never edit a released migration: add the next one.
 *
 * JSON-valued columns are `json`, not `jsonb`: json keeps the text as written (key order included, which a
 * resume compares), and it can hold U+0000, which `text` cannot. That is also why outputs, which a model
 * may fill with any character, are stored as JSON strings.
 */
export const PG_MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'runs, samples and the guard attempt log',
    sql: `
CREATE TABLE runs (
  id text PRIMARY KEY,
  name text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  finished_at timestamptz,
  system_id text NOT NULL,
  config_path text,
  config_json json NOT NULL,
  inputs_json json NOT NULL,
  validators_json json NOT NULL,
  n integer NOT NULL,
  m integer NOT NULL,
  k integer NOT NULL
);
CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);
CREATE INDEX runs_by_name ON runs (name, created_at DESC, id DESC);
CREATE TABLE samples (
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  i integer NOT NULL,
  j integer NOT NULL,
  outcomes bytea NOT NULL,
  output json,
  generation_error json,
  errors_json json,
  reasons_json json,
  latency_ms double precision NOT NULL,
  attempts integer NOT NULL,
  prompt_tokens integer,
  completion_tokens integer,
  finished_at timestamptz NOT NULL,
  PRIMARY KEY (run_id, i, j)
);
CREATE TABLE guard_calls (
  call_id text PRIMARY KEY,
  system_id text NOT NULL,
  input_json json NOT NULL,
  accepted boolean NOT NULL,
  reason text NOT NULL,
  detail json,
  output json,
  attempts integer NOT NULL,
  prompt_tokens integer NOT NULL,
  completion_tokens integer NOT NULL,
  cost double precision,
  latency_ms double precision NOT NULL,
  finished_at timestamptz NOT NULL
);
CREATE INDEX guard_calls_by_finished ON guard_calls (finished_at DESC, call_id DESC);
CREATE TABLE guard_attempts (
  call_id text NOT NULL,
  n integer NOT NULL,
  system_id text NOT NULL,
  started_at timestamptz NOT NULL,
  input_json json NOT NULL,
  output json,
  generation_error json,
  status text NOT NULL,
  validators_json json NOT NULL,
  verifier_json json,
  reasons_json json NOT NULL,
  latency_ms double precision NOT NULL,
  prompt_tokens integer NOT NULL,
  completion_tokens integer NOT NULL,
  verifier_prompt_tokens integer NOT NULL,
  verifier_completion_tokens integer NOT NULL,
  PRIMARY KEY (call_id, n)
);
`,
  },
  {
    version: 2,
    name: 'response cache; what each sample cost',
    sql: `
ALTER TABLE samples ADD COLUMN cost_json json;
ALTER TABLE samples ADD COLUMN cached boolean;
CREATE TABLE response_cache (
  key text PRIMARY KEY,
  value text NOT NULL,
  stored_at timestamptz NOT NULL
);
`,
  },
  {
    version: 3,
    name: "people's grades of outputs",
    // A log: every grade is a row (undo deletes one). Grader and design are refused with control characters
    // before they get here, so text holds them.
    sql: `
CREATE TABLE grades (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  i integer NOT NULL,
  j integer NOT NULL,
  rule json NOT NULL,
  grade text NOT NULL CHECK (grade IN ('pass', 'fail')),
  grader text NOT NULL,
  graded_at timestamptz NOT NULL,
  probability double precision,
  design text
);
CREATE INDEX grades_by_run ON grades (run_id, graded_at, id);
`,
  },
  {
    version: 4,
    name: "an agent's steps with each sample",
    // json (not jsonb): tool results may hold U+0000, which jsonb refuses; NULL for a text answer and older samples.
    sql: `
ALTER TABLE samples ADD COLUMN trajectory_json json;
`,
  },
  {
    version: 5,
    name: 'production traffic: GenAI spans, monitor checks and alarms',
    // Free text (input, output, model, error, reasons, messages) as JSON strings: text cannot hold U+0000.
    sql: `
CREATE TABLE production_spans (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  trace_id text NOT NULL,
  span_id text NOT NULL,
  parent_span_id text,
  kind text NOT NULL CHECK (kind IN ('sample', 'step')),
  experiment text NOT NULL,
  name text NOT NULL,
  start_ms double precision NOT NULL,
  end_ms double precision NOT NULL,
  input json,
  output json,
  model json,
  prompt_tokens integer,
  completion_tokens integer,
  error json,
  step_json json,
  UNIQUE (trace_id, span_id)
);
CREATE INDEX production_by_experiment ON production_spans (experiment, kind, seq);
CREATE INDEX production_by_parent ON production_spans (trace_id, parent_span_id);
CREATE TABLE production_checks (
  experiment text NOT NULL,
  rule text NOT NULL,
  seq bigint NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('pass', 'fail', 'error')),
  at_ms double precision NOT NULL,
  reason json,
  PRIMARY KEY (experiment, rule, seq)
);
CREATE TABLE production_cursors (
  experiment text NOT NULL,
  rule text NOT NULL,
  seq bigint NOT NULL,
  settings_json json,
  PRIMARY KEY (experiment, rule)
);
CREATE TABLE production_alarms (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  experiment text NOT NULL,
  rule text NOT NULL,
  kind text NOT NULL,
  at_seq bigint NOT NULL,
  at_ms double precision NOT NULL,
  message text NOT NULL,
  raised_at timestamptz NOT NULL,
  UNIQUE (experiment, rule, kind, at_seq)
);
`,
  },
  {
    version: 6,
    name: 'grades listed by run in the order recorded',
    sql: `
CREATE INDEX IF NOT EXISTS grades_by_run_recorded ON grades (run_id, id);
`,
  },
  {
    version: 7,
    name: "a monitor's settings with each rule's cursor",
    // A table of its own: some stores got migration 5 with production_cursors.settings_json and some without (it was
    // edited after release), so that column is left unused.
    sql: `
CREATE TABLE IF NOT EXISTS production_rule_settings (
  experiment text NOT NULL,
  rule text NOT NULL,
  settings_json json NOT NULL,
  PRIMARY KEY (experiment, rule)
);
`,
  },
  {
    version: 8,
    name: "whether each alarm reached the monitor's webhook",
    // NULL: nobody was to be told; false: not delivered yet (the next `assay monitor` pass sends it again); true: delivered.
    sql: `
ALTER TABLE production_alarms ADD COLUMN IF NOT EXISTS delivered boolean;
`,
  },
  {
    version: 9,
    name: "grounding audit batches and people's grades of their claims",
    sql: `
CREATE TABLE IF NOT EXISTS audits (
  id text PRIMARY KEY,
  name json NOT NULL,
  created_at timestamptz NOT NULL,
  claims json NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_grades (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  audit_id text NOT NULL REFERENCES audits (id),
  answer json NOT NULL,
  claim int NOT NULL,
  supported boolean NOT NULL,
  grader json NOT NULL,
  graded_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_grades_by_audit ON audit_grades (audit_id, id);
`,
  },
  {
    version: 10,
    name: "the grounded rule's claims kept with each sample; audit batches of a run, stored once per content",
    // content_key: store/audits.ts auditContentKey. Batches stored before it have none and match nothing.
    sql: `
ALTER TABLE samples ADD COLUMN IF NOT EXISTS claims_json json;
ALTER TABLE audits ADD COLUMN IF NOT EXISTS run_id text;
ALTER TABLE audits ADD COLUMN IF NOT EXISTS rule json;
ALTER TABLE audits ADD COLUMN IF NOT EXISTS content_key text;
CREATE UNIQUE INDEX IF NOT EXISTS audits_by_content ON audits (content_key);
CREATE INDEX IF NOT EXISTS audits_by_run ON audits (run_id);
`,
  },
  {
    version: 11,
    name: "the grades that decide a run's combined grades, found by one index",
    // GradeStore.decisive (store/postgres-grades.ts); rule is json, which has no equality: grouped by its text.
    // Grades are no longer read by date (issue 30: in the order recorded), so that index goes, paying for this one.
    sql: `
CREATE INDEX IF NOT EXISTS grades_by_output ON grades (run_id, (rule::text), i, j, grader, id, probability);
DROP INDEX IF EXISTS grades_by_run;
`,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;

/** True for a store location that names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export interface PostgresLocation {
  /** The URL as given minus assay's own `schema` parameter: what `pg` connects with. */
  connectionString: string;
  /** The schema holding assay's tables (`?schema=`, default `assay`). */
  schema: string;
  /** The URL for messages: the password replaced by ***. */
  shown: string;
  /** The URL's `options` parameter (server settings such as `-c statement_timeout=5000`), kept to add ours to. */
  options?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Read a `postgres://user[:password]@host[:port]/database[?schema=name&…]` URL; UsageError when it is not one. */
export function parsePostgresUrl(url: string): PostgresLocation {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`store: expected a URL such as postgres://user@host:5432/database, found ${JSON.stringify(redactPassword(url))}`, {
      path: 'store',
      key: 'store',
    });
  }
  if (!isPostgresUrl(url))
    throw new UsageError(`store: expected a postgres:// URL, found ${JSON.stringify(redactPassword(url))}`, { path: 'store', key: 'store' });
  const schema = u.searchParams.get('schema') ?? 'assay';
  if (!SCHEMA_NAME.test(schema)) {
    throw new UsageError(`store: the schema parameter must be a plain identifier (letters, digits, _; at most 63), found ${JSON.stringify(schema)}`, {
      path: 'store',
      key: 'store',
    });
  }
  const options = u.searchParams.get('options') ?? undefined;
  u.searchParams.delete('schema');
  u.searchParams.delete('options');
  return { connectionString: u.toString(), schema, shown: redactPassword(url), ...(options ? { options } : {}) };
}

/** `postgres://alice:secret@db/x` → `postgres://alice:***@db/x`, for anything printed or logged. */
export function redactPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@');
}
