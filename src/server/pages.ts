import { trendSvg } from '../report/charts-trend.js';
import { formatP, testName } from '../report/compare.js';
import { esc, tableHtml, verdictBadge } from '../report/html-layout.js';
import { aggregatesWhose } from '../report/grading-text.js';
import type { RunListItem } from './data.js';
import type { Trend, TrendEntry } from './trend.js';
import { formatRate, formatRateChange, NO_VALUE } from '../core/show.js';

/** Server-rendered dashboard pages: the runs list and the trend (bodies only; the app wraps them with page()). */

export const enc = encodeURIComponent;

export function shortDate(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

const RUN_COLUMNS = [
  { label: 'name' },
  { label: 'verdict' },
  { label: 'overall', num: true },
  { label: 'all pass', num: true },
  { label: 'validators' },
  { label: 'N×M×K', num: true },
  { label: 'date (UTC)' },
  { label: 'status' },
  { label: 'id' },
];

/** " · of the verdicts as given, not the rate corrected by grades" under a run's overall rate, where it applies. */
function overallWhose(r: RunListItem): string {
  const text = aggregatesWhose(r.validators.filter((v) => v.corrected !== undefined).length);
  return text ? `<br><span class="muted">${esc(text)}</span>` : '';
}

export function runsListBody(items: RunListItem[], filter: string | undefined, previous: Map<string, string>): string {
  const rows = items.map((r) => {
    const prev = previous.get(r.id);
    const links = `<a class="muted" href="/trend/${enc(r.name)}">trend</a>${prev ? ` · <a class="muted" href="/compare?a=${enc(prev)}&amp;b=${enc(r.id)}">vs previous</a>` : ''}`;
    // Every rate with its error share: a rate over the cells that answered says nothing of those that did not.
    const errs = (share: number | null) => (share ? ` <span class="muted">errors ${formatRate(share)}</span>` : '');
    // The rate a verdict rests on (corrected, where people's grades corrected it), and which figure it is.
    const figure = (f: string | undefined) => (f ? ` <span class="muted">· ${esc(f)}</span>` : '');
    const rates = r.validators
      .map((v) => `<span class="nowrap">${esc(v.name)} ${formatRate(v.corrected ?? v.rate)}${errs(v.errorShare)}</span>${figure(v.figure)}`)
      .join('<br>');
    return [
      `<a href="/runs/${enc(r.id)}"><strong>${esc(r.name)}</strong></a><br>${links}`,
      verdictBadge(r.verdict, r.verdictMode),
      // The aggregate is of the verdicts as given; beside rules whose rate grades corrected, it says so.
      `${formatRate(r.overall.value)}${errs(r.overall.errorShare)}${overallWhose(r)}`,
      `${formatRate(r.allPass)}${errs(r.allPassErrorShare)}`,
      rates || '<span class="muted">none</span>',
      `${r.shape.N}×${r.shape.M}×${r.shape.K}`,
      `<span class="nowrap">${esc(shortDate(r.createdAt))}</span>`,
      esc(r.status),
      `<code>${esc(r.id)}</code>`,
    ];
  });
  const empty = `<p class="muted">No runs${filter ? ` with a name containing “${esc(filter)}” (<a href="/">show all</a>)` : ''}. Run <code>assay run &lt;config&gt;</code> to make one.</p>`;
  return `<h1>Runs</h1>
<form class="inline" method="get" action="/" role="search"><label>Filter by name <input type="search" name="name" value="${esc(filter ?? '')}" placeholder="part of a name"></label><button type="submit">Filter</button>${
    filter ? ' <a href="/">clear</a>' : ''
  }</form>
<section class="card">${rows.length ? tableHtml(RUN_COLUMNS, rows, { label: 'runs', rowHeader: true }) : empty}</section>`;
}

const TREND_COLUMNS = [
  { label: 'run' },
  { label: 'rate', num: true },
  { label: 'interval', num: true },
  { label: 'pass/decided', num: true },
  { label: 'errors', num: true },
  { label: 'change', num: true },
  { label: 'test', num: true },
  { label: 'vs previous' },
];

function trendRow(e: TrendEntry, idx: number): string[] {
  const c = e.change;
  const mark = !c
    ? '<span class="muted">first run</span>'
    : c.pValue === null
      ? '<span class="muted">? not testable</span>'
      : c.significant
        ? `<span class="${c.direction}">${c.direction === 'worse' ? '▼ worse' : '▲ better'}</span>`
        : 'no significant change';
  return [
    `<a href="/runs/${enc(e.runId)}">#${idx + 1}</a> <span class="muted nowrap">${esc(shortDate(e.createdAt))}</span>`,
    formatRate(e.rate),
    e.low === null ? NO_VALUE : `${formatRate(e.low)} – ${formatRate(e.high)}`,
    `${e.pass}/${e.n}`,
    String(e.error),
    c ? formatRateChange(c.diff) : NO_VALUE,
    c?.pValue === null || c?.pValue === undefined ? NO_VALUE : `p=${formatP(c.pValue)} <span class="muted">${testName(c.test)}</span>`,
    mark,
  ];
}

export function trendBody(t: Trend): string {
  const runIndex = new Map(t.runs.map((r, idx) => [r.id, idx]));
  const sections = t.validators
    .map((v) => {
      const points = v.entries.map((e) => ({
        date: e.createdAt,
        runId: e.runId,
        runNumber: (runIndex.get(e.runId) ?? 0) + 1,
        rate: e.rate,
        low: e.low,
        high: e.high,
        significant:
          e.change?.significant && e.change.pValue !== null && e.change.direction !== 'unchanged'
            ? { p: e.change.pValue, direction: e.change.direction }
            : undefined,
      }));
      const sig = v.entries.filter((e) => e.change?.significant).length;
      const rows = v.entries.map((e) => trendRow(e, runIndex.get(e.runId) ?? 0));
      const attrs = v.entries.map((e) => (e.change?.significant ? ` data-significant="true"` : ''));
      return `<section class="card" data-validator="${esc(v.name)}"><h2>${esc(v.name)} <span class="muted">${sig ? `${sig} significant change(s)` : 'no significant change'}</span></h2>
<figure class="trend"><div class="chart">${trendSvg(points, { title: `Success rate of ${v.name} across the runs of ${t.name}`, minSuccess: v.minSuccess })}</div></figure>
${tableHtml(TREND_COLUMNS, rows, { label: `${v.name} by run`, rowAttrs: attrs })}</section>`;
    })
    .join('');
  return `<h1>Trend: ${esc(t.name)}</h1>
<p class="muted">${t.runs.length} run(s), oldest first, numbered #1…#${t.runs.length}. Dots: success rate; whiskers: each run's interval; dashed line: minimum success.
A change from the previous run is ringed and labelled ▼ (worse) or ▲ (better) with its p-value when the two-proportion z-test (Fisher's exact test when an expected count is below 5) gives p &lt; ${+(1 - t.level).toFixed(3)}.</p>${sections}`;
}
