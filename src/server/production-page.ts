import type { ProductionExperiment, ProductionSample } from '../core/production.js';
import { NO_VALUE } from '../core/show.js';
import { esc, tableHtml } from '../report/html-layout.js';
import type { ProductionAlarm } from '../store/types.js';

/** The dashboard's production pages (bodies only): the experiments fed by traces, and the latest samples of one. */

const enc = encodeURIComponent;

function when(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : NO_VALUE;
}

function cut(s: string | undefined, n = 160): string {
  if (s === undefined) return `<span class="muted">${NO_VALUE}</span>`;
  return esc(s.length > n ? `${s.slice(0, n - 1)}…` : s);
}

export function productionListBody(experiments: readonly ProductionExperiment[], alarms: ReadonlyMap<string, number>): string {
  const columns = [{ label: 'experiment' }, { label: 'samples', num: true }, { label: 'first (UTC)' }, { label: 'last (UTC)' }, { label: 'alarms', num: true }];
  const rows = experiments.map((e) => [
    `<a href="/production/experiment?name=${enc(e.name)}"><strong>${esc(e.name)}</strong></a>`,
    e.samples.toLocaleString('en'),
    `<span class="nowrap">${when(e.firstMs)}</span>`,
    `<span class="nowrap">${when(e.lastMs)}</span>`,
    (alarms.get(e.name) ?? 0) > 0 ? `<span class="worse">${alarms.get(e.name)}</span>` : '0',
  ]);
  const empty =
    '<p class="muted">No production traffic yet. Point an OpenTelemetry exporter at <code>/v1/traces</code> of <code>assay serve --ingest</code>, or load a log with <code>assay ingest FILE</code> (docs/production.md).</p>';
  return `<h1>Production</h1>
<p class="muted">Experiments made of live traffic: one sample per GenAI span, named by service and operation.</p>
<section class="card">${rows.length ? tableHtml(columns, rows, { label: 'production experiments', rowHeader: true }) : empty}</section>`;
}

export interface RuleLink {
  rule: string;
  checks: number;
}

export function productionExperimentBody(
  experiment: ProductionExperiment,
  samples: readonly ProductionSample[],
  alarms: readonly ProductionAlarm[],
  rules: readonly RuleLink[],
): string {
  const columns = [
    { label: 'ended (UTC)' },
    { label: 'input' },
    { label: 'output' },
    { label: 'steps', num: true },
    { label: 'model' },
    { label: 'tokens', num: true },
    { label: 'latency', num: true },
    { label: 'trace' },
  ];
  const rows = samples.map((s) => [
    `<span class="nowrap">${when(s.endMs)}</span>`,
    cut(s.input),
    s.error !== undefined ? `<span class="worse">error: ${cut(s.error)}</span>` : cut(s.output),
    String(s.trajectory?.steps.length ?? 0),
    cut(s.model, 40),
    s.usage ? `${s.usage.promptTokens} + ${s.usage.completionTokens}` : NO_VALUE,
    `${Math.round(s.latencyMs).toLocaleString('en')} ms`,
    `<code title="span ${esc(s.spanId)}">${esc(s.traceId)}</code>`,
  ]);
  const alarmList = alarms.length
    ? `<section class="card"><h2>Alarms</h2><ul>${alarms
        .slice(-20)
        .reverse()
        .map((a) => `<li class="worse">${when(a.atMs)} · <strong>${esc(a.rule)}</strong>: ${esc(a.message)}</li>`)
        .join('')}</ul></section>`
    : '';
  const ruleList = rules.length
    ? `<section class="card"><h2>Rules watched</h2><ul>${rules
        .map(
          (r) =>
            `<li><a href="/production/rule?experiment=${enc(experiment.name)}&amp;rule=${enc(r.rule)}">${esc(r.rule)}</a> <span class="muted">${r.checks.toLocaleString('en')} checks</span></li>`,
        )
        .join('')}</ul></section>`
    : '<p class="muted">No monitor has checked this experiment yet (<code>assay monitor</code>, docs/production.md).</p>';
  return `<h1>${esc(experiment.name)}</h1>
<p class="muted">${experiment.samples.toLocaleString('en')} samples from ${when(experiment.firstMs)} to ${when(experiment.lastMs)} UTC · <a href="/production">all production experiments</a> · <a href="/api/production/samples?experiment=${enc(experiment.name)}">JSON</a></p>
${alarmList}${ruleList}
<section class="card"><h2>Latest samples</h2>${rows.length ? tableHtml(columns, rows, { label: 'latest samples' }) : '<p class="muted">none</p>'}</section>`;
}
