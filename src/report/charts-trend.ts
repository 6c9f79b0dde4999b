import type * as Plot from '@observablehq/plot';
import { attr, bandKey, doc, namedRows, plot, sparseTicks, svgString, TEXT_STYLE } from './charts.js';
import { formatP } from './compare.js';
import { formatRate, formatRateChange } from '../core/show.js';
import { maxOf } from '../core/arrays.js';

/** Charts of changes: one validator's rate across runs (trend) and B − A per row (compare). */

export interface TrendPoint {
  /** ISO date of the run. */
  date: string;
  runId: string;
  /** The run's number in the experiment's history (#1 the oldest); default its position here. */
  runNumber?: number;
  rate: number | null;
  low: number | null;
  high: number | null;
  /** The change from the previous run, when it is significant: its p-value and direction. */
  significant?: { p: number; direction: 'better' | 'worse' };
}

/** The widest a trend chart is drawn: the width of the figure it is shown in (figure.trend in html-layout.ts). */
export const TREND_MAX_WIDTH = 640;

const WORSE = '#cf222e';
const BETTER = '#1a7f37';

/**
 * One validator's success rate across runs (oldest first) with interval whiskers, its minimum success as a
 * dashed line, and each significant change from the previous run ringed and labelled ▼/▲ with its p-value.
 * Runs are placed in order and numbered (#1, #2, … with their date beneath): CI runs often share a minute,
 * and a time axis would pile them on top of each other.
 */
export function trendSvg(points: TrendPoint[], options: { title: string; minSuccess?: number }): string {
  const order = points.map((p, idx) => ({ ...p, x: idx, no: p.runNumber ?? idx + 1 }));
  const rows = order.filter((p) => p.rate !== null);
  const sig = rows.filter((p) => p.significant);
  const describe = (p: (typeof rows)[number]) =>
    `run #${p.no} ${p.runId} (${p.date.slice(0, 16).replace('T', ' ')}): ${formatRate(p.rate)}` +
    (p.low !== null ? ` (interval ${formatRate(p.low)}–${formatRate(p.high)})` : '') +
    (p.significant ? `, significantly ${p.significant.direction} than the previous run, p=${formatP(p.significant.p)}` : '');
  // At most the width its figure is shown at (640 px, html-layout.ts), so the text is drawn at its own 12 px:
  // a wider chart scaled into the figure had made it 6.4 px from 9 runs on. Fewer date ticks the more runs.
  const width = Math.max(340, Math.min(TREND_MAX_WIDTH, 90 + order.length * 64));
  const maxTicks = Math.max(2, Math.min(10, Math.floor((width - 64) / 90)));
  const marks: Plot.Markish[] = [
    plot().ruleX(
      rows.filter((p) => p.low !== null),
      { x: 'x', y1: 'low', y2: 'high', stroke: '#57606a', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleXOptions,
    ),
    plot().line(rows, { x: 'x', y: 'rate', stroke: '#0969da', ariaHidden: 'true' } as Plot.LineOptions),
    plot().dot(rows, { x: 'x', y: 'rate', fill: '#0969da', r: 4, ariaLabel: (p: (typeof rows)[number]) => attr(describe(p)), title: describe }),
    plot().dot(sig, {
      x: 'x',
      y: 'rate',
      r: 9,
      stroke: (p: TrendPoint) => (p.significant!.direction === 'worse' ? WORSE : BETTER),
      strokeWidth: 2,
      ariaHidden: 'true',
    } as Plot.DotOptions),
    // Labels go below a point near the top and above the others, so they never leave the plot (dy is a constant in Plot).
    ...[
      { data: sig.filter((p) => (p.rate ?? 0) > 0.8), dy: 22 },
      { data: sig.filter((p) => (p.rate ?? 0) <= 0.8), dy: -20 },
    ].map(({ data, dy }) =>
      plot().text(data, {
        x: 'x',
        y: 'rate',
        dy,
        text: (p: TrendPoint) => `${p.significant!.direction === 'worse' ? '▼' : '▲'} p=${formatP(p.significant!.p)}`,
        fill: (p: TrendPoint) => (p.significant!.direction === 'worse' ? WORSE : BETTER),
        fontWeight: 'bold',
        fontSize: 12,
        stroke: 'white',
        strokeWidth: 3,
        paintOrder: 'stroke',
        ariaHidden: 'true',
      } as Plot.TextOptions),
    ),
  ];
  if (options.minSuccess !== undefined && options.minSuccess > 0) {
    marks.unshift(
      plot().ruleY([options.minSuccess], {
        stroke: '#0969da',
        strokeDasharray: '5,3',
        strokeOpacity: 0.7,
        ariaLabel: () => `minimum success ${formatRate(options.minSuccess)}`,
      } as Plot.RuleYOptions),
    );
  }
  const svg = plot().plot({
    document: doc(),
    width,
    height: 260,
    style: TEXT_STYLE,
    marginTop: 20,
    marginLeft: 44,
    marginRight: 20,
    marginBottom: 46,
    ariaLabel: attr(options.title),
    x: {
      type: 'point',
      domain: order.map((p) => p.x),
      label: null,
      inset: 16,
      ticks: sparseTicks(order.length, maxTicks),
      tickFormat: (idx: number) => `#${order[idx].no}\n${order[idx].date.slice(5, 16).replace('T', ' ')}`,
    },
    y: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true, ticks: 5 },
    marks,
  });
  return svgString(svg, Math.min(width, 320));
}

export interface DiffRow {
  label: string;
  diff: number | null;
  low: number | null;
  high: number | null;
  direction: 'better' | 'worse' | 'unchanged';
  /** Shown in the label, e.g. "p=0.003". */
  note?: string;
}

/**
 * A forest plot of B − A: one row per validator or input, the difference as a dot (▼ worse, ▲ better,
 * ● unchanged) with its interval as a whisker, and a line at zero. Rows without a test are left out.
 */
export function diffSvg(rows: DiffRow[], options: { title: string }): string {
  const shown = rows.map((r, idx) => ({ ...r, name: bandKey(idx, r.label) })).filter((r) => r.diff !== null);
  const extent = maxOf(
    shown.flatMap((r) => [Math.abs(r.low ?? r.diff!), Math.abs(r.high ?? r.diff!)]),
    0.1,
  );
  const bound = Math.min(1, Math.ceil(extent * 10) / 10);
  const rowH = Math.max(14, Math.min(26, Math.floor(600 / Math.max(shown.length, 1))));
  const glyph = (r: DiffRow) => (r.direction === 'worse' ? '▼' : r.direction === 'better' ? '▲' : '●');
  const colour = (r: DiffRow) => (r.direction === 'worse' ? WORSE : r.direction === 'better' ? BETTER : '#57606a');
  const describe = (r: DiffRow) =>
    `${r.label}: B − A ${formatRateChange(r.diff)} (interval ${formatRateChange(r.low)} to ${formatRateChange(r.high)}), ${r.direction === 'unchanged' ? 'no significant change' : `significantly ${r.direction}`}${r.note ? `, ${r.note}` : ''}`;
  const svg = plot().plot({
    document: doc(),
    width: 520,
    style: TEXT_STYLE,
    height: 50 + shown.length * rowH,
    ...namedRows(shown, shown.length),
    marginRight: 20,
    ariaLabel: attr(options.title),
    x: { domain: [-bound, bound], label: 'B − A (success rate)', labelAnchor: 'center', tickFormat: '+.0%', grid: true, ticks: 5 },
    marks: [
      plot().ruleX([0], { stroke: '#1f2328' }),
      plot().ruleY(
        shown.filter((r) => r.low !== null),
        { y: 'name', x1: 'low', x2: 'high', stroke: colour, strokeWidth: 2, ariaHidden: 'true' } as Plot.RuleYOptions,
      ),
      plot().text(shown, {
        y: 'name',
        x: 'diff',
        text: glyph,
        fill: colour,
        fontSize: 14,
        ariaLabel: (r: DiffRow) => attr(describe(r)),
        title: describe,
      } as Plot.TextOptions),
    ],
  });
  return svgString(svg, 340);
}
