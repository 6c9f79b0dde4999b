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

function doc(): Document {
  return parseHTML('<!doctype html><html><body></body></html>').document as unknown as Document;
}

/**
 * linkedom escapes only `"` in attribute values; a label holding `&lt;` would then reach the browser as `<`.
 * Labels bound for attributes (aria-label) are pre-escaped here; text content (title) is escaped by linkedom.
 */
function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function svgString(node: Element): string {
  return node.outerHTML;
}

/** At most ~`max` tick labels on a band axis, so a 500-input heatmap stays readable. */
function sparseTicks(n: number, max: number): number[] {
  const step = Math.max(1, Math.ceil(n / max));
  const ticks: number[] = [];
  for (let v = 0; v < n; v += step) ticks.push(v);
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
  return svgString(svg as unknown as Element);
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
 * A marginal profile (IRP, ORP or VRP): one horizontal bar per entry, the interval as a whisker,
 * thresholds as ticks. Entries with no decided cell show as "n/a" rather than as a zero bar.
 */
export function profileSvg(bars: ProfileBar[], options: { title: string; line?: number }): string {
  const rows = bars.map((b, idx) => ({ ...b, idx, name: `${idx}\u2063${b.label}` }));
  const decided = rows.filter((r) => r.rate !== null);
  const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
  const describe = (r: (typeof rows)[number]) =>
    `${r.label}: ${pct(r.rate)}` + (r.low !== null ? ` (interval ${pct(r.low)}–${pct(r.high)})` : '') + (r.threshold !== undefined ? `, minimum ${pct(r.threshold)}` : '');
  const rowH = Math.max(10, Math.min(26, Math.floor(600 / Math.max(rows.length, 1))));
  const marks: Plot.Markish[] = [
    Plot.barX(decided, { x: 'rate', y: 'name', fill: '#6e7781', ariaLabel: (r: (typeof rows)[number]) => attr(describe(r)), title: describe }),
    Plot.ruleY(
      decided.filter((r) => r.low !== null),
      { y: 'name', x1: 'low', x2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleYOptions,
    ),
    Plot.tickX(
      decided.filter((r) => r.low !== null),
      { y: 'name', x: 'low', stroke: '#1f2328', ariaHidden: 'true' } as Plot.TickXOptions,
    ),
    Plot.tickX(
      decided.filter((r) => r.high !== null),
      { y: 'name', x: 'high', stroke: '#1f2328', ariaHidden: 'true' } as Plot.TickXOptions,
    ),
    Plot.text(
      rows.filter((r) => r.rate === null),
      { y: 'name', x: 0, text: () => 'n/a', textAnchor: 'start', dx: 4 },
    ),
    Plot.ruleX([0]),
  ];
  const thresholds = rows.filter((r) => r.threshold !== undefined);
  if (thresholds.length) {
    marks.push(Plot.tickX(thresholds, { y: 'name', x: 'threshold', stroke: '#0969da', strokeWidth: 3, strokeDasharray: '3,2', ariaHidden: 'true' } as Plot.TickXOptions));
  }
  if (options.line !== undefined) {
    marks.push(Plot.ruleX([options.line], { stroke: '#0969da', strokeWidth: 2, strokeDasharray: '5,3', ariaLabel: () => `minimum success ${pct(options.line!)}` } as Plot.RuleXOptions));
  }
  const longest = Math.max(4, ...rows.map((r) => Math.min(r.label.length, 28)));
  const svg = Plot.plot({
    document: doc(),
    width: 520,
    height: 40 + rows.length * rowH,
    marginLeft: Math.min(200, 12 + longest * 6.5),
    marginRight: 16,
    ariaLabel: attr(options.title),
    x: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true },
    y: {
      domain: rows.map((r) => r.name),
      label: null,
      tickFormat: (name: string) => {
        const label = name.slice(name.indexOf('\u2063') + 1);
        return label.length > 28 ? label.slice(0, 27) + '…' : label;
      },
      ticks: sparseTicks(rows.length, 40).map((i) => rows[i].name),
    },
    marks,
  });
  return svgString(svg as unknown as Element);
}

export interface TrendPoint {
  /** ISO date of the run. */
  date: string;
  runId: string;
  series: string;
  rate: number | null;
  low: number | null;
  high: number | null;
  /** p-value of the change from the previous run, when it is significant. */
  significantP?: number;
}

/** Each series' rate across runs with interval whiskers; significant changes ringed and labelled with p. */
export function trendSvg(points: TrendPoint[], options: { title: string }): string {
  // Runs are placed in order (a point scale), labelled with their date: CI runs often cluster in time,
  // and a time axis would pile them on top of each other.
  const runOrder = [...new Map(points.map((p) => [p.runId, p.date])).entries()].sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));
  const position = new Map(runOrder.map(([id], idx) => [id, idx]));
  const rows = points.filter((p) => p.rate !== null).map((p) => ({ ...p, x: position.get(p.runId)! }));
  const describe = (p: (typeof rows)[number]) =>
    `${p.series}, run ${p.runId} (${p.date.slice(0, 16).replace('T', ' ')}): ${((p.rate ?? 0) * 100).toFixed(1)}%` +
    (p.significantP !== undefined ? `, significant change p=${p.significantP.toPrecision(2)}` : '');
  const sig = rows.filter((p) => p.significantP !== undefined);
  const series = [...new Set(rows.map((p) => p.series))];
  const last = series.map((name) => rows.filter((p) => p.series === name).at(-1)!);
  const longest = Math.max(...series.map((n) => Math.min(24, n.length)), 4);
  const svg = Plot.plot({
    document: doc(),
    width: Math.max(480, Math.min(1100, 160 + runOrder.length * 70 + longest * 6.5)),
    height: 340,
    marginTop: 28,
    marginRight: 24 + longest * 6.5,
    marginBottom: 44,
    ariaLabel: attr(options.title),
    x: {
      type: 'point',
      domain: runOrder.map((_, idx) => idx),
      label: 'run (date, UTC)',
      inset: 20,
      ticks: sparseTicks(runOrder.length, 12),
      tickFormat: (idx: number) => runOrder[idx][1].slice(5, 16).replace('T', ' '),
    },
    y: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true },
    color: { type: 'categorical', domain: series, range: ['#0969da', '#bc4c00', '#1a7f37', '#8250df', '#bf3989', '#6e7781', '#1b7c83', '#953800', '#4d2d00', '#0550ae'] },
    symbol: { domain: series },
    marks: [
      Plot.ruleX(rows.filter((p) => p.low !== null), { x: 'x', y1: 'low', y2: 'high', stroke: 'series', strokeOpacity: 0.6, ariaHidden: 'true' } as Plot.RuleXOptions),
      Plot.line(rows, { x: 'x', y: 'rate', stroke: 'series', ariaHidden: 'true' } as Plot.LineOptions),
      Plot.dot(rows, { x: 'x', y: 'rate', fill: 'series', symbol: 'series', r: 4, ariaLabel: (p: (typeof rows)[number]) => attr(describe(p)), title: describe }),
      Plot.dot(sig, { x: 'x', y: 'rate', r: 9, stroke: '#cf222e', strokeWidth: 2, ariaHidden: 'true' } as Plot.DotOptions),
      Plot.text(sig, { x: 'x', y: 'rate', text: (p: TrendPoint) => `p=${p.significantP!.toPrecision(2)}`, dy: -16, fill: '#cf222e', fontWeight: 'bold' }),
      // Direct labels at each line's end: series are told apart by name and symbol, not colour alone.
      Plot.text(last, { x: 'x', y: 'rate', text: 'series', fill: 'series', textAnchor: 'start', dx: 10, fontWeight: 'bold', ariaHidden: 'true' } as Plot.TextOptions),
    ],
  });
  return svgString(svg as unknown as Element);
}
