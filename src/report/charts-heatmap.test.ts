import { describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { ReliabilityTensor } from '../core/tensor.js';
import { cellSize, failShade, heatmapSvg, HEATMAP_BLOCK_JS, isBinned, tensorCodes } from './charts-heatmap.js';
import { CELL_DETAIL_SCRIPT } from './html-script.js';

const count = (s: string, re: RegExp) => s.match(re)?.length ?? 0;
const attrOf = (svg: string, name: string) => Number(new RegExp(`<svg [^>]*\\b${name}="(\\d+)"`).exec(svg)?.[1]);

function tensor(N: number, M: number, K: number, cell: (i: number, j: number, k: number) => number): ReliabilityTensor {
  const t = new ReliabilityTensor(N, M, K);
  for (let i = 0; i < N; i++) for (let j = 0; j < M; j++) for (let k = 0; k < K; k++) t.set(i, j, k, cell(i, j, k) as 0 | 1 | 2 | 3);
  return t;
}

describe('heatmap at full resolution (60 inputs × 40 samples)', () => {
  const t = tensor(60, 40, 3, (i, j) => ((i + j) % 7 === 0 ? Outcome.FAIL : (i * j) % 11 === 5 ? Outcome.ERROR : Outcome.PASS));
  const svg = heatmapSvg(t, 1, { label: 'v<1>' });

  it('draws every cell as a link with its outcome, numbered from 1, and a glyph (not colour alone)', () => {
    expect(isBinned(60, 40)).toBe(false);
    expect(count(svg, /<a href="#cell-\d+-\d+">/g)).toBe(60 * 40);
    // (Large strings: compare booleans, so a failure does not print the whole chart.)
    expect(svg.includes('<a href="#cell-59-39"><title>v&lt;1&gt;: input 60, sample 40: fail</title>')).toBe(true);
    expect(svg.includes('<a href="#cell-1-5"><title>v&lt;1&gt;: input 2, sample 6: error</title>')).toBe(true);
    expect(svg.includes('<title>v&lt;1&gt;: input 1, sample 2: pass</title>')).toBe(true);
    expect(count(svg, />✗<\/text>/g)).toBe(count(svg, /: fail<\/title>/g));
    expect(count(svg, />!<\/text>/g)).toBe(count(svg, /: error<\/title>/g));
  });

  it('lays 40 samples out at a readable size in the heatmap column of a 1400 px screen (~860 px), every sample labelled by a tick or a title', () => {
    const { cellW, rowH } = cellSize(60, 40);
    expect(cellW).toBeGreaterThanOrEqual(20);
    expect(rowH).toBeGreaterThanOrEqual(14);
    expect(attrOf(svg, 'width')).toBeLessThanOrEqual(960);
    // Column ticks: every second sample up to 40 (each cell's title names its sample).
    const ticks = [...svg.matchAll(/<text x="[\d.]+" y="32">(\d+)<\/text>/g)].map((m) => Number(m[1]));
    expect(ticks).toEqual(Array.from({ length: 20 }, (_, n) => 2 * (n + 1)));
  });

  it('keeps the axis title clear of the tick labels', () => {
    const title = /<text x="\d+" y="(\d+)" font-size="12"[^>]*>sample →<\/text>/.exec(svg);
    expect(title).not.toBeNull();
    // Title baseline at 12 px, tick labels (11 px) at 32 px: 8 px of air between them.
    expect(32 - 11 - Number(title![1])).toBeGreaterThanOrEqual(8);
  });

  it('is the block function the page script carries (the browser draws zoomed blocks with the same code)', () => {
    expect(CELL_DETAIL_SCRIPT).toContain(HEATMAP_BLOCK_JS);
  });
});

describe('binned heatmap (500 inputs × 100 samples)', () => {
  // Inputs 0–4 fail everywhere; input 5 has one error among passes; inputs ≥ 490 were not run.
  const t = tensor(500, 100, 2, (i, j) => (i < 5 ? Outcome.FAIL : i >= 490 ? Outcome.PENDING : i === 5 && j === 3 ? Outcome.ERROR : Outcome.PASS));
  const svg = heatmapSvg(t, 0, { label: 'v' });

  it('draws 100 × 50 bins, each linking to its full-resolution block, with counts in its title', () => {
    expect(isBinned(500, 100)).toBe(true);
    expect(count(svg, /<a href="#zoom-0-\d+-\d+">/g)).toBe(100 * 50);
    expect(svg.includes('<a href="#zoom-0-0-0"><title>inputs 1–5, samples 1–2: 0 pass, 10 fail (100% failing)</title>')).toBe(true);
    expect(svg.includes('<a href="#zoom-0-5-2"><title>inputs 6–10, samples 3–4: 9 pass, 0 fail, 1 error (0% failing)</title>')).toBe(true);
    expect(svg.includes('<a href="#zoom-0-495-98"><title>inputs 496–500, samples 99–100: 0 pass, 0 fail</title>')).toBe(true);
    expect(svg.includes('#cell-')).toBe(false);
  });

  it('shades by the share of failing cells, marks bins with errors, and greys bins with nothing decided', () => {
    const fill = (href: string) => new RegExp(`${href}"><title>[^<]*</title><rect [^>]*fill="(#[0-9a-f]{6})"`).exec(svg)?.[1];
    expect([fill('#zoom-0-0-0'), fill('#zoom-0-10-0'), fill('#zoom-0-495-0')]).toEqual(['#82071e', '#e6f4ea', '#d0d7de']);
    expect(count(svg, /<path d="M/g)).toBe(1);
    expect(attrOf(svg, 'width')).toBeLessThanOrEqual(960);
  });

  it('goes from light to dark as more cells fail', () => {
    const lightness = (hex: string) => [1, 3, 5].reduce((s, p) => s + parseInt(hex.slice(p, p + 2), 16), 0);
    const shades = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1].map(failShade);
    for (let s = 1; s < shades.length; s++) expect(lightness(shades[s])).toBeLessThan(lightness(shades[s - 1]));
  });

  it('encodes the tensor one digit per cell for the page script', () => {
    const codes = tensorCodes(t);
    expect(codes).toHaveLength(500 * 100 * 2);
    expect(codes[(5 * 100 + 3) * 2]).toBe('3');
    expect(codes[(499 * 100 + 99) * 2 + 1]).toBe('0');
  });
});
