import { visibleControls } from '../core/text.js';
import type * as Plot from '@observablehq/plot';
import { lazyPackage } from '../lazy.js';
import { formatRate, NO_VALUE } from '../core/show.js';
import { maxOf, pushAll } from '../core/arrays.js';

// Observable Plot and linkedom load with the first chart, not with every import of the package (start-up, docs/runner.md).
export const plot = lazyPackage<typeof Plot>('@observablehq/plot');
const linkedom = lazyPackage<typeof import('linkedom')>('linkedom');

/** Load the chart libraries now (a dashboard worker at start), not while someone waits for the first chart. */
export function loadChartLibraries(): void {
  plot();
  linkedom();
}

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

export function doc(): Document {
  return linkedom().parseHTML('<!doctype html><html><body></body></html>').document as unknown as Document;
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
  if (minWidth !== undefined) {
    // Keep the chart's own inline style (its font size); add the minimum width.
    const own = (el.getAttribute('style') ?? '').trim().replace(/;?$/, ';').replace(/^;$/, '');
    el.setAttribute('style', `${own}min-width:${Math.round(minWidth)}px`);
  }
  return el.outerHTML;
}

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

/** A band key unique per row (two rows may share a label); the label follows an invisible separator. */
export function bandKey(idx: number, label: string): string {
  return `${idx}\u2063${label}`;
}

/**
 * A y axis of named rows (keys from bandKey), labels cut at 28 characters, and the left margin they need.
 * `maxTicks` thins the labels of long lists.
 */
export function namedRows(rows: { name: string; label: string }[], maxTicks = 40, charPx = 6.2): { y: Plot.ScaleOptions; marginLeft: number } {
  const longest = maxOf(
    rows.map((r) => Math.min(r.label.length, 28)),
    4,
  );
  return {
    marginLeft: Math.min(30 * charPx, 12 + longest * charPx),
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
  /** Share of the entry's checked cells that are errors (left out of its rate): said in its tooltip when above 0. */
  errorShare?: number | null;
  /** Threshold drawn as a tick on this bar (a validator's minSuccess). */
  threshold?: number;
  /** The bar's colour and glyph; default: from its interval against its threshold (or the chart's line). */
  status?: BarStatus;
}

export type BarStatus = 'pass' | 'fail' | 'floor' | 'inconclusive' | 'error';

/** Profile bars: colour and glyph by status; darker than the heatmap cells so thin bars still read. */
export const BAR_STYLE: Record<BarStatus | 'none', { color: string; glyph: string; text: string }> = {
  pass: { color: '#1a7f37', glyph: '✓', text: 'meets the minimum' },
  fail: { color: '#cf222e', glyph: '✗', text: 'below the minimum' },
  // The rule's aggregate clears its minimum but an input is shown below its per-input floor: its own mark.
  floor: { color: '#bc4c00', glyph: '↓', text: 'an input below its per-input floor' },
  inconclusive: { color: '#bf8700', glyph: '?', text: 'interval straddles the minimum' },
  error: { color: '#82071e', glyph: '!', text: 'too many errors to decide' },
  none: { color: '#6e7781', glyph: '', text: '' },
};

/** Whole interval at or above the minimum: pass; wholly below: fail; across it: inconclusive (point rate without an interval). */
export function barStatus(b: ProfileBar, line: number | undefined): BarStatus | 'none' {
  if (b.status) return b.status;
  const min = b.threshold ?? line;
  if (min === undefined || b.rate === null) return 'none';
  const low = b.low ?? b.rate;
  const high = b.high ?? b.rate;
  return low >= min ? 'pass' : high < min ? 'fail' : 'inconclusive';
}

/** Chart text at 12 px (Plot's default is 10 px, and charts scaled into a card made it ~9). */
export const TEXT_STYLE = { fontSize: '12px', fontFamily: 'system-ui,sans-serif' };

/**
 * A marginal profile (IRP, ORP or VRP) with the interval of each entry as a whisker and thresholds as ticks
 * (per entry) or a dashed line (`line`). Entries with no decided cell show as NO_VALUE ("–"), never as a zero bar.
 * Horizontal bars carry names (validators, a few inputs); `columns` draws one column per entry numbered
 * from 1, for ordered or numerous entries (iterations, many inputs), each column's label in its tooltip.
 */
export function profileSvg(bars: ProfileBar[], options: { title: string; line?: number; columns?: boolean; axis?: string; labelsAbove?: boolean }): string {
  // Labels are inputs and names people wrote: their bidi and control characters are shown as marks (core/text.ts).
  const rows = bars.map((b, idx) => {
    const label = visibleControls(b.label);
    return { ...b, label, idx, name: bandKey(idx, label), shown: barStatus(b, options.line) };
  });
  const describe = (r: (typeof rows)[number]) =>
    `${r.label}: ${formatRate(r.rate)}` +
    (r.low !== null ? ` (interval ${formatRate(r.low)}–${formatRate(r.high)})` : '') +
    (r.errorShare ? `, errors ${formatRate(r.errorShare)}` : '') +
    (r.threshold !== undefined ? `, minimum ${formatRate(r.threshold)}` : '') +
    (r.shown !== 'none' ? `: ${BAR_STYLE[r.shown].glyph} ${BAR_STYLE[r.shown].text}` : '');
  const common = { rows, decided: rows.filter((r) => r.rate !== null), describe, options };
  return options.columns ? columns(common) : options.labelsAbove ? labelledAbove(common) : horizontal(common);
}

type Row = ProfileBar & { idx: number; name: string; shown: BarStatus | 'none' };
const barFill = (r: Row) => BAR_STYLE[r.shown].color;
const barGlyph = (r: Row) => BAR_STYLE[r.shown].glyph;
interface Common {
  rows: Row[];
  decided: Row[];
  describe: (r: Row) => string;
  options: { title: string; line?: number; axis?: string };
}

function lineMark(line: number | undefined, along: 'x' | 'y'): Plot.Markish[] {
  if (line === undefined) return [];
  const style = { stroke: '#0969da', strokeWidth: 2, strokeDasharray: '5,3', ariaLabel: () => `minimum success ${formatRate(line)}` };
  return [along === 'x' ? plot().ruleX([line], style as Plot.RuleXOptions) : plot().ruleY([line], style as Plot.RuleYOptions)];
}

function horizontal({ rows, decided, describe, options }: Common): string {
  const rowH = Math.max(14, Math.min(30, Math.floor(600 / Math.max(rows.length, 1))));
  const withCi = decided.filter((r) => r.low !== null);
  const marks: Plot.Markish[] = [
    plot().barX(decided, { x: 'rate', y: 'name', fill: barFill, fillOpacity: 0.85, ariaLabel: (r: Row) => attr(describe(r)), title: describe }),
    plot().ruleY(withCi, { y: 'name', x1: 'low', x2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleYOptions),
    plot().tickX(withCi, { y: 'name', x: 'low', stroke: '#1f2328', inset: rowH / 5, ariaHidden: 'true' } as Plot.TickXOptions),
    plot().tickX(withCi, { y: 'name', x: 'high', stroke: '#1f2328', inset: rowH / 5, ariaHidden: 'true' } as Plot.TickXOptions),
    plot().text(
      rows.filter((r) => r.rate === null),
      { y: 'name', x: 0, text: () => `${NO_VALUE} (nothing decided)`, textAnchor: 'start', dx: 4, fill: '#656d76' },
    ),
    plot().ruleX([0]),
  ];
  const thresholds = rows.filter((r) => r.threshold !== undefined);
  if (thresholds.length) {
    marks.push(
      plot().tickX(thresholds, {
        y: 'name',
        x: 'threshold',
        stroke: '#0969da',
        strokeWidth: 3,
        strokeDasharray: '3,2',
        ariaHidden: 'true',
      } as Plot.TickXOptions),
    );
  }
  pushAll(marks, lineMark(options.line, 'x'));
  // The glyph right of each bar's interval: the status reads without colour.
  marks.push(statusGlyphs(decided, 'name'));
  const svg = plot().plot({
    document: doc(),
    width: 560,
    height: 48 + rows.length * rowH,
    style: TEXT_STYLE,
    ...namedRows(rows, 40, 7.4),
    marginRight: 24,
    ariaLabel: attr(options.title),
    x: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true, ticks: 5 },
    marks,
  });
  return svgString(svg, 360);
}

/** Width of a chart drawn for a card of the report's grid (min 380 px): it is shown at about its own size there. */
export const CARD_CHART_WIDTH = 380;
/** Characters of a label that fit one line of a CARD_CHART_WIDTH chart at 12 px. */
export const CARD_LABEL_CHARS = 52;

/**
 * Horizontal bars for a narrow card, each with its label on a line of its own above the bar, so labels keep
 * the chart's whole width (≈52 characters at 12 px) instead of a left margin, and the chart is drawn at the
 * card's size (not scaled down to ~8 px text).
 */
function labelledAbove({ rows, decided, describe, options }: Common): string {
  // Two bands per entry: its label's line, then its bar's (keys: the entry's name with a "label"/"bar" prefix).
  const line = 20;
  const labelKey = (r: Row) => `label\u2063${r.name}`;
  const barKey = (r: Row) => `bar\u2063${r.name}`;
  const withCi = decided.filter((r) => r.low !== null);
  const cut = (s: string) => (s.length > CARD_LABEL_CHARS ? s.slice(0, CARD_LABEL_CHARS - 1) + '…' : s);
  // A white halo keeps a label legible where grid lines and the minimum's dashes cross it.
  const halo = { stroke: '#ffffff', strokeWidth: 3, paintOrder: 'stroke' };
  const marks: Plot.Markish[] = [
    plot().barX(decided, { x: 'rate', y: barKey, fill: barFill, fillOpacity: 0.85, insetBottom: 2, ariaLabel: (r: Row) => attr(describe(r)), title: describe }),
    plot().ruleY(withCi, { y: barKey, x1: 'low', x2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleYOptions),
    plot().tickX(withCi, { y: barKey, x: 'low', stroke: '#1f2328', inset: 4, ariaHidden: 'true' } as Plot.TickXOptions),
    plot().tickX(withCi, { y: barKey, x: 'high', stroke: '#1f2328', inset: 4, ariaHidden: 'true' } as Plot.TickXOptions),
    plot().text(
      rows.filter((r) => r.rate === null),
      { y: barKey, x: 0, text: () => `${NO_VALUE} (nothing decided)`, textAnchor: 'start', dx: 4, fill: '#656d76' },
    ),
    plot().ruleX([0]),
    ...lineMark(options.line, 'x'),
    statusGlyphs(decided, barKey),
    // Last, so the halo covers the grid and the minimum's dashes where they cross a label.
    plot().text(rows, { y: labelKey, x: 0, text: (r: Row) => cut(r.label), textAnchor: 'start', dy: 3, fill: '#1f2328', ...halo, ariaHidden: 'true' }),
  ];
  const svg = plot().plot({
    document: doc(),
    width: CARD_CHART_WIDTH,
    height: 44 + rows.length * 2 * line,
    style: TEXT_STYLE,
    marginLeft: 8,
    marginRight: 24,
    ariaLabel: attr(options.title),
    y: { domain: rows.flatMap((r) => [labelKey(r), barKey(r)]), axis: null, padding: 0 },
    x: { domain: [0, 1], label: 'success rate', tickFormat: '.0%', grid: true, ticks: 5 },
    marks,
  });
  return svgString(svg, 300);
}

function columns({ rows, decided, describe, options }: Common): string {
  const n = rows.length;
  const colW = Math.max(4, Math.min(32, Math.floor(1100 / Math.max(n, 1))));
  const withCi = decided.filter((r) => r.low !== null);
  const inset = Math.max(0, colW * 0.3);
  const width = Math.max(340, 64 + n * colW);
  const svg = plot().plot({
    document: doc(),
    width,
    height: 260,
    marginLeft: 48,
    marginTop: 26,
    marginBottom: 38,
    style: TEXT_STYLE,
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
      plot().barY(decided, { x: 'name', y: 'rate', fill: barFill, fillOpacity: 0.85, ariaLabel: (r: Row) => attr(describe(r)), title: describe }),
      plot().ruleX(withCi, { x: 'name', y1: 'low', y2: 'high', stroke: '#1f2328', strokeWidth: 1.5, ariaHidden: 'true' } as Plot.RuleXOptions),
      plot().tickY(withCi, { x: 'name', y: 'low', stroke: '#1f2328', inset, ariaHidden: 'true' } as Plot.TickYOptions),
      plot().tickY(withCi, { x: 'name', y: 'high', stroke: '#1f2328', inset, ariaHidden: 'true' } as Plot.TickYOptions),
      plot().text(
        rows.filter((r) => r.rate === null),
        { x: 'name', y: 0, text: () => NO_VALUE, dy: -8, fill: '#656d76', ariaLabel: (r: Row) => attr(describe(r)) } as Plot.TextOptions,
      ),
      plot().ruleY([0]),
      ...lineMark(options.line, 'y'),
      // Glyphs above the columns when they are wide enough to hold one.
      ...(colW >= 10
        ? [
            plot().text(decided, {
              x: 'name',
              y: (r: Row) => r.high ?? r.rate,
              text: barGlyph,
              dy: -9,
              fill: barFill,
              fontWeight: 700,
              fontSize: Math.min(13, colW),
              ariaHidden: 'true',
            } as Plot.TextOptions),
          ]
        : []),
    ],
  });
  return svgString(svg, Math.min(width, Math.max(300, 64 + n * 6)));
}

/** The glyph right of each bar's interval, so a status reads without colour (both bar charts). */
function statusGlyphs(decided: Row[], y: Plot.ChannelValue) {
  return plot().text(decided, {
    y,
    x: (r: Row) => r.high ?? r.rate,
    text: barGlyph,
    dx: 9,
    fill: barFill,
    fontWeight: 700,
    fontSize: 13,
    ariaHidden: 'true',
  } as Plot.TextOptions);
}
