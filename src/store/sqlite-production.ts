import type Database from 'better-sqlite3';
import { trajectoryOfSteps, type ProductionExperiment, type ProductionSample, type ProductionSpan } from '../core/production.js';
import { oneLine, SPAN_COLUMNS, spanValues, toAlarm, toCheck, toSample, toSpan, type AlarmRow, type CheckRow, type SpanRow } from './production-rows.js';
import type { AlarmKey, ProductionAlarm, ProductionCheck, ProductionStore } from './types.js';

/** A read of a store from before production traffic (opened read-only, so never migrated): it has none. */
function orNone<T>(read: () => T, none: T): T {
  try {
    return read();
  } catch (err) {
    if (/no such table: production_/.test(String((err as Error).message))) return none;
    throw err;
  }
}

/** Production traffic in a SQLite store (tables production_*, migration 6 of store/sqlite-rows.ts). */
export class SqliteProduction implements ProductionStore {
  // Prepared on first use: a read-only store from before production traffic has no such tables.
  private stmts?: ReturnType<SqliteProduction['prepare']>;

  constructor(private readonly db: Database.Database) {}

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare(`INSERT OR IGNORE INTO production_spans (${SPAN_COLUMNS.join(', ')}) VALUES (${SPAN_COLUMNS.map(() => '?').join(', ')})`),
      steps: db.prepare(`SELECT * FROM production_spans WHERE trace_id = ? AND parent_span_id = ? AND kind = 'step'`),
      check: db.prepare(`INSERT OR REPLACE INTO production_checks (experiment, rule, seq, outcome, at_ms, reason) VALUES (?, ?, ?, ?, ?, ?)`),
      cursor: db.prepare(`INSERT OR REPLACE INTO production_cursors (experiment, rule, seq) VALUES (?, ?, ?)`),
      settings: db.prepare(`INSERT OR REPLACE INTO production_rule_settings (experiment, rule, settings_json) VALUES (?, ?, ?)`),
      alarm: db.prepare(
        `INSERT OR IGNORE INTO production_alarms (experiment, rule, kind, at_seq, at_ms, message, raised_at, delivered) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  private get s() {
    return (this.stmts ??= this.prepare());
  }

  async ingest(spans: readonly ProductionSpan[]): Promise<{ stored: number; duplicates: number }> {
    const { insert } = this.s;
    const stored = this.db.transaction(() => {
      let n = 0;
      for (const span of spans) n += insert.run(...spanValues(span)).changes;
      return n;
    })();
    return { stored, duplicates: spans.length - stored };
  }

  async experiments(): Promise<ProductionExperiment[]> {
    const rows = orNone(
      () =>
        this.db
          .prepare(
            `SELECT experiment, count(*) AS n, min(end_ms) AS first, max(end_ms) AS last FROM production_spans WHERE kind = 'sample' GROUP BY experiment ORDER BY experiment`,
          )
          .all() as { experiment: string; n: number; first: number; last: number }[],
      [],
    );
    return rows.map((r) => ({ name: r.experiment, samples: r.n, firstMs: r.first, lastMs: r.last }));
  }

  async list(experiment: string, page: { afterSeq?: number; limit?: number; newest?: boolean } = {}): Promise<ProductionSample[]> {
    const limit = page.limit === undefined ? -1 : Math.max(0, Math.floor(page.limit));
    const rows = this.db
      .prepare(
        `SELECT * FROM production_spans WHERE experiment = ? AND kind = 'sample' AND seq > ? ORDER BY seq ${page.newest ? 'DESC' : 'ASC'} LIMIT ${limit}`,
      )
      .all(experiment, Math.floor(page.afterSeq ?? 0)) as SpanRow[];
    return rows.map((r) => {
      const sample = toSample(Number(r.seq), toSpan(r));
      const trajectory = trajectoryOfSteps((this.s.steps.all(r.trace_id, r.span_id) as SpanRow[]).map((c) => toSpan(c)));
      return trajectory ? { ...sample, trajectory } : sample;
    });
  }

  async recordChecks(experiment: string, rule: string, checks: readonly ProductionCheck[], cursor: number, settings?: unknown): Promise<void> {
    const { check, cursor: setCursor, settings: setSettings } = this.s;
    this.db.transaction(() => {
      for (const c of checks) check.run(experiment, rule, c.seq, c.outcome, c.atMs, c.reason === undefined ? null : oneLine(c.reason));
      setCursor.run(experiment, rule, cursor);
      if (settings !== undefined) setSettings.run(experiment, rule, JSON.stringify(settings));
    })();
  }

  async checks(experiment: string, rule: string): Promise<ProductionCheck[]> {
    const rows = this.db
      .prepare(`SELECT seq, outcome, at_ms, reason FROM production_checks WHERE experiment = ? AND rule = ? ORDER BY seq`)
      .all(experiment, rule) as CheckRow[];
    return rows.map((r) => toCheck(r));
  }

  async cursor(experiment: string, rule: string): Promise<number> {
    const row = this.db.prepare(`SELECT seq FROM production_cursors WHERE experiment = ? AND rule = ?`).get(experiment, rule) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  async rules(experiment: string): Promise<{ rule: string; checks: number; settings?: unknown }[]> {
    // A read-only store of schema 6 or 7 has no settings (migration 8).
    const has = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'production_rule_settings'`).get() as unknown;
    const settings = has ? '(SELECT s.settings_json FROM production_rule_settings s WHERE s.experiment = k.experiment AND s.rule = k.rule)' : 'NULL';
    return orNone(
      () =>
        this.db
          .prepare(
            `SELECT k.rule AS rule, ${settings} AS settings, (SELECT count(*) FROM production_checks c WHERE c.experiment = k.experiment AND c.rule = k.rule) AS checks
             FROM production_cursors k WHERE k.experiment = ? ORDER BY k.rule`,
          )
          .all(experiment) as { rule: string; checks: number; settings: string | null }[],
      [],
    ).map(({ settings, ...r }) => (settings === null ? r : { ...r, settings: JSON.parse(settings) as unknown }));
  }

  async recordAlarm(a: ProductionAlarm): Promise<boolean> {
    const raisedAt = a.raisedAt ?? new Date().toISOString();
    const delivered = a.delivered === undefined ? null : a.delivered ? 1 : 0;
    return this.s.alarm.run(a.experiment, a.rule, a.kind, a.atSeq, a.atMs, oneLine(a.message), raisedAt, delivered).changes > 0;
  }

  async markDelivered(a: AlarmKey): Promise<void> {
    this.db
      .prepare(`UPDATE production_alarms SET delivered = 1 WHERE experiment = ? AND rule = ? AND kind = ? AND at_seq = ?`)
      .run(a.experiment, a.rule, a.kind, a.atSeq);
  }

  async alarms(experiment: string): Promise<ProductionAlarm[]> {
    const rows = orNone(() => this.db.prepare(`SELECT * FROM production_alarms WHERE experiment = ? ORDER BY id`).all(experiment) as AlarmRow[], []);
    return rows.map(toAlarm);
  }
}
