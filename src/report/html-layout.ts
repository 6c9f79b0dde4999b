/** Shared page shell for the dashboard and the static report: inline CSS, no external resources. */

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to put inside <script type="application/json">: nothing in it can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function pct(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || Number.isNaN(v) ? 'n/a' : `${(v * 100).toFixed(digits)}%`;
}

export function verdictBadge(verdict: string): string {
  const glyph = verdict === 'pass' ? '✓' : verdict === 'fail' ? '✗' : '?';
  return `<span class="badge ${esc(verdict)}" title="verdict: ${esc(verdict)}">${glyph} ${esc(verdict)}</span>`;
}

const CSS = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header.top{background:#24292f;color:#fff;padding:.6rem 1rem;display:flex;gap:1.2rem;align-items:center;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top a.brand{font-size:1.1rem;margin-right:.5rem}
main{max-width:1240px;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.3rem 0 .8rem}
h2{font-size:1.15rem;margin:1.4rem 0 .5rem}
section.card,figure.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1rem;margin:0 0 1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:1rem;align-items:start}
figure{margin:0}
figcaption{font-weight:600;margin-bottom:.4rem}
.chart{overflow-x:auto}
.chart svg{max-width:none;height:auto}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{border-bottom:1px solid #d8dee4;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-weight:600;font-size:.85rem;border:1px solid}
.badge.pass{background:#dafbe1;color:#116329;border-color:#1a7f37}
.badge.fail{background:#ffebe9;color:#a40e26;border-color:#cf222e}
.badge.inconclusive{background:#fff8c5;color:#6a5300;border-color:#bf8700}
.legend{display:flex;gap:1rem;flex-wrap:wrap;font-size:.9rem;margin:.3rem 0}
.legend span.sw{display:inline-block;width:1.2rem;text-align:center;border-radius:3px;margin-right:.3rem;font-weight:700}
.muted{color:#656d76}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #d8dee4;border-radius:6px;padding:.5rem;max-height:22rem;overflow:auto;margin:.3rem 0}
#cell-detail{position:sticky;top:.5rem}
#cell-detail:empty::before{content:"Select a heatmap cell to see its input, output and outcomes.";color:#656d76}
.heatmaps{display:flex;flex-wrap:wrap;gap:1rem}
.heatmaps figure{flex:1 1 300px;min-width:0}
.layout{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:1rem;align-items:start}
@media (max-width:900px){.layout{grid-template-columns:1fr}#cell-detail{position:static}}
form.inline{display:flex;gap:.5rem;flex-wrap:wrap;align-items:end;margin:.5rem 0}
input[type=text],input[type=search],textarea,select{font:inherit;padding:.35rem .5rem;border:1px solid #d0d7de;border-radius:6px;max-width:100%}
textarea{width:100%}
button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
.worse{color:#a40e26;font-weight:600}.better{color:#116329;font-weight:600}
.claim{padding:.5rem .7rem;border-left:6px solid;border-radius:4px;margin:.5rem 0;background:#fff}
.claim.STRONG{border-color:#1a7f37;background:#f0fff4}.claim.WEAK{border-color:#bf8700;background:#fffbea}.claim.UNSUPPORTED{border-color:#cf222e;background:#fff5f5}
.claim.evidence{border-color:#8c959f;background:#fff}
.claimrow{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem}
@media (max-width:700px){.claim.evidence{border-color:#8c959f;background:#fff}
.claimrow{grid-template-columns:1fr}}
a{color:#0969da}
`;

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
    ? `<header class="top"><a class="brand" href="/">assay</a><nav aria-label="main"><a href="/">Runs</a> &nbsp; <a href="/compare">Compare</a> &nbsp; <a href="/grounding">Grounding</a></nav></header>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(options.title)}</title><style>${CSS}</style></head>
<body>${nav}<main>${options.body}</main>${options.script ? `<script>${options.script}</script>` : ''}</body></html>`;
}
