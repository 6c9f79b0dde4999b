import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { Outcome, type OutcomeCode } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';

/**
 * SVG charts drawn with Observable Plot on a light server-side DOM (linkedom): no browser, no network,
 * the markup is inlined into pages and static reports. Outcomes are told apart by glyph as well as colour.
 */

export const OUTCOME_STYLE = {
  pass: { color: '#1a7f37', glyph: '✓', ink: '#ffffff' },
  fail: { color: '#cf222e', glyph: '✗', ink: '#ffffff' },
  error: { color: '#e3b341', glyph: '!', ink: '#1f2328' },
  pending: { color: '#d0d7de', glyph: '·', ink: '#1f2328' },
} as const;

type CellName = keyof typeof OUTCOME_STYLE;
const NAMES: Record<OutcomeCode, CellName> = {
  [Outcome.PENDING]: 'pending',
  [Outcome.PASS]: 'pass',
  [Outcome.FAIL]: 'fail',
  [Outcome.ERROR]: 'error',
};

export function doc(): Document {
  return parseHTML('<!doctype html><html><body></body></html>').document as unknown as Document;
}

/**
 * linkedom escapes only `"` in attribute values; a label holding `&lt;` would then reach the browser as `<`.
 * Labels bound for attributes (aria-label) are pre-escaped here; text content (title) is escaped by linkedom.
 */
export function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The chart's markup. Plot's SVG scales down to its container (max-width: 100%, viewBox); `minWidth` stops
 * it shrinking past legibility, below which its card scrolls instead.
 */
export function svgString(node: unknown, minWidth?: number): string {
  const el = node as Element;
  if (minWidth !== undefined) el.setAttribute('style', `min-width:${Math.round(minWidth)}px`);
  return el.outerHTML;
}

export const pctLabel = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${(v * 100).toFixed(1)}%`);

/**
 * At most ~`max` tick labels on a band axis of n entries numbered from 1, so a 500-input heatmap stays
 * readable: every multiple of a round step (1, 2, 5, 10, 20, 50, …) as people count, and the first entry
 * when it does not crowd the second label.
 * Returns 0-based indices.
 */
export function sparseTicks(n: number, max: number): number[] {
  const need = n / Math.max(1, max);
  let step = 1;
  for (let magnitude = 1; step < need; magnitude *= 10) {
    step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= need) ?? 10 * magnitude;
  }
  if (step === 1) return Array.from({ length: n }, (_, i) => i);
  const ticks = step >= 5 ? [0] : [];
  for (let label = step; label <= n; label += step) ticks.push(label - 1);
  return ticks;
}

export interface HeatmapOptions {
  /** Validator name, for labels. */
  label: string;
  /** Link of a cell (input i, sample j); the page's script turns it into the detail view. */
  href?: (i: number, j: number) => string;
}

/** Inputs × iterations for one validator k: one cell per (i, j), each with an aria-label and a title. */
export function heatmapSvg(tensor: ReliabilityTensor, k: number, options: HeatmapOptions): string {
  const { N, M } = tensor;
  const cells: { i: number; j: number; o: CellName }[] = [];
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) cells.push({ i, j, o: NAMES[tensor.get(i, j, k)] ?? 'pending' });
  const cell = Math.max(8, Math.min(28, Math.floor(640 / Math.max(M, 1))));
  const rowH = Math.max(6, Math.min(24, Math.floor(900 / Math.max(N, 1))));
  const glyphs = cell >= 12 && rowH >= 12;
  const label = (d: { i: number; j: number; o: CellName }) => `${options.label}: input ${d.i + 1}, sample ${d.j + 1}: ${d.o}`;
  const marks: Plot.Markish[] = [
    Plot.cell(cells, {
      x: 'j',
      y: 'i',
      fill: 'o',
      inset: 0.5,
      ariaLabel: (d: { i: number; j: number; o: CellName }) => attr(label(d)),
      title: label,
      ...(options.href ? { href: (d: { i: number; j: number }) => options.href!(d.i, d.j) } : {}),
    }),
  ];
  if (glyphs) {
    marks.push(
      Plot.text(cells, {
        x: 'j',
        y: 'i',
        text: (d: { o: CellName }) => OUTCOME_STYLE[d.o].glyph,
        fill: (d: { o: CellName }) => OUTCOME_STYLE[d.o].ink,
        fontSize: Math.min(14, rowH - 2),
        pointerEvents: 'none',
        ariaHidden: 'true',
      } as Plot.TextOptions),
    );
  }
  const svg = Plot.plot({
    document: doc(),
    width: 56 + M * cell,
    height: 48 + N * rowH,
    marginLeft: 44,
    marginTop: 28,
    marginBottom: 20,
    ariaLabel: attr(`Heatmap of ${options.label}: ${N} inputs by ${M} samples`),
    ariaDescription: 'rows are inputs, columns are samples; ✓ pass, ✗ fail, ! error, · not run',
    x: { type: 'band', axis: 'top', label: 'sample', tickFormat: (j: number) => String(j + 1), ticks: sparseTicks(M, 20), padding: 0 },
    y: { type: 'band', label: 'input', tickFormat: (i: number) => String(i + 1), ticks: sparseTicks(N, 30), padding: 0 },
    color: {
      type: 'categorical',
      domain: Object.keys(OUTCOME_STYLE),
      range: Object.values(OUTCOME_STYLE).map((s) => s.color),
    },
    marks,
  });
  // Cells may shrink to ~10 px before the card scrolls.
  return svgString(svg, 56 + M * Math.min(cell, 10));
}

/** A band key unique per row (two rows may share a label); the label follows an invisible separator. */
export function bandKey(idx: number, label: string): string {
  return `${idx}\u2063${label}`;
}

/**
 * A y axis of named rows (keys from bandKey), labels cut at 28 characters, and the left margin they need.
 * `maxTicks` thins the labels of long lists.
 */
export function namedRows(rows: { name: string; label: string }[], maxTicks = 40): { y: Plot.ScaleOptions; marginLeft: number } {
  const longest = Math.max(4, ...rows.map((r) => Math.min(r.label.length, 28)));
  return {
    marginLeft: Math.min(190, 12 + longest * 6.2),
    y: {
      domain: rows.map((r) => r.name),
      label: null,
      tickFormat: (name: string) => {
        const label = name.slice(name.indexOf('\u2063') + 1);
        return label.length > 28 ? label.slice(0, 27) + '…' : label;
      },
      ticks: sparseTicks(rows.length, maxTicks).map((i) => rows[i].name),
    },
  };
}

export interface ProfileBar {
  label: string;
  rate: number | null;
  low: number | null;
  high: number | null;
  /** Threshold drawn as a tick on this bar (a validator's minSuccess). */
  threshold?: number;
}

/**
 * A marginal profile (IRP, ORP or VRP) with the interval of each entry as a whisker and thresholds as ticks
 * (per entry) or a dashed line (`line`). Entries with no decided cell show as "n/a", never as a zero bar.
 * Horizontal bars carry names (validators, a few inputs); `columns` draws one column per entry numbered
 * from 1, for ordered or numerous entries (iterations, many inputs), each column's label in its tooltip.
 */
export function profileSvg(bars: ProfileBar[], options: { title: string; line?: number; columns?: boolean; axis?: string }): string {
  const rows = bars.map((b, idx) => ({ ...b, idx, name: bandKey(idx, b.label) }));
  const describe = (r: (typeof rows)[number]) =>
    `${r.label}: ${pctLabel(r.rate)}` + (r.low !== null ? ` (interval ${pctLabel(r.low)}–${pctLabel(r.high)})` : '') + (r.threshold !== undefined ? `, minimum ${pctLabel(r.threshold)}` : '');
  const common = { rows, decided: rows.filter((r) => r.rate !== null), describe, options };
  return options.columns ? columns(common) : horizontal(common);
}

type Row = ProfileBar & { idx: number; name: string };
interface Common {
  rows: Row[];
  decided: Row[];
  describe: (r: Row) => string;
  options: { title: string; line?: number; axis?: string };
}

function lineMark(line: number | undefined, along: 'x' | 'y'): Plot.Markish[] {
  if (line === undefined) return [];
  const style = { stroke: '#0969da', strokeWidth: 2, strokeDasharray: '5,3', ariaLabel: () => `minimum success ${pctLabel(line)}` };
  return [along === 'x' ? Plot.ruleX([line], style as Plot.RuleXOptions) : Plot.ruleY([line], style as Plot.RuleYOptions)];
}

function horizontal({ rows, decided, describe, options }: Common): string {
  const rowH = Math.max(10, Math.min(26, Math.floor(600 / Math.max(rows.length, 1))));
  const withCi = decided.filter((r) => r.low !== null);
  const marks: Plot.Markish[] = [
    Plot.barX(decided, { x: 'rate', y: 'name', fill: '#8c959f', ariaLabel: (r: Row) => attr(describe(r)), title: describe }),
    Plot.ruleY(withCi, { y: 'name', x1: 'low', x2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleYOptions),
    Plot.tickX(withCi, { y: 'name', x: 'low', stroke: '#1f2328', inset: rowH / 5, ariaHidden: 'true' } as Plot.TickXOptions),
    Plot.tickX(withCi, { y: 'name', x: 'high', stroke: '#1f2328', inset: rowH / 5, ariaHidden: 'true' } as Plot.TickXOptions),
    Plot.text(
      rows.filter((r) => r.rate === null),
      { y: 'name', x: 0, text: () => 'n/a (nothing decided)', textAnchor: 'start', dx: 4, fill: '#656d76' },
    ),
    Plot.ruleX([0]),
  ];
  const thresholds = rows.filter((r) => r.threshold !== undefined);
  if (thresholds.length) {
    marks.push(Plot.tickX(thresholds, { y: 'name', x: 'threshold', stroke: '#0969da', strokeWidth: 3, strokeDasharray: '3,2', ariaHidden: 'true' } as Plot.TickXOptions));
  }
  marks.push(...lineMark(options.line, 'x'));
  const svg = Plot.plot({
    document: doc(),
    width: 460,
    height: 44 + rows.length * rowH,
    ...namedRows(rows),
    marginRight: 18,
    ariaLabel: attr(options.title),
    x: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true, ticks: 5 },
    marks,
  });
  return svgString(svg, 340);
}

function columns({ rows, decided, describe, options }: Common): string {
  const n = rows.length;
  const colW = Math.max(4, Math.min(32, Math.floor(900 / Math.max(n, 1))));
  const withCi = decided.filter((r) => r.low !== null);
  const inset = Math.max(0, colW * 0.3);
  const width = Math.max(340, 64 + n * colW);
  const svg = Plot.plot({
    document: doc(),
    width,
    height: 240,
    marginLeft: 44,
    marginBottom: 36,
    ariaLabel: attr(options.title),
    x: {
      type: 'band',
      domain: rows.map((r) => r.name),
      label: options.axis ?? null,
      labelAnchor: 'center',
      tickFormat: (name: string) => String(Number(name.slice(0, name.indexOf('\u2063'))) + 1),
      ticks: sparseTicks(n, 25).map((i) => rows[i].name),
      padding: 0.15,
    },
    y: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true, ticks: 5 },
    marks: [
      Plot.barY(decided, { x: 'name', y: 'rate', fill: '#8c959f', ariaLabel: (r: Row) => attr(describe(r)), title: describe }),
      Plot.ruleX(withCi, { x: 'name', y1: 'low', y2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleXOptions),
      Plot.tickY(withCi, { x: 'name', y: 'low', stroke: '#1f2328', inset, ariaHidden: 'true' } as Plot.TickYOptions),
      Plot.tickY(withCi, { x: 'name', y: 'high', stroke: '#1f2328', inset, ariaHidden: 'true' } as Plot.TickYOptions),
      Plot.text(
        rows.filter((r) => r.rate === null),
        { x: 'name', y: 0, text: () => 'n/a', dy: -8, fill: '#656d76', ariaLabel: (r: Row) => attr(describe(r)) } as Plot.TextOptions,
      ),
      Plot.ruleY([0]),
      ...lineMark(options.line, 'y'),
    ],
  });
  return svgString(svg, Math.min(width, Math.max(300, 64 + n * 6)));
}
