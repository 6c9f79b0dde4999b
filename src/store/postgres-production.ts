import { trajectoryOfSteps, type ProductionExperiment, type ProductionSample, type ProductionSpan } from '../core/production.js';
import { jsonText, textOf, type Query } from './postgres-rows.js';
import { oneLine, SPAN_COLUMNS, spanValues, toAlarm, toCheck, toSample, toSpan, type AlarmRow, type CheckRow, type SpanRow } from './production-rows.js';
import type { AlarmKey, ProductionAlarm, ProductionCheck, ProductionStore } from './types.js';

/** The PostgreSQL type of each of SPAN_COLUMNS (for unnest). */
const SPAN_COLUMN_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'float8', 'float8', 'json', 'json', 'json', 'int4', 'int4', 'json', 'json'] as const;

/** A read of a store from before production traffic (opened read-only, so never migrated): it has none. */
async function orNone<T>(read: () => Promise<T>, none: NoInfer<Partial<T>>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return none as T;
    throw err;
  }
}

/** Production traffic in a PostgreSQL store (tables production_*, migration 5 of store/postgres-schema.ts). */
export class PostgresProduction implements ProductionStore {
  constructor(private readonly q: Query) {}

  async ingest(spans: readonly ProductionSpan[]): Promise<{ stored: number; duplicates: number }> {
    if (spans.length === 0) return { stored: 0, duplicates: 0 };
    // One array per column, unnested: the statement's text and plan are the same for any batch size.
    const columns: unknown[][] = SPAN_COLUMNS.map(() => new Array<unknown>(spans.length));
    spans.forEach((span, r) => spanValues(span, textOf).forEach((v, c) => (columns[c][r] = v)));
    const arrays = SPAN_COLUMNS.map((_, c) => `$${c + 1}::${SPAN_COLUMN_TYPES[c]}[]`).join(', ');
    const text = `INSERT INTO production_spans (${SPAN_COLUMNS.join(', ')}) SELECT * FROM unnest(${arrays}) ON CONFLICT (trace_id, span_id) DO NOTHING`;
    const stored = (await this.q(text, columns)).rowCount ?? 0;
    return { stored, duplicates: spans.length - stored };
  }

  async experiments(): Promise<ProductionExperiment[]> {
    const { rows } = await orNone(
      () =>
        this.q<{ experiment: string; n: string; first: number; last: number }>(
          `SELECT experiment, count(*) AS n, min(end_ms) AS first, max(end_ms) AS last FROM production_spans WHERE kind = 'sample' GROUP BY experiment ORDER BY experiment COLLATE "C"`,
        ),
      { rows: [] as { experiment: string; n: string; first: number; last: number }[] },
    );
    return rows.map((r) => ({ name: r.experiment, samples: Number(r.n), firstMs: r.first, lastMs: r.last }));
  }

  async list(experiment: string, page: { afterSeq?: number; limit?: number; newest?: boolean } = {}): Promise<ProductionSample[]> {
    const limit = page.limit === undefined ? '' : `LIMIT ${Math.max(0, Math.floor(page.limit))}`;
    const { rows } = await this.q<SpanRow>(
      `SELECT * FROM production_spans WHERE experiment = $1 AND kind = 'sample' AND seq > $2 ORDER BY seq ${page.newest ? 'DESC' : 'ASC'} ${limit}`,
      [experiment, Math.floor(page.afterSeq ?? 0)],
    );
    if (rows.length === 0) return [];
    const { rows: steps } = await this.q<SpanRow>(
      `SELECT p.* FROM production_spans p JOIN unnest($1::text[], $2::text[]) AS s(trace_id, span_id) ON p.trace_id = s.trace_id AND p.parent_span_id = s.span_id WHERE p.kind = 'step'`,
      [rows.map((r) => r.trace_id), rows.map((r) => r.span_id)],
    );
    const byParent = new Map<string, ProductionSpan[]>();
    for (const s of steps) {
      const key = `${s.trace_id}:${s.parent_span_id}`;
      byParent.set(key, [...(byParent.get(key) ?? []), toSpan(s, jsonText)]);
    }
    return rows.map((r) => {
      const sample = toSample(Number(r.seq), toSpan(r, jsonText));
      const trajectory = trajectoryOfSteps(byParent.get(`${r.trace_id}:${r.span_id}`) ?? []);
      return trajectory ? { ...sample, trajectory } : sample;
    });
  }

  async recordChecks(experiment: string, rule: string, checks: readonly ProductionCheck[], cursor: number, settings?: unknown): Promise<void> {
    // One statement (atomic): the checks and the cursor are stored together or not at all.
    const values: unknown[] = [experiment, rule, cursor, settings === undefined ? null : JSON.stringify(settings)];
    const rows = checks.map((c) => {
      values.push(c.seq, c.outcome, c.atMs, c.reason === undefined ? null : textOf(oneLine(c.reason)));
      const n = values.length;
      return `($1, $2, $${n - 3}::bigint, $${n - 2}, $${n - 1}::double precision, $${n}::json)`;
    });
    const upsertChecks = rows.length
      ? `c AS (INSERT INTO production_checks (experiment, rule, seq, outcome, at_ms, reason) VALUES ${rows.join(', ')}
           ON CONFLICT (experiment, rule, seq) DO UPDATE SET outcome = EXCLUDED.outcome, at_ms = EXCLUDED.at_ms, reason = EXCLUDED.reason RETURNING 1), `
      : '';
    await this.q(
      `WITH ${upsertChecks}k AS (INSERT INTO production_cursors (experiment, rule, seq) VALUES ($1, $2, $3) ON CONFLICT (experiment, rule) DO UPDATE SET seq = EXCLUDED.seq RETURNING 1), s AS (INSERT INTO production_rule_settings (experiment, rule, settings_json) SELECT $1, $2, $4::json WHERE $4::text IS NOT NULL ON CONFLICT (experiment, rule) DO UPDATE SET settings_json = EXCLUDED.settings_json RETURNING 1) SELECT 1`,
      values,
    );
  }

  async checks(experiment: string, rule: string): Promise<ProductionCheck[]> {
    const { rows } = await this.q<CheckRow>('SELECT seq, outcome, at_ms, reason FROM production_checks WHERE experiment = $1 AND rule = $2 ORDER BY seq', [
      experiment,
      rule,
    ]);
    return rows.map((r) => toCheck(r, jsonText));
  }

  async cursor(experiment: string, rule: string): Promise<number> {
    const { rows } = await this.q<{ seq: string }>('SELECT seq FROM production_cursors WHERE experiment = $1 AND rule = $2', [experiment, rule]);
    return rows[0] ? Number(rows[0].seq) : 0;
  }

  async rules(experiment: string): Promise<{ rule: string; checks: number; settings?: unknown }[]> {
    // A read-only store of schema 5 or 6 has no settings (migration 7).
    const { rows: has } = await this.q<{ t: boolean }>(`SELECT to_regclass('production_rule_settings') IS NOT NULL AS t`);
    const settings = has[0]?.t
      ? '(SELECT s.settings_json FROM production_rule_settings s WHERE s.experiment = k.experiment AND s.rule = k.rule)'
      : 'NULL::json';
    const { rows } = await orNone(
      () =>
        this.q<{ rule: string; checks: string; settings: string | null }>(
          `SELECT k.rule AS rule, ${settings} AS settings, (SELECT count(*) FROM production_checks c WHERE c.experiment = k.experiment AND c.rule = k.rule) AS checks
           FROM production_cursors k WHERE k.experiment = $1 ORDER BY k.rule COLLATE "C"`,
          [experiment],
        ),
      { rows: [] },
    );
    return rows.map((r) => ({ rule: r.rule, checks: Number(r.checks), ...(r.settings !== null ? { settings: JSON.parse(r.settings) as unknown } : {}) }));
  }

  async recordAlarm(a: ProductionAlarm): Promise<boolean> {
    const { rowCount } = await this.q(
      `INSERT INTO production_alarms (experiment, rule, kind, at_seq, at_ms, message, raised_at, delivered) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (experiment, rule, kind, at_seq) DO NOTHING`,
      [a.experiment, a.rule, a.kind, a.atSeq, a.atMs, oneLine(a.message), a.raisedAt ?? new Date().toISOString(), a.delivered ?? null],
    );
    return (rowCount ?? 0) > 0;
  }

  async markDelivered(a: AlarmKey): Promise<void> {
    await this.q('UPDATE production_alarms SET delivered = true WHERE experiment = $1 AND rule = $2 AND kind = $3 AND at_seq = $4', [
      a.experiment,
      a.rule,
      a.kind,
      a.atSeq,
    ]);
  }

  async alarms(experiment: string): Promise<ProductionAlarm[]> {
    const { rows } = await orNone(() => this.q<AlarmRow>('SELECT * FROM production_alarms WHERE experiment = $1 ORDER BY id', [experiment]), {
      rows: [] as AlarmRow[],
    });
    return rows.map(toAlarm);
  }
}
