import { diffSvg } from '../report/charts-trend.js';
import { changeWord, formatP, testName, type ComparisonRow, type RunComparison } from '../report/compare.js';
import { esc, tableHtml } from '../report/html-layout.js';
import { enc, shortDate } from './pages.js';
import { formatRate, formatRateChange, NO_VALUE, formatLevel } from '../core/show.js';

/** The compare page: a form to pick runs A and B, the verdict of the regression gate, forest plots and tables. */

export interface RunOption {
  id: string;
  name: string;
  createdAt: string;
}

/** Default pair: the newest run as B and the previous run of the same name (else the next newest) as A. */
export function defaultPair(runs: RunOption[]): { a?: string; b?: string } {
  const b = runs[0];
  if (!b) return {};
  const a = runs.slice(1).find((r) => r.name === b.name) ?? runs[1];
  return { a: a?.id, b: b.id };
}

const COLUMNS = (first: string) => [
  { label: first },
  { label: 'A', num: true },
  { label: 'B', num: true },
  { label: 'B − A', num: true },
  { label: 'interval (Newcombe)', num: true },
  { label: 'test', num: true },
  { label: 'change' },
];

function rows(list: ComparisonRow[], holm: boolean): string[][] {
  return list.map((r) => {
    const p =
      holm && r.adjustedP !== undefined ? `Holm p=${formatP(r.adjustedP)} <span class="muted">(raw ${formatP(r.pValue)})</span>` : `p=${formatP(r.pValue)}`;
    const cls = r.pValue === null ? 'muted' : r.direction === 'unchanged' ? '' : r.direction;
    return [
      esc(r.label.length > 90 ? r.label.slice(0, 89) + '…' : r.label),
      `${formatRate(r.a.rate)} <span class="muted">(${r.a.pass}/${r.a.n})</span>`,
      `${formatRate(r.b.rate)} <span class="muted">(${r.b.pass}/${r.b.n})</span>`,
      formatRateChange(r.diff),
      r.ci ? `[${formatRateChange(r.ci.low)}, ${formatRateChange(r.ci.high)}]` : NO_VALUE,
      r.pValue === null ? NO_VALUE : `${p} <span class="muted">${testName(r.test)}</span>`,
      `<span class="${cls}">${esc(changeWord(r).replace('✗ WORSE', '▼ worse').replace('✓ better', '▲ better').replace('· ', ''))}</span>`,
    ];
  });
}

/** At most `max` rows in the plot (the smallest p-values), so 500 inputs do not make a 7000-pixel chart. */
function forest(all: ComparisonRow[], title: string, max = 40): string {
  if (!all.some((r) => r.diff !== null)) return '';
  const list = all.length <= max ? all : [...all].sort((x, y) => (x.pValue ?? 2) - (y.pValue ?? 2)).slice(0, max);
  const note = all.length > max ? `<figcaption class="muted">The ${max} of ${all.length} with the smallest p-values; all are in the table.</figcaption>` : '';
  const data = list.map((r) => ({
    label: r.label,
    diff: r.diff,
    low: r.ci?.low ?? null,
    high: r.ci?.high ?? null,
    direction: r.direction,
    note: r.pValue === null ? undefined : `p=${formatP(r.pValue)}`,
  }));
  return `<figure class="forest">${note}<div class="chart">${diffSvg(data, { title })}</div></figure>`;
}

export function compareBody(c: RunComparison | undefined, runs: RunOption[], selected: { a?: string; b?: string; adjust?: string }, problem?: string): string {
  const options = (sel?: string) =>
    runs
      .map((r) => `<option value="${esc(r.id)}"${r.id === sel ? ' selected' : ''}>${esc(r.name)} · ${esc(shortDate(r.createdAt))} · ${esc(r.id)}</option>`)
      .join('');
  const holm = selected.adjust === 'holm';
  const form = `<form class="inline" method="get" action="/compare"><label>Run A (baseline) <select name="a">${options(selected.a)}</select></label>
<label>Run B (candidate) <select name="b">${options(selected.b)}</select></label>
<label>Adjustment <select name="adjust"><option value="none"${holm ? '' : ' selected'}>none</option><option value="holm"${holm ? ' selected' : ''}>Holm (many validators)</option></select></label><button type="submit">Compare</button></form>`;
  if (!c) {
    const hint = runs.length < 2 ? '<p class="muted">Comparing needs at least two runs in the store.</p>' : '';
    return `<h1>Compare two runs</h1>${problem ? `<p class="worse" role="alert">${esc(problem)}</p>` : ''}${form}${hint}`;
  }
  const verdict = c.regressions.length
    ? `<p class="worse">✗ Significantly worse in B: ${c.regressions.map(esc).join(', ')}. <span class="muted">(<code>assay compare</code> exits 1.)</span></p>`
    : !c.validators.length
      ? `<p class="worse">? The two runs have no validator in common: nothing to compare.</p>`
      : c.untestable.length === c.validators.length
        ? `<p class="worse">? No validator could be tested (no decided cell in A or B).</p>`
        : `<p class="better">✓ No validator got significantly worse.</p>`;
  const notes = [
    c.onlyInA.length ? `validators only in A: ${c.onlyInA.map(esc).join(', ')}` : '',
    c.onlyInB.length ? `validators only in B: ${c.onlyInB.map(esc).join(', ')}` : '',
    c.untestable.length ? `not testable (no decided cell in A or B, e.g. all errors): ${c.untestable.map(esc).join(', ')}` : '',
    c.inputsOnlyInA ? `${c.inputsOnlyInA} input(s) only in A` : '',
    c.inputsOnlyInB ? `${c.inputsOnlyInB} input(s) only in B` : '',
  ].filter(Boolean);
  const side = (s: RunComparison['a'], which: string) =>
    `<strong>${which}</strong> <a href="/runs/${enc(s.id)}">${esc(s.name)}</a> <code>${esc(s.id)}</code> <span class="muted nowrap">${esc(s.shape)} · ${esc(shortDate(s.createdAt))}</span>`;
  const regressionAttrs = c.validators.map((r) => (r.direction === 'worse' ? ' data-regression="true"' : ''));
  return `<h1>Compare runs</h1>${form}
<section class="card"><p>${side(c.a, 'A')} → ${side(c.b, 'B')}</p>${verdict}${notes.length ? `<p class="muted">${notes.join(' · ')}</p>` : ''}
<p class="muted">Rates are over decided cells (errors excluded). Level ${formatLevel(c.level)}${holm ? ', validator p-values Holm-adjusted' : ''}; the test is Fisher's exact when an expected count is below 5, else the pooled two-proportion z-test.</p></section>
<section class="card"><h2>Per validator</h2>${forest(c.validators, 'B minus A per validator')}${tableHtml(COLUMNS('validator'), rows(c.validators, holm), { label: 'per validator', rowAttrs: regressionAttrs })}</section>
<section class="card"><h2>Per input</h2><p class="muted">Pooled over samples and validators; samples of one input are correlated, so treat these as a guide, not a gate.</p>
${forest(c.inputs, 'B minus A per input')}${tableHtml(COLUMNS('input'), rows(c.inputs, false), { label: 'per input' })}</section>`;
}
