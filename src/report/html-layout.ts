import { visibleControls } from '../core/text.js';
import type { VerdictMode } from '../core/summary-types.js';
import { verdictLabel } from './meta.js';

/** Shared page shell for the dashboard and the static report: inline CSS, no external resources. */

export function esc(value: unknown): string {
  // Untrusted text is shown with its bidi and control characters marked (core/text.ts), then escaped.
  return visibleControls(String(value ?? ''))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to put inside <script type="application/json">: nothing in it can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function verdictBadge(verdict: string, mode?: VerdictMode): string {
  const glyph = verdict === 'pass' ? '✓' : verdict === 'fail' ? '✗' : verdict === 'error' ? '!' : '?';
  // A point verdict (rate ≥ minSuccess, no interval behind it) is marked as such wherever it is shown.
  const label = mode ? verdictLabel(verdict, mode, { upper: false }) : verdict;
  return `<span class="badge ${esc(verdict)}" title="verdict: ${esc(label)}">${glyph} ${esc(label)}</span>`;
}

const CSS = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header.top{background:#24292f;color:#fff;padding:.6rem 1rem;display:flex;gap:1.2rem;align-items:center;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top a.brand{font-size:1.1rem;margin-right:.5rem}
header.top nav a{margin-right:1rem}
main{max-width:1440px;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.3rem 0 .8rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.4rem 0 .5rem}
h3{font-size:1rem;margin:.8rem 0 .3rem}
.card>h2:first-child,.card>h3:first-child{margin-top:0}
section.card,figure.card,details.card,aside.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem;margin:0 0 1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,380px),1fr));gap:1rem;align-items:start}
.grid>figure{margin:0}
.grid>.wide{grid-column:1/-1}
figure{margin:0}
figcaption{font-weight:600;margin-bottom:.4rem}
.chart{overflow-x:auto}
.chart svg{max-width:100%;height:auto}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem}
caption{text-align:left;padding:0 0 .4rem}
th,td{border-bottom:1px solid #d8dee4;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
th[scope=row]{background:none;font-weight:normal}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{overflow-wrap:anywhere}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-weight:600;font-size:.85rem;border:1px solid;white-space:nowrap}
.badge.pass{background:#dafbe1;color:#116329;border-color:#1a7f37}
.badge.fail{background:#ffebe9;color:#a40e26;border-color:#cf222e}
.badge.inconclusive{background:#fff8c5;color:#6a5300;border-color:#bf8700}
.badge.error{background:#ffebe9;color:#82071e;border-color:#82071e;border-style:dashed}
.legend{display:flex;gap:1rem;flex-wrap:wrap;font-size:.9rem;margin:.3rem 0 .6rem}
.legend span.sw{display:inline-block;width:1.2rem;text-align:center;border-radius:3px;margin-right:.3rem;font-weight:700}
.muted{color:#656d76}
dl.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.6rem 1rem;margin:0 0 .6rem}
dl.facts dt{font-size:.85rem;color:#656d76}dl.facts dd{margin:0;font-size:1.15rem}
.nowrap{white-space:nowrap}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #d8dee4;border-radius:6px;padding:.5rem;max-height:22rem;overflow:auto;margin:.3rem 0}
#cell-detail{position:sticky;top:.5rem;max-height:calc(100vh - 1rem);overflow:auto}
ol.trace{padding-left:1.4rem;margin:.3rem 0}ol.trace>li{margin:.4rem 0}.call{border-left:3px solid #d8dee4;padding-left:.5rem;margin:.3rem 0}.call.failed{border-left-color:#cf222e}.call pre{max-height:12rem}
#cell-detail:empty::before{content:"Select a heatmap cell to see its input, output and outcomes.";color:#656d76}
.heatmaps{display:flex;flex-direction:column;gap:1rem;min-width:0}
.heatmaps figure{min-width:0;margin:0}
.layout{display:grid;grid-template-columns:minmax(0,1fr) minmax(16rem,22rem);gap:1rem;align-items:start}
.legend span.sw.ramp{background:linear-gradient(90deg,#e6f4ea,#f5a68c,#82071e);width:3.5rem}
.legend span.sw.corner{background:linear-gradient(225deg,#e3b341 35%,#e6f4ea 36%);border:1px solid #d0d7de}
.zoom{margin-top:.6rem;border-top:1px solid #d8dee4;padding-top:.5rem}
.zoom h3{display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
.zoom button{padding:.1rem .6rem;font-size:.85rem;background:#f6f8fa;color:#1f2328;border-color:#d0d7de}
svg.heatmap-svg a:focus rect,svg.heatmap-svg a:hover rect{stroke:#0969da;stroke-width:2}
figure.forest,figure.trend{max-width:640px;margin:0 0 .8rem}
form.inline{display:flex;gap:.5rem;flex-wrap:wrap;align-items:end;margin:.5rem 0 1rem}
form.inline label{display:flex;flex-direction:column;gap:.15rem;font-size:.9rem;min-width:0;max-width:100%}
input[type=text],input[type=search],textarea,select{font:inherit;padding:.35rem .5rem;border:1px solid #d0d7de;border-radius:6px;max-width:100%;background:#fff}
textarea{width:100%}
button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
.worse{color:#a40e26;font-weight:600}.better{color:#116329;font-weight:600}
.claim{padding:.5rem .7rem;border-left:6px solid;border-radius:4px;margin:.5rem 0;background:#fff}
.claim.STRONG{border-color:#1a7f37;background:#f0fff4}.claim.WEAK{border-color:#bf8700;background:#fffbea}.claim.UNSUPPORTED{border-color:#cf222e;background:#fff5f5}.claim.CONTRADICTED{border-color:#82071e;background:#ffe3e0}
.claim.evidence{border-color:#8c959f;background:#fff}
.claimrow{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem}
mark.claim-mark{padding:.05rem .2rem;border-radius:3px;border-bottom:3px solid;color:inherit}
mark.claim-mark.STRONG{background:#dafbe1;border-color:#1a7f37}mark.claim-mark.WEAK{background:#fff8c5;border-color:#bf8700}mark.claim-mark.UNSUPPORTED{background:#ffebe9;border-color:#cf222e;border-bottom-style:double}mark.claim-mark.CONTRADICTED{background:#ffcecb;border-color:#82071e;border-bottom-style:solid;border-bottom-width:4px}
a{color:#0969da}
p.answer{line-height:2;font-size:1rem}p.answer sup{font-weight:700;margin:0 .15rem}
button:disabled{opacity:.6;cursor:wait}
@media (max-width:1000px){.layout{grid-template-columns:minmax(0,1fr)}#cell-detail{position:static;max-height:none}}
@media (max-width:700px){.claimrow{grid-template-columns:minmax(0,1fr);gap:0}.claimrow .evidence{margin-left:1.2rem;margin-top:0}}
@media (max-width:640px){
main{padding:.6rem}
section.card,figure.card,details.card,aside.card{padding:.6rem .7rem}
table.stack thead{display:none}
table.stack caption{display:block}
table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th[scope=row]{display:block;width:100%}
table.stack tr{border-bottom:1px solid #d0d7de;padding:.4rem 0}
table.stack td,table.stack th[scope=row]{border:0;padding:.1rem 0;text-align:left;white-space:normal;background:none}
table.stack td[data-label]{display:grid;grid-template-columns:minmax(6.5rem,38%) minmax(0,1fr);gap:.5rem}
table.stack td[data-label]::before{content:attr(data-label);color:#656d76;font-size:.85rem}
}
`;

export interface Column {
  /** Header text (plain; escaped here). Also the label of the cell on narrow screens. */
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
}

/**
 * A table whose rows become labelled stacks on a narrow screen (CSS `table.stack`), so no column, such as
 * the verdict, hides behind a horizontal scroll. Cells are trusted HTML; the first may be a row header.
 */
export function tableHtml(columns: Column[], rows: string[][], options: { label: string; caption?: string; rowHeader?: boolean; rowAttrs?: string[] }): string {
  const head = columns.map((c) => `<th scope="col"${c.num ? ' class="num"' : ''}>${esc(c.label)}</th>`).join('');
  const body = rows
    .map((cells, r) => {
      const tds = cells
        .map((cell, idx) => {
          const c = columns[idx];
          if (idx === 0 && options.rowHeader) return `<th scope="row">${cell}</th>`;
          // One wrapper, so a stacked cell is two grid items: its label and its content.
          return `<td${c?.num ? ' class="num"' : ''}${c?.label ? ` data-label="${esc(c.label)}"` : ''}><div>${cell}</div></td>`;
        })
        .join('');
      return `<tr${options.rowAttrs?.[r] ?? ''}>${tds}</tr>`;
    })
    .join('');
  return `<div class="scroll"><table class="stack" aria-label="${esc(options.label)}">${options.caption ? `<caption class="muted">${options.caption}</caption>` : ''}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

export interface PageOptions {
  title: string;
  body: string;
  /** Inline script (already trusted: written by us). */
  script?: string;
  /** Dashboard pages get the navigation bar; static reports do not. */
  nav?: boolean;
}

export function page(options: PageOptions): string {
  const nav = options.nav
    ? `<header class="top"><a class="brand" href="/">assay</a><nav aria-label="main"><a href="/">Runs</a><a href="/compare">Compare</a><a href="/production">Production</a><a href="/grounding">Grounding</a></nav></header>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(options.title)}</title><style>${CSS}</style></head>
<body>${nav}<main>${options.body}</main>${options.script ? `<script>${options.script}</script>` : ''}</body></html>`;
}
