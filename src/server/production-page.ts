import { maxOf, minOf } from '../core/arrays.js';
import type { WindowSummary } from '../core/monitor.js';
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

/** What the rule page draws: the rule's windows (rate over time) and the stream since the start (its sequence). */
export interface RulePage {
  experiment: string;
  rule: string;
  alpha: number;
  minSuccess?: number;
  /** The threshold a drop is measured against (the baseline's lower bound less the tolerance). */
  dropThreshold?: number;
  windows: WindowSummary[];
  cumulative: { counts: { pass: number; fail: number; error: number }; rate: number | null; high: number | null };
  alarms: readonly ProductionAlarm[];
}

const W = 760;
const H = 260;
const PAD = { left: 48, right: 16, top: 16, bottom: 36 };

/** Rate (solid) and the upper confidence bound (dashed) per window, with the thresholds; points in time order. */
function rateSvg(
  points: { x: number; rate: number | null; high: number | null; label: string }[],
  lines: { y: number; label: string; color: string }[],
  title: string,
): string {
  if (!points.length) return '<p class="muted">No checks yet.</p>';
  const xs = points.map((p) => p.x);
  const [x0, x1] = [minOf(xs), maxOf(xs)];
  const values = [...points.flatMap((p) => [p.rate, p.high]), ...lines.map((l) => l.y)].filter((v): v is number => v !== null);
  const y0 = Math.max(0, Math.floor((minOf(values) - 0.02) * 20) / 20);
  const sx = (x: number) => PAD.left + (x1 === x0 ? (W - PAD.left - PAD.right) / 2 : ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right));
  const sy = (y: number) => PAD.top + ((1 - y) / (1 - y0 || 1)) * (H - PAD.top - PAD.bottom);
  const path = (key: 'rate' | 'high') =>
    points
      .filter((p) => p[key] !== null)
      .map((p, n) => `${n ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p[key]!).toFixed(1)}`)
      .join('');
  const ticks = [y0, (y0 + 1) / 2, 1].map(
    (y) =>
      `<text x="${PAD.left - 6}" y="${sy(y) + 4}" text-anchor="end" font-size="11">${Math.round(y * 100)}%</text><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${sy(y)}" y2="${sy(y)}" stroke="#ddd"/>`,
  );
  const thresholds = lines.map(
    (l) =>
      `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${sy(l.y)}" y2="${sy(l.y)}" stroke="${l.color}" stroke-dasharray="2 3"/><text x="${W - PAD.right}" y="${sy(l.y) - 4}" text-anchor="end" font-size="11" fill="${l.color}">${esc(l.label)}</text>`,
  );
  const dots = points
    .filter((p) => p.rate !== null)
    .map((p) => `<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.rate!).toFixed(1)}" r="3" fill="#0969da"><title>${esc(p.label)}</title></circle>`);
  const first = points[0].label.split(' · ')[0];
  const last = points[points.length - 1].label.split(' · ')[0];
  return `<svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px"><title>${esc(title)}</title>${ticks.join('')}${thresholds.join('')}<path d="${path('high')}" fill="none" stroke="#0969da" stroke-dasharray="5 4"/><path d="${path('rate')}" fill="none" stroke="#0969da" stroke-width="2"/>${dots.join('')}<text x="${PAD.left}" y="${H - 10}" font-size="11">${esc(first)}</text><text x="${W - PAD.right}" y="${H - 10}" font-size="11" text-anchor="end">${esc(last)}</text></svg>`;
}

export function productionRuleBody(p: RulePage): string {
  const pct = (v: number | null | undefined) => (v === null || v === undefined ? NO_VALUE : `${(v * 100).toFixed(1)}%`);
  const lines = [
    ...(p.minSuccess !== undefined ? [{ y: p.minSuccess, label: `minSuccess ${pct(p.minSuccess)}`, color: '#cf222e' }] : []),
    ...(p.dropThreshold !== undefined ? [{ y: p.dropThreshold, label: `baseline bound ${pct(p.dropThreshold)}`, color: '#9a6700' }] : []),
  ];
  const label = (w: WindowSummary) => `${when(w.startMs)} · window ${w.index}: ${pct(w.rate)} of ${w.counts.pass + w.counts.fail}, at most ${pct(w.high)}`;
  const perWindow = rateSvg(
    p.windows.map((w) => ({ x: w.startMs, rate: w.rate, high: w.high, label: label(w) })),
    lines,
    `${p.rule}: rate per window (solid) and its upper confidence bound (dashed)`,
  );
  const sequence = rateSvg(
    p.windows.map((w) => ({
      x: w.endMs,
      rate: w.cumulative.rate,
      high: w.cumulative.high,
      label: `${when(w.endMs)} · since the start: ${pct(w.cumulative.rate)}, at most ${pct(w.cumulative.high)}`,
    })),
    lines,
    `${p.rule}: rate since the start (solid) and its confidence sequence's upper bound (dashed)`,
  );
  const columns = [
    { label: 'window (UTC)' },
    { label: 'pass', num: true },
    { label: 'fail', num: true },
    { label: 'error', num: true },
    { label: 'rate', num: true },
    { label: 'at most', num: true },
  ];
  const rows = [...p.windows]
    .reverse()
    .slice(0, 60)
    .map((w) => [
      `<span class="nowrap">${when(w.startMs)}</span>`,
      String(w.counts.pass),
      String(w.counts.fail),
      String(w.counts.error),
      pct(w.rate),
      pct(w.high),
    ]);
  const c = p.cumulative;
  const alarms = p.alarms.length
    ? `<ul>${[...p.alarms]
        .reverse()
        .map((a) => `<li class="worse">${when(a.atMs)} · ${esc(a.kind)}: ${esc(a.message)}</li>`)
        .join('')}</ul>`
    : '<p>No alarm.</p>';
  return `<h1>${esc(p.rule)} <span class="muted">on ${esc(p.experiment)}</span></h1>
<p class="muted"><a href="/production/experiment?name=${enc(p.experiment)}">${esc(p.experiment)}</a> · since the start: ${pct(c.rate)} of ${(c.counts.pass + c.counts.fail).toLocaleString('en')} checks (${c.counts.error} errors), at most ${pct(c.high)} · false-alarm probability held at ${pct(p.alpha)} over the whole watch</p>
<section class="card"><h2>Alarms</h2>${alarms}</section>
<section class="card"><h2>Rate over time</h2>${perWindow}</section>
<section class="card"><h2>Its sequence since the start</h2><p class="muted">An alarm is raised when the dashed upper bound falls below a threshold line: the bound holds at every moment at once, so watching it all the time does not raise false alarms.</p>${sequence}</section>
<section class="card"><h2>Windows</h2>${rows.length ? tableHtml(columns, rows, { label: 'windows' }) : '<p class="muted">No windows (the monitor has none configured).</p>'}</section>`;
}
