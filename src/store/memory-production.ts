import { trajectoryOfSteps, type ProductionExperiment, type ProductionSample, type ProductionSpan } from '../core/production.js';
import { oneLine, toSample } from './production-rows.js';
import type { AlarmKey, ProductionAlarm, ProductionCheck, ProductionStore } from './types.js';

/** Production traffic in memory (MemoryStore): the same contract as the SQL stores. */
export class MemoryProduction implements ProductionStore {
  private spans = new Map<string, { seq: number; span: ProductionSpan }>();
  private children = new Map<string, ProductionSpan[]>();
  private seq = 0;
  private checkLog = new Map<string, Map<number, ProductionCheck>>();
  private cursors = new Map<string, number>();
  private settings = new Map<string, unknown>();
  private alarmLog: ProductionAlarm[] = [];

  async ingest(spans: readonly ProductionSpan[]): Promise<{ stored: number; duplicates: number }> {
    let stored = 0;
    for (const s of spans) {
      const key = `${s.traceId}:${s.spanId}`;
      if (this.spans.has(key)) continue;
      const span = structuredClone(s);
      this.spans.set(key, { seq: ++this.seq, span });
      if (s.kind === 'step' && s.parentSpanId) {
        const parent = `${s.traceId}:${s.parentSpanId}`;
        this.children.set(parent, [...(this.children.get(parent) ?? []), span]);
      }
      stored++;
    }
    return { stored, duplicates: spans.length - stored };
  }

  async experiments(): Promise<ProductionExperiment[]> {
    const by = new Map<string, ProductionExperiment>();
    for (const { span } of this.spans.values()) {
      if (span.kind !== 'sample') continue;
      const e = by.get(span.experiment);
      if (!e) by.set(span.experiment, { name: span.experiment, samples: 1, firstMs: span.endMs, lastMs: span.endMs });
      else {
        e.samples++;
        e.firstMs = Math.min(e.firstMs, span.endMs);
        e.lastMs = Math.max(e.lastMs, span.endMs);
      }
    }
    return [...by.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async list(experiment: string, page: { afterSeq?: number; limit?: number; newest?: boolean } = {}): Promise<ProductionSample[]> {
    let rows = [...this.spans.values()].filter(({ seq, span }) => span.kind === 'sample' && span.experiment === experiment && seq > (page.afterSeq ?? 0));
    if (page.newest) rows.reverse();
    if (page.limit !== undefined) rows = rows.slice(0, Math.max(0, Math.floor(page.limit)));
    return rows.map(({ seq, span }) => {
      const sample = toSample(seq, structuredClone(span));
      const trajectory = trajectoryOfSteps(this.children.get(`${span.traceId}:${span.spanId}`) ?? []);
      return trajectory ? { ...sample, trajectory } : sample;
    });
  }

  async recordChecks(experiment: string, rule: string, checks: readonly ProductionCheck[], cursor: number, settings?: unknown): Promise<void> {
    const key = JSON.stringify([experiment, rule]);
    const log = this.checkLog.get(key) ?? new Map<number, ProductionCheck>();
    for (const c of checks) log.set(c.seq, { ...c, ...(c.reason !== undefined ? { reason: oneLine(c.reason) } : {}) });
    this.checkLog.set(key, log);
    this.cursors.set(key, cursor);
    if (settings === undefined) this.settings.delete(key);
    else this.settings.set(key, structuredClone(settings));
  }

  async checks(experiment: string, rule: string): Promise<ProductionCheck[]> {
    return [...(this.checkLog.get(JSON.stringify([experiment, rule]))?.values() ?? [])].sort((a, b) => a.seq - b.seq).map((c) => ({ ...c }));
  }

  async cursor(experiment: string, rule: string): Promise<number> {
    return this.cursors.get(JSON.stringify([experiment, rule])) ?? 0;
  }

  async rules(experiment: string): Promise<{ rule: string; checks: number; settings?: unknown }[]> {
    return [...this.cursors.keys()]
      .map((k) => JSON.parse(k) as [string, string])
      .filter(([e]) => e === experiment)
      .map(([, rule]) => {
        const key = JSON.stringify([experiment, rule]);
        const settings = this.settings.get(key);
        return { rule, checks: this.checkLog.get(key)?.size ?? 0, ...(settings !== undefined ? { settings: structuredClone(settings) } : {}) };
      })
      .sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  }

  async recordAlarm(alarm: ProductionAlarm): Promise<boolean> {
    if (this.alarmLog.some((a) => a.experiment === alarm.experiment && a.rule === alarm.rule && a.kind === alarm.kind && a.atSeq === alarm.atSeq)) return false;
    this.alarmLog.push({ ...alarm, message: oneLine(alarm.message), raisedAt: alarm.raisedAt ?? new Date().toISOString() });
    return true;
  }

  async markDelivered(key: AlarmKey): Promise<void> {
    const a = this.alarmLog.find((a) => a.experiment === key.experiment && a.rule === key.rule && a.kind === key.kind && a.atSeq === key.atSeq);
    if (a) a.delivered = true;
  }

  async alarms(experiment: string): Promise<ProductionAlarm[]> {
    return this.alarmLog.filter((a) => a.experiment === experiment).map((a) => ({ ...a }));
  }
}
