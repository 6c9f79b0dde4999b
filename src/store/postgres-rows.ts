import type pg from 'pg';
import { sampleParams, toRun, toSample, type RunRow, type SampleRow } from './sqlite-rows.js';
import type { NewRun, RunRecord, RunStatus, SampleRecord } from './types.js';

/**
 * The PostgreSQL store's rows and the Store's records. The layout is SQLite's (sqlite-rows.ts), with
 * timestamptz for times (pg reads them as Date) and free text kept as JSON strings (see postgres-schema.ts).
 */

/**
 * A query of a PostgreSQL store, as its parts make them: through its pool, once the schema is ready, riding
 * out a lost server when the store was opened to (store/postgres.ts).
 */
export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

export const RUN_COLUMNS = [
  'id',
  'name',
  'status',
  'created_at',
  'system_id',
  'config_path',
  'config_json',
  'inputs_json',
  'validators_json',
  'n',
  'm',
  'k',
] as const;

export const SAMPLE_COLUMNS = [
  'run_id',
  'i',
  'j',
  'outcomes',
  'output',
  'generation_error',
  'errors_json',
  'reasons_json',
  'latency_ms',
  'attempts',
  'prompt_tokens',
  'completion_tokens',
  'finished_at',
  'cost_json',
  'cached',
  'trajectory_json',
  'claims_json',
] as const;

export interface PgRunRow extends Omit<RunRow, 'created_at' | 'finished_at'> {
  created_at: Date;
  finished_at: Date | null;
  status: RunStatus;
}

export interface PgSampleRow extends Omit<SampleRow, 'finished_at' | 'cached'> {
  finished_at: Date;
  cached?: boolean | null;
}

/** A string as the JSON text of a json column (null stays null). */
export const textOf = (s: string | undefined): string | null => (s === undefined ? null : JSON.stringify(s));

/** A text column kept as a JSON string (Postgres text cannot hold U+0000), read back. */
export const jsonText = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : (JSON.parse(v as string) as string));

export function pgRunValues(id: string, run: NewRun): unknown[] {
  return [
    id,
    run.name,
    'running',
    new Date().toISOString(),
    run.systemId,
    run.configPath ?? null,
    JSON.stringify(run.config ?? null),
    JSON.stringify(run.inputs),
    JSON.stringify(run.validators),
    run.inputs.length,
    run.samples,
    run.validators.length,
  ];
}

export function toPgRun(r: PgRunRow): RunRecord {
  return toRun({ ...r, created_at: r.created_at.toISOString(), finished_at: r.finished_at?.toISOString() ?? null });
}

export function pgSampleValues(runId: string, s: SampleRecord): unknown[] {
  const p = sampleParams(runId, s);
  return [
    p.run_id,
    p.i,
    p.j,
    p.outcomes,
    textOf(s.output),
    textOf(s.generationError),
    p.errors_json,
    p.reasons_json,
    p.latency_ms,
    p.attempts,
    p.prompt_tokens,
    p.completion_tokens,
    p.finished_at,
    p.cost_json,
    s.cached ? true : null,
    p.trajectory_json,
    p.claims_json,
  ];
}

export function toPgSample(r: PgSampleRow): SampleRecord {
  return toSample({
    ...r,
    output: r.output === null ? null : (JSON.parse(r.output) as string),
    generation_error: r.generation_error === null ? null : (JSON.parse(r.generation_error) as string),
    finished_at: r.finished_at.toISOString(),
    cached: r.cached ? 1 : null,
  });
}
