import { describe, expect, it } from 'vitest';
import { CARD_LABEL_CHARS, profileSvg, sparseTicks } from './charts.js';
import { diffSvg, trendSvg } from './charts-trend.js';
import type { ValidatorSummary } from '../core/summary-types.js';
import { vrpStatus } from './html-run.js';

const count = (s: string, re: RegExp) => s.match(re)?.length ?? 0;

describe('profileSvg', () => {
  const bars = [
    { label: 'a', rate: 0.9, low: 0.8, high: 0.95 },
    { label: 'b', rate: null, low: null, high: null },
    { label: 'c', rate: 0.5, low: 0.3, high: 0.7 },
  ];

  it('as bars: decided entries get a bar and whisker, undecided ones a "–" label (no value), never a zero bar', () => {
    const svg = profileSvg(bars, { title: 'VRP', line: 0.8 });
    expect(count(svg, /<rect [^>]*aria-label="[abc]: /g)).toBe(2);
    expect(svg).toContain('– (nothing decided)');
    expect(svg).toContain('aria-label="a: 90.0% (interval 80.0%–95.0%): ✓ meets the minimum"');
    expect(svg).toContain('aria-label="c: 50.0% (interval 30.0%–70.0%): ✗ below the minimum"');
    expect(svg).toContain('minimum success 80.0%');
  });

  it('labels above the bars (IRP in a narrow card): drawn at the card width, each label whole up to a line', () => {
    const long = { label: '1. Greet a new customer who has just signed up for the premium plan.', rate: 0.9, low: 0.8, high: 0.95 };
    const svg = profileSvg([...bars, long], { title: 'IRP', line: 0.8, labelsAbove: true });
    expect(svg).toMatch(/viewBox="0 0 380 /);
    for (const b of bars) expect(svg).toContain(`>${b.label}</text>`);
    expect(svg).toContain(`>${long.label.slice(0, CARD_LABEL_CHARS - 1)}…</text>`);
    expect(count(svg, /<rect [^>]*aria-label="[^"]+: /g)).toBe(3);
    expect(svg).toContain(`aria-label="${long.label}: 90.0%`); // the whole label where it is cut on screen
    expect(svg).toContain('– (nothing decided)');
  });

  it('as columns (iterations, many inputs): numbered from 1, full labels in the tooltips', () => {
    const svg = profileSvg(bars, { title: 'ORP', line: 0.8, columns: true, axis: 'sample' });
    expect(count(svg, /<rect [^>]*aria-label="[abc]: /g)).toBe(2);
    expect(svg).toContain('<title>c: 50.0% (interval 30.0%–70.0%): ✗ below the minimum</title>');
    expect(svg).toMatch(/>1<\/text>.*>2<\/text>.*>3<\/text>/s);
    expect(svg).toContain('aria-label="b: –"');
  });
});

describe('trendSvg', () => {
  const points = [
    { date: '2026-01-01T00:00:00Z', runId: 'r1', rate: 0.5, low: 0.4, high: 0.6 },
    { date: '2026-01-02T00:00:00Z', runId: 'r2', rate: 0.99, low: 0.9, high: 1, significant: { p: 0.0012, direction: 'better' as const } },
    { date: '2026-01-03T00:00:00Z', runId: 'r3', rate: 0.3, low: 0.2, high: 0.4, significant: { p: 1e-5, direction: 'worse' as const } },
  ];

  it('labels each significant change with ▲/▼ and its p-value, below a point near the top and above the others', () => {
    const svg = trendSvg(points, { title: 'trend', minSuccess: 0.8 });
    const labels = [...svg.matchAll(/<g transform="translate\(0,(-?\d+)\)"[^>]*aria-label="text"><text[^>]*>([^<]*)<\/text>/g)].map((m) => [
      Number(m[1]),
      m[2],
    ]);
    expect(labels).toEqual([
      [22, '▲ p=0.00120'],
      [-20, '▼ p=1.0e-5'],
    ]);
    expect(svg).toContain('significantly worse than the previous run, p=1.0e-5');
    expect(svg).toContain('minimum success 80.0%');
    // Runs are numbered in order, with their date: several runs in one minute stay apart.
    expect(svg).toMatch(/#1<\/tspan><tspan[^>]*>01-01 00:00/);
  });

  it('numbers runs by their place in the whole history when given', () => {
    const svg = trendSvg([{ ...points[0], runNumber: 4 }], { title: 'trend' });
    expect(svg).toContain('run #4 r1');
  });
});

describe('diffSvg', () => {
  it('draws B − A per row with a glyph by direction and leaves untestable rows out', () => {
    const svg = diffSvg(
      [
        { label: 'worse', diff: -0.3, low: -0.45, high: -0.1, direction: 'worse' },
        { label: 'same', diff: 0.02, low: -0.1, high: 0.12, direction: 'unchanged' },
        { label: 'better', diff: 0.2, low: 0.05, high: 0.3, direction: 'better' },
        { label: 'none', diff: null, low: null, high: null, direction: 'unchanged' },
      ],
      { title: 'forest' },
    );
    expect(svg).toMatch(/aria-label="worse: B − A −30\.0% \(interval −45\.0% to −10\.0%\), significantly worse"[^>]*>▼/);
    expect(svg).toMatch(/aria-label="better: [^"]*significantly better"[^>]*>▲/);
    expect(svg).toMatch(/aria-label="same: [^"]*no significant change"[^>]*>●/);
    expect(svg).not.toContain('none:');
  });
});

describe('sparseTicks', () => {
  it('labels entries at round steps as people count (1-based), at most ~max of them', () => {
    const labels = (n: number, max: number) => sparseTicks(n, max).map((i) => i + 1);
    expect(labels(5, 20)).toEqual([1, 2, 3, 4, 5]);
    expect(labels(40, 20)).toEqual(Array.from({ length: 20 }, (_, k) => 2 * (k + 1)));
    expect(labels(200, 30)).toEqual([1, ...Array.from({ length: 20 }, (_, k) => 10 * (k + 1))]);
    expect(labels(1000, 30).slice(0, 3)).toEqual([1, 50, 100]);
    expect(labels(0, 10)).toEqual([]);
  });
});

// A rule that fails only its per-input floor (its aggregate clears the minimum) has its own mark on the VRP, not
// the red "✗ below the minimum" of a bar lying wholly above its minimum (issue 26, item 6).
describe('the VRP bar of a per-input-floor failure', () => {
  const rule = (o: Partial<ValidatorSummary>) =>
    ({ verdict: 'fail', minSuccess: 0.6, rate: 0.8, ci: { low: 0.727, high: 0.861, method: 'clopper-pearson', level: 0.95 }, ...o }) as ValidatorSummary;
  const floorFail = { verdict: 'fail', minSuccess: 0.8, failing: [4] } as unknown as ValidatorSummary['perInput'];

  it('is marked "an input below its per-input floor", in its own colour and glyph', () => {
    expect(vrpStatus(rule({ perInput: floorFail }))).toBe('floor');
    const svg = profileSvg([{ label: 'says-yes', rate: 0.8, low: 0.727, high: 0.861, threshold: 0.6, status: 'floor' }], { title: 'VRP' });
    expect(svg).toContain('aria-label="says-yes: 80.0% (interval 72.7%–86.1%), minimum 60.0%: ↓ an input below its per-input floor"');
    expect(svg).not.toContain('below the minimum');
  });

  it('stays a plain FAIL when the aggregate itself is below the minimum, and any other verdict as it is', () => {
    expect(vrpStatus(rule({ perInput: floorFail, rate: 0.4, ci: { low: 0.3, high: 0.5, method: 'clopper-pearson', level: 0.95 } }))).toBe('fail');
    expect(vrpStatus(rule({}))).toBe('fail');
    expect(vrpStatus(rule({ verdict: 'pass' }))).toBe('pass');
  });
});
