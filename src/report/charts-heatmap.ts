import type { ReliabilityTensor } from '../core/tensor.js';
import { OUTCOME_STYLE } from './charts.js';

/**
 * Heatmaps of the reliability tensor, one per validator, drawn as plain SVG strings (a 500 × 100 run has
 * 50,000 cells per validator: far beyond what a chart library on a server-side DOM draws in time).
 *
 * - Up to FULL_MAX cells (and FULL_ROWS inputs, FULL_COLS samples) every cell is drawn: a link to the cell's
 *   detail with its outcome as colour and glyph, numbered from 1 on both axes.
 * - Above, inputs (and samples) are binned: each bin shows the share of failing cells among the decided ones
 *   on a light-to-dark scale, a mark when it holds errors, and zooms on click into the full-resolution block
 *   around it, drawn in the browser by the very same block function (HEATMAP_BLOCK_JS) from the tensor
 *   embedded in the page: the dashboard and the static report behave alike.
 */

/** Cells per heatmap drawn one by one; above, bins. */
export const FULL_MAX = 6_000;
export const FULL_ROWS = 120;
export const FULL_COLS = 120;
/** Bins at most per axis when binned. */
const BIN_ROWS = 100;
const BIN_COLS = 50;
/** A zoomed block: this many inputs × samples at full resolution. */
export const ZOOM_ROWS = 30;
export const ZOOM_COLS = 60;
/** Width the chart is laid out for (the heatmap column of a 1400 px screen); wider charts scroll. */
const TARGET_WIDTH = 860;

/** Colour, glyph and glyph ink per outcome code (0 pending, 1 pass, 2 fail, 3 error). */
const STYLES = [OUTCOME_STYLE.pending, OUTCOME_STYLE.pass, OUTCOME_STYLE.fail, OUTCOME_STYLE.error].map((s, code) => [
  ['not run', 'pass', 'fail', 'error'][code],
  s.color,
  s.glyph,
  s.ink,
]);

/**
 * The full-resolution block renderer, as JavaScript source: the server evaluates it once (below) and the
 * page script embeds it, so a zoomed block in the browser is drawn exactly like a server-drawn heatmap.
 * Self-contained ES5: no imports, no closures over module state.
 *
 * o: { codes (one digit per cell, index (i·M + j)·K + k), N, M, K, k, name, i0, i1, j0, j1, cellW, rowH, styles }
 */
export const HEATMAP_BLOCK_JS = `function heatmapBlock(o) {
  function esc(s) { return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); }
  function ticks(from, to, max) {
    var n = to - from, need = n / Math.max(1, max), step = 1, m = 1, out = [], s;
    while (step < need) { step = need <= m ? m : need <= 2 * m ? 2 * m : need <= 5 * m ? 5 * m : 10 * m; m *= 10; }
    if (step === 1) { for (s = from; s < to; s++) out.push(s); return out; }
    if (step >= 5 || from % step !== 0) out.push(from);
    for (s = Math.ceil((from + 1) / step) * step; s <= to; s += step) if (s - 1 - from >= step / 2) out.push(s - 1);
    return out;
  }
  var rows = o.i1 - o.i0, cols = o.j1 - o.j0, cw = o.cellW, rh = o.rowH;
  var left = 48, top = 40, w = left + cols * cw + 8, h = top + rows * rh + 8;
  var glyphs = cw >= 12 && rh >= 12, fs = Math.min(13, rh - 3);
  var out = ['<svg xmlns="http://www.w3.org/2000/svg" class="heatmap-svg" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + ' ' + h + '" style="min-width:' + Math.min(w, left + cols * Math.min(cw, 8) + 8) + 'px" role="group" aria-label="' +
    esc('Heatmap of ' + o.name + ': inputs ' + (o.i0 + 1) + '–' + o.i1 + ' by samples ' + (o.j0 + 1) + '–' + o.j1) + '" font-family="system-ui,sans-serif">'];
  out.push('<desc>Rows are inputs, columns are samples, both numbered from 1; \\u2713 pass, \\u2717 fail, ! error, \\u00b7 not run. Each cell links to its detail.</desc>');
  out.push('<text x="' + left + '" y="12" font-size="12" fill="#57606a">sample \\u2192</text>');
  out.push('<text transform="translate(12,' + (top + rows * rh / 2) + ') rotate(-90)" text-anchor="middle" font-size="12" fill="#57606a">input \\u2192</text>');
  var t, i, j, x, y;
  out.push('<g font-size="11" fill="#1f2328" text-anchor="middle" aria-hidden="true">');
  t = ticks(o.j0, o.j1, Math.max(2, Math.floor(cols * cw / 34)));
  for (j = 0; j < t.length; j++) out.push('<text x="' + (left + (t[j] - o.j0 + 0.5) * cw) + '" y="' + (top - 8) + '">' + (t[j] + 1) + '</text>');
  out.push('</g><g font-size="11" fill="#1f2328" text-anchor="end" dominant-baseline="central" aria-hidden="true">');
  t = ticks(o.i0, o.i1, Math.max(2, Math.floor(rows * rh / 16)));
  for (i = 0; i < t.length; i++) out.push('<text x="' + (left - 5) + '" y="' + (top + (t[i] - o.i0 + 0.5) * rh) + '">' + (t[i] + 1) + '</text>');
  out.push('</g><g>');
  var text = [];
  for (i = o.i0; i < o.i1; i++) {
    y = top + (i - o.i0) * rh;
    for (j = o.j0; j < o.j1; j++) {
      x = left + (j - o.j0) * cw;
      var s = o.styles[+o.codes.charAt((i * o.M + j) * o.K + o.k)] || o.styles[0];
      out.push('<a href="#cell-' + i + '-' + j + '"><title>' + esc(o.name) + ': input ' + (i + 1) + ', sample ' + (j + 1) + ': ' + s[0] + '</title><rect x="' + x + '" y="' + y + '" width="' + (cw - 1) + '" height="' + (rh - 1) + '" fill="' + s[1] + '"/></a>');
      if (glyphs) text.push('<text x="' + (x + (cw - 1) / 2) + '" y="' + (y + (rh - 1) / 2) + '" fill="' + s[3] + '">' + s[2] + '</text>');
    }
  }
  out.push('</g>');
  if (glyphs) out.push('<g font-size="' + fs + '" font-weight="700" text-anchor="middle" dominant-baseline="central" pointer-events="none" aria-hidden="true">' + text.join('') + '</g>');
  out.push('</svg>');
  return out.join('');
}`;

interface BlockOptions {
  codes: string;
  N: number;
  M: number;
  K: number;
  k: number;
  name: string;
  i0: number;
  i1: number;
  j0: number;
  j1: number;
  cellW: number;
  rowH: number;
  styles: (string | number)[][];
}

// Our own constant source, evaluated once: the same function the browser gets.
const heatmapBlock = new Function(`return ${HEATMAP_BLOCK_JS}`)() as (o: BlockOptions) => string;

/** The tensor as one digit per cell, index (i·M + j)·K + k: what the block renderer reads. */
export function tensorCodes(tensor: ReliabilityTensor): string {
  const { N, M, K } = tensor;
  const chars = new Array<string>(N * M * K);
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) for (let k = 0; k < K; k++) chars[(i * M + j) * K + k] = String(tensor.get(i, j, k));
  return chars.join('');
}

/** Whether a heatmap of this shape is binned rather than drawn cell by cell. */
export function isBinned(N: number, M: number): boolean {
  return N * M > FULL_MAX || N > FULL_ROWS || M > FULL_COLS;
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));

/** Cell size of a full-resolution heatmap: as wide as the layout allows (6–28 px), rows 10–22 px. */
export function cellSize(rows: number, cols: number): { cellW: number; rowH: number } {
  return { cellW: clamp(Math.floor(TARGET_WIDTH / Math.max(cols, 1)), 6, 28), rowH: clamp(Math.floor(1100 / Math.max(rows, 1)), 10, 22) };
}

/** The data the page script needs to zoom into binned heatmaps (embedded as JSON). */
export function zoomData(tensor: ReliabilityTensor, names: string[]) {
  return { N: tensor.N, M: tensor.M, K: tensor.K, names, codes: tensorCodes(tensor), styles: STYLES, rows: ZOOM_ROWS, cols: ZOOM_COLS };
}

export interface HeatmapSvgOptions {
  /** The validator's name, for labels. */
  label: string;
  /** The tensor's codes, when the caller draws several heatmaps of one tensor (computed once). */
  codes?: string;
}

/** One validator's heatmap: every cell, or bins when the run is large. */
export function heatmapSvg(tensor: ReliabilityTensor, k: number, options: HeatmapSvgOptions): string {
  const { N, M, K } = tensor;
  if (isBinned(N, M)) return binnedSvg(tensor, k, options.label);
  const codes = options.codes ?? tensorCodes(tensor);
  return heatmapBlock({ codes, N, M, K, k, name: options.label, i0: 0, i1: N, j0: 0, j1: M, ...cellSize(N, M), styles: STYLES });
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Light (no failing cell) to dark red (all failing): lightness carries the share, so it reads without hue. */
export function failShade(share: number): string {
  const from = [0xe6, 0xf4, 0xea];
  const to = [0x82, 0x07, 0x1e];
  const mid = [0xf5, 0xa6, 0x8c];
  const [a, b, t] = share <= 0.5 ? [from, mid, share * 2] : [mid, to, share * 2 - 1];
  return (
    '#' +
    a
      .map((v, c) =>
        Math.round(v + (b[c] - v) * t)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')
  );
}

/** Bins of `size` entries over n: [from, to) per bin. */
function bins(n: number, max: number): { size: number; count: number } {
  const size = Math.ceil(n / max);
  return { size, count: Math.ceil(n / size) };
}

function binnedSvg(tensor: ReliabilityTensor, k: number, name: string): string {
  const { N, M } = tensor;
  const r = bins(N, BIN_ROWS);
  const c = M > BIN_COLS ? bins(M, BIN_COLS) : { size: 1, count: M };
  const cw = clamp(Math.floor(TARGET_WIDTH / c.count), 6, 28);
  const rh = clamp(Math.floor(900 / r.count), 6, 22);
  const left = 48;
  const top = 40;
  const w = left + c.count * cw + 8;
  const h = top + r.count * rh + 8;
  const span = (from: number, size: number, n: number) => (size === 1 ? `${from + 1}` : `${from + 1}–${Math.min(n, from + size)}`);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap-svg binned" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" style="min-width:${Math.min(w, left + c.count * 6 + 8)}px" role="group" aria-label="${esc(
      `Heatmap of ${name}: ${N} inputs by ${M} samples, in bins of ${r.size} input${r.size === 1 ? '' : 's'}${c.size > 1 ? ` × ${c.size} samples` : ''}`,
    )}" font-family="system-ui,sans-serif">`,
    `<desc>Each cell is a bin: its shade is the share of failing cells among the decided ones (light: none, dark red: all); a yellow corner marks errors. A bin opens its inputs at full resolution.</desc>`,
    `<text x="${left}" y="12" font-size="12" fill="#57606a">sample${c.size > 1 ? ` (bins of ${c.size})` : ''} →</text>`,
    `<text transform="translate(12,${top + (r.count * rh) / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="#57606a">input (bins of ${r.size}) →</text>`,
    '<g font-size="11" fill="#1f2328" text-anchor="middle" aria-hidden="true">',
  ];
  const colTicks = c.size === 1 ? niceTicks(c.count, Math.floor((c.count * cw) / 34)) : axisTicks(c.count, Math.floor((c.count * cw) / 40));
  for (const b of colTicks) out.push(`<text x="${left + (b + 0.5) * cw}" y="${top - 8}">${b * c.size + 1}</text>`);
  out.push('</g><g font-size="11" fill="#1f2328" text-anchor="end" dominant-baseline="central" aria-hidden="true">');
  for (const b of axisTicks(r.count, Math.floor((r.count * rh) / 16))) out.push(`<text x="${left - 5}" y="${top + (b + 0.5) * rh}">${b * r.size + 1}</text>`);
  out.push('</g><g>');
  const marks: string[] = [];
  for (let br = 0; br < r.count; br++) {
    const i0 = br * r.size;
    const i1 = Math.min(N, i0 + r.size);
    for (let bc = 0; bc < c.count; bc++) {
      const j0 = bc * c.size;
      const j1 = Math.min(M, j0 + c.size);
      let pass = 0;
      let fail = 0;
      let error = 0;
      for (let i = i0; i < i1; i++) {
        for (let j = j0; j < j1; j++) {
          const o = tensor.get(i, j, k);
          if (o === 1) pass++;
          else if (o === 2) fail++;
          else if (o === 3) error++;
        }
      }
      const decided = pass + fail;
      const x = left + bc * cw;
      const y = top + br * rh;
      const fill = decided ? failShade(fail / decided) : OUTCOME_STYLE.pending.color;
      const what = `${pass} pass, ${fail} fail${error ? `, ${error} error` : ''}${decided ? ` (${Math.round((100 * fail) / decided)}% failing)` : ''}`;
      out.push(
        `<a href="#zoom-${k}-${i0}-${j0}"><title>inputs ${span(i0, r.size, N)}, sample${c.size > 1 ? 's' : ''} ${span(j0, c.size, M)}: ${what}</title><rect x="${x}" y="${y}" width="${cw - 1}" height="${rh - 1}" fill="${fill}"/></a>`,
      );
      if (error)
        marks.push(
          `<path d="M${x + cw - 1} ${y}h-${Math.min(6, cw - 1)}l${Math.min(6, cw - 1)} ${Math.min(6, rh - 1)}z" fill="${OUTCOME_STYLE.error.color}"/>`,
        );
    }
  }
  out.push('</g>');
  if (marks.length) out.push(`<g pointer-events="none" aria-hidden="true">${marks.join('')}</g>`);
  out.push('</svg>');
  return out.join('');
}

/** Tick positions (0-based) of unbinned entries: labels 1, then round numbers (5, 10, … or 10, 20, …). */
function niceTicks(n: number, max: number): number[] {
  const step = axisStep(n, max);
  if (step === 1) return Array.from({ length: n }, (_, i) => i);
  const out = step >= 5 ? [0] : [];
  for (let label = step; label <= n; label += step) out.push(label - 1);
  return out;
}

function axisStep(n: number, max: number): number {
  const need = n / Math.max(1, max);
  let step = 1;
  for (let m = 1; step < need; m *= 10) step = need <= m ? m : need <= 2 * m ? 2 * m : need <= 5 * m ? 5 * m : 10 * m;
  return step;
}

/** Tick positions (0-based bin numbers) for at most `max` labels: the first, then round steps. */
function axisTicks(n: number, max: number): number[] {
  const step = axisStep(n, max);
  const out = [0];
  for (let b = step; b < n; b += step) out.push(b);
  return out;
}
