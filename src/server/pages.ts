import { trendSvg, type TrendPoint } from '../report/charts.js';
import { esc, pct, verdictBadge } from '../report/html-layout.js';
import type { RunComparison, ComparisonRow } from './compare.js';
import type { RunListItem } from './data.js';
import type { Trend } from './trend.js';

/** Server-rendered dashboard pages (bodies only; app wraps them with page()). */

const enc = encodeURIComponent;

export function runsListBody(items: RunListItem[], filter: string | undefined, previous: Map<string, string>): string {
  const rows = items
    .map((r) => {
      const prev = previous.get(r.id);
      const rates = r.validators.map((v) => `${esc(v.name)} ${pct(v.rate)}`).join('<br>');
      return `<tr><td><a href="/runs/${enc(r.id)}">${esc(r.name)}</a><br><a class="muted" href="/trend/${enc(r.name)}">trend</a>${
        prev ? ` · <a class="muted" href="/compare?a=${enc(prev)}&amp;b=${enc(r.id)}">vs previous</a>` : ''
      }</td><td><code>${esc(r.id)}</code></td><td>${esc(r.createdAt.slice(0, 16).replace('T', ' '))}</td>
<td class="num">${r.shape.N}×${r.shape.M}×${r.shape.K}</td><td>${esc(r.status)}</td><td>${verdictBadge(r.verdict)}</td>
<td class="num">${pct(r.overall.value)}</td><td class="num">${pct(r.allPass)}</td><td>${rates}</td></tr>`;
    })
    .join('');
  return `<h1>Runs</h1>
<form class="inline" method="get" action="/" role="search"><label>Filter by name <input type="search" name="name" value="${esc(filter ?? '')}"></label><button type="submit">Filter</button>${
    filter ? ' <a href="/">clear</a>' : ''
  }</form>
<section class="card"><div class="scroll"><table aria-label="runs"><thead><tr><th>name</th><th>id</th><th>date (UTC)</th><th class="num">N×M×K</th><th>status</th><th>verdict</th><th class="num">overall</th><th class="num">all pass</th><th>validators</th></tr></thead>
<tbody>${rows || `<tr><td colspan="9" class="muted">No runs${filter ? ` named like “${esc(filter)}”` : ''}. Run <code>assay run &lt;config&gt;</code> to make one.</td></tr>`}</tbody></table></div></section>`;
}

export function trendBody(t: Trend): string {
  const points: TrendPoint[] = [];
  for (const v of t.validators) {
    for (const e of v.entries) {
      points.push({ date: e.createdAt, runId: e.runId, series: v.name, rate: e.rate, low: e.low, high: e.high, significantP: e.change?.significant ? (e.change.pValue ?? undefined) : undefined });
    }
  }
  const tables = t.validators
    .map((v) => {
      const rows = v.entries
        .map((e) => {
          const c = e.change;
          const mark = c?.significant ? `<span class="${c.direction}">${c.direction === 'worse' ? '▼' : '▲'} significant</span>` : c ? 'no significant change' : '—';
          return `<tr${c?.significant ? ' data-significant="true"' : ''}><td><a href="/runs/${enc(e.runId)}">${esc(e.runId)}</a></td><td>${esc(e.createdAt.slice(0, 16).replace('T', ' '))}</td>
<td class="num">${pct(e.rate)}</td><td class="num">${e.low === null ? 'n/a' : `${pct(e.low)} – ${pct(e.high)}`}</td><td class="num">${e.pass}/${e.n}</td><td class="num">${e.error}</td>
<td class="num">${c?.diff === null || c?.diff === undefined ? '—' : `${c.diff > 0 ? '+' : ''}${pct(c.diff)}`}</td><td class="num">${c?.pValue === null || c?.pValue === undefined ? '—' : `p=${c.pValue.toPrecision(3)} (${c.test})`}</td><td>${mark}</td></tr>`;
        })
        .join('');
      return `<section class="card"><h2>${esc(v.name)}</h2><div class="scroll"><table><thead><tr><th>run</th><th>date (UTC)</th><th class="num">rate</th><th class="num">interval</th><th class="num">pass/decided</th><th class="num">errors</th><th class="num">change</th><th class="num">test</th><th>vs previous</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
    })
    .join('');
  return `<h1>Trend: ${esc(t.name)}</h1><p class="muted">${t.runs.length} run(s), oldest first. A change from the previous run is marked when the two-proportion test (Fisher's exact test for small counts) gives p &lt; ${(1 - t.level).toFixed(2)}.</p>
<figure class="card"><figcaption>Success rate per validator across runs (whiskers: ${Math.round(t.level * 100)}% interval; red rings: significant change, with p)</figcaption><div class="chart">${trendSvg(points, { title: `Trend of ${t.name}` })}</div></figure>${tables}`;
}

function compareRows(rows: ComparisonRow[], kind: string, regressionsMarked: boolean): string {
  return rows
    .map((r) => {
      const sign = r.diff !== null && r.diff > 0 ? '+' : '';
      const cls = r.direction === 'unchanged' ? '' : r.direction;
      const dir = r.direction === 'worse' ? '▼ worse' : r.direction === 'better' ? '▲ better' : 'no significant change';
      return `<tr data-${kind}="${esc(r.label)}"${regressionsMarked && r.direction === 'worse' ? ' data-regression="true"' : ''}><td>${esc(r.label.length > 90 ? r.label.slice(0, 89) + '…' : r.label)}</td>
<td class="num">${pct(r.a.rate)} <span class="muted">(${r.a.pass}/${r.a.n})</span></td><td class="num">${pct(r.b.rate)} <span class="muted">(${r.b.pass}/${r.b.n})</span></td>
<td class="num">${r.diff === null ? 'n/a' : sign + pct(r.diff)}</td><td class="num">${r.ci ? `${pct(r.ci.low)} – ${pct(r.ci.high)}` : 'n/a'}</td>
<td class="num">${r.pValue === null ? 'n/a' : `p=${r.pValue.toPrecision(3)} (${r.test === 'fisher' ? 'Fisher' : 'z'})`}</td><td class="${cls}">${dir}</td></tr>`;
    })
    .join('');
}

const COMPARE_HEAD = `<tr><th>LABEL</th><th class="num">A</th><th class="num">B</th><th class="num">B − A</th><th class="num">interval (Newcombe)</th><th class="num">test</th><th>change</th></tr>`;

export function compareBody(c: RunComparison | undefined, runs: { id: string; name: string; createdAt: string }[], selected: { a?: string; b?: string }, problem?: string): string {
  const options = (sel?: string) =>
    runs.map((r) => `<option value="${esc(r.id)}"${r.id === sel ? ' selected' : ''}>${esc(r.name)} · ${esc(r.id)}</option>`).join('');
  const form = `<form class="inline" method="get" action="/compare"><label>Run A (baseline) <select name="a">${options(selected.a)}</select></label>
<label>Run B (candidate) <select name="b">${options(selected.b)}</select></label><button type="submit">Compare</button></form>`;
  if (!c) return `<h1>Compare two runs</h1>${problem ? `<p class="worse">${esc(problem)}</p>` : ''}${form}`;
  const verdict = c.regressions.length
    ? `<p class="worse">✗ Significantly worse in B: ${c.regressions.map(esc).join(', ')} (exit code 1 in <code>assay compare</code>).</p>`
    : `<p class="better">✓ No validator got significantly worse.</p>`;
  const only = [
    c.onlyInA.length ? `validators only in A: ${c.onlyInA.map(esc).join(', ')}` : '',
    c.onlyInB.length ? `validators only in B: ${c.onlyInB.map(esc).join(', ')}` : '',
    c.inputsOnlyInA ? `${c.inputsOnlyInA} input(s) only in A` : '',
    c.inputsOnlyInB ? `${c.inputsOnlyInB} input(s) only in B` : '',
  ].filter(Boolean);
  return `<h1>Compare: <a href="/runs/${enc(c.a.id)}">${esc(c.a.id)}</a> → <a href="/runs/${enc(c.b.id)}">${esc(c.b.id)}</a></h1>${form}
<section class="card"><p>A: ${esc(c.a.name)} (${esc(c.a.shape)}, ${esc(c.a.createdAt.slice(0, 16).replace('T', ' '))}) · B: ${esc(c.b.name)} (${esc(c.b.shape)}, ${esc(c.b.createdAt.slice(0, 16).replace('T', ' '))}) ·
level ${Math.round(c.level * 100)}%; the test is Fisher's exact when an expected count is below 5, else the pooled two-proportion z-test.</p>${verdict}${only.length ? `<p class="muted">${only.join(' · ')}</p>` : ''}</section>
<section class="card"><h2>Per validator</h2><div class="scroll"><table aria-label="per validator">${COMPARE_HEAD.replace('LABEL', 'validator')}${compareRows(c.validators, 'validator', true)}</table></div></section>
<section class="card"><h2>Per input</h2><p class="muted">Pooled over samples and validators; samples of one input are correlated, so treat these as a guide.</p><div class="scroll"><table aria-label="per input">${COMPARE_HEAD.replace('LABEL', 'input')}${compareRows(c.inputs, 'input', false)}</table></div></section>`;
}
