import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { writeHtmlReport } from '../report/html.js';
import type { AnalyzeRequest, GroundingEngine, GroundingReport } from '../ground/types.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { RunRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS as OUT } from './testing/chromium.js';
import { seeded, writeFixtureRun } from './testing/fixtures.js';

/**
 * End to end in a real browser: Debian's Chromium driven by playwright-core, against a server on a
 * SQLite store holding a run this test wrote. Screenshots go to test-output/ (gitignored).
 */
const N = 6;
const M = 5;
const VALIDATORS = ['no-apology', 'under-50-words', 'cites-source'];

/** A tiny engine so the grounding page has a report to show (the real one is tested in src/ground). */
const engine: GroundingEngine = {
  async analyze(req: AnalyzeRequest): Promise<GroundingReport> {
    return {
      query: req.query,
      answer: req.answer ?? '',
      confidence_score: 0.55,
      hallucination_risk: 'HIGH',
      evidence_coverage: 'PARTIAL',
      unsupported_claims: ['The moon is made of cheese.'],
      claims_analysis: [
        {
          claim: 'Paris is the capital of France.',
          support_score: 0.91,
          status: 'STRONG',
          evidence: { chunk_id: 'geo.md#0', source: 'geo.md', text: 'Paris is the capital and largest city of France.', score: 0.91 },
        },
        { claim: 'The moon is made of cheese.', support_score: 0.12, status: 'UNSUPPORTED', evidence: null },
      ],
      hallucination_flag: false,
      partial: false,
    };
  },
};

let dir: string;
let store: SqliteStore;
let server: ServerHandle;
let browser: Browser;
let run: RunRecord;
let earlier: RunRecord;
/** Real run sizes (issue 12): 60 inputs × 40 samples and 500 × 100, three validators each. */
let mid: RunRecord;
let large: RunRecord;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'assay-e2e-'));
  const path = join(dir, 'assay.db');
  const writer = openSqliteStore(path);
  const rnd = seeded(42);
  const codes = Array.from({ length: N * M * VALIDATORS.length }, () => {
    const u = rnd();
    return u < 0.08 ? Outcome.ERROR : u < 0.3 ? Outcome.FAIL : Outcome.PASS;
  });
  // An earlier run of the same experiment, better on 'no-apology', for the trend and compare pages.
  earlier = await writeFixtureRun(writer, {
    name: 'e2e-experiment',
    inputs: Array.from({ length: N }, (_, i) => `Question number ${i + 1}: how do I reset my password?`),
    samples: M,
    validators: VALIDATORS.map((name) => ({ name, minSuccess: 0.7 })),
    cell: (i, j, k) => (k === 0 ? Outcome.PASS : (codes[(i * M + j) * VALIDATORS.length + k] as 1 | 2 | 3)),
  });
  await new Promise((r) => setTimeout(r, 5));
  run = await writeFixtureRun(writer, {
    name: 'e2e-experiment',
    inputs: Array.from({ length: N }, (_, i) => `Question number ${i + 1}: how do I reset my password?`),
    samples: M,
    validators: VALIDATORS.map((name) => ({ name, minSuccess: 0.7 })),
    cell: (i, j, k) => codes[(i * M + j) * VALIDATORS.length + k] as 1 | 2 | 3,
    output: (i, j) => `Answer for input ${i + 1}, sample ${j + 1}: open Settings → Security.`,
  });
  const sized = (n: number, m: number) =>
    writeFixtureRun(writer, {
      name: `sized-${n}x${m}`,
      inputs: Array.from({ length: n }, (_, i) => `Question ${i + 1}`),
      samples: m,
      validators: VALIDATORS.map((name) => ({ name, minSuccess: 0.8 })),
      cell: (i, _j, k) => {
        const u = rnd();
        // input-dependent rates, so profiles hold passing and failing bars
        return u < 0.03 ? Outcome.ERROR : u < 0.7 + 0.25 * Math.sin(i + k) ? Outcome.PASS : Outcome.FAIL;
      },
    });
  mid = await sized(60, 40);
  large = await sized(500, 100);
  await writer.close();
  store = openSqliteStore(path, { readonly: true });
  server = await startServer({ port: 0, store, engine, log: false });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('dashboard in Chromium', () => {
  it('shows one heatmap per validator with N×M cells, and a clicked cell shows its output', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requests: string[] = [];
    pageObj.on('request', (r) => requests.push(r.url()));
    await pageObj.goto(`${server.url}/runs/${run.id}`);
    const heatmaps = pageObj.locator('figure.heatmap');
    await expect(heatmaps.count()).resolves.toBe(VALIDATORS.length);
    for (let k = 0; k < VALIDATORS.length; k++) {
      await expect(heatmaps.nth(k).locator('a[href^="#cell-"] rect').count()).resolves.toBe(N * M);
    }
    await pageObj.locator('figure.heatmap').nth(1).locator('a[href="#cell-3-2"]').click();
    const output = pageObj.locator('#cell-detail [data-testid="cell-output"]');
    await output.waitFor();
    await expect(output.textContent()).resolves.toBe('Answer for input 4, sample 3: open Settings → Security.');
    const rows = await pageObj.locator('#cell-detail table tr').count();
    expect(rows).toBe(1 + VALIDATORS.length);
    // Keyboard: a focused cell opens with Enter.
    await pageObj.locator('figure.heatmap').nth(0).locator('a[href="#cell-0-0"]').focus();
    await pageObj.keyboard.press('Enter');
    await expect(pageObj.locator('#cell-detail h2').textContent()).resolves.toBe('Input 1, sample 1');
    await pageObj.screenshot({ path: join(OUT, 'run-cell-1280x800.png'), fullPage: true });
    // Every request stayed on our server: nothing external at view time.
    expect(requests.every((u) => u.startsWith(server.url))).toBe(true);
    await pageObj.close();
  });

  it('fits every page at 1280×800 and 390×844 without a page-wide horizontal scroll', async () => {
    const pages = [
      ['runs', '/'],
      ['run', `/runs/${run.id}`],
      ['trend', '/trend/e2e-experiment'],
      ['compare', `/compare?a=${earlier.id}&b=${run.id}`],
      ['grounding', '/grounding'],
    ];
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ]) {
      const pageObj = await browser.newPage({ viewport: { width, height } });
      for (const [name, path] of pages) {
        await pageObj.goto(server.url + path);
        const overflow = await pageObj.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name} at ${width}×${height}`).toBeLessThanOrEqual(1);
        await pageObj.screenshot({ path: join(OUT, `${name}-${width}x${height}.png`), fullPage: true });
      }
      await pageObj.close();
    }
  });

  it('IRP in its narrow card: every input label whole, at least 11 px high on screen, inside the chart', async () => {
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ]) {
      const pageObj = await browser.newPage({ viewport: { width, height } });
      await pageObj.goto(`${server.url}/runs/${run.id}`);
      const figure = pageObj.locator('figure', { hasText: 'IRP: per input' });
      const seen = await figure.evaluate((f) => {
        const svg = f.querySelector('svg')!;
        const box = svg.getBoundingClientRect();
        return Array.from(svg.querySelectorAll('text'))
          .filter((t) => /^\d+\. /.test(t.textContent ?? ''))
          .map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent, px: r.height, inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 };
          });
      });
      expect(
        seen.map((s) => s.text),
        `${width}×${height}`,
      ).toEqual(Array.from({ length: N }, (_, i) => `${i + 1}. Question number ${i + 1}: how do I reset my password?`));
      for (const s of seen) {
        expect(s.px, `${s.text} at ${width}×${height}`).toBeGreaterThanOrEqual(11);
        expect(s.inside, `${s.text} at ${width}×${height}`).toBe(true);
      }
      await figure.screenshot({ path: join(OUT, `irp-card-${width}x${height}.png`) });
      await pageObj.close();
    }
  });

  it('stacks the runs list on a phone, so each verdict is on screen rather than behind a scroll', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await pageObj.goto(`${server.url}/`);
    await expect(pageObj.locator('table[aria-label="runs"] tbody tr').count()).resolves.toBe(4);
    const box = await pageObj.locator('table[aria-label="runs"] td[data-label="verdict"]').first().boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await expect(pageObj.locator('table[aria-label="runs"] td[data-label="verdict"]').first().isVisible()).resolves.toBe(true);
    await pageObj.close();
  });

  it('marks significant changes on the trend page and regressions on the compare page', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await pageObj.goto(`${server.url}/trend/e2e-experiment`);
    // no-apology went from 30/30 to its seeded rate: a significant drop, marked in its table.
    await expect(pageObj.locator('tr[data-significant="true"]').count()).resolves.toBeGreaterThanOrEqual(1);
    await pageObj.screenshot({ path: join(OUT, 'trend.png'), fullPage: true });
    await pageObj.goto(`${server.url}/compare?a=${earlier.id}&b=${run.id}`);
    await expect(pageObj.locator('tr[data-regression="true"]').count()).resolves.toBe(1);
    await expect(pageObj.locator('tr[data-regression="true"] td').first().textContent()).resolves.toBe('no-apology');
    await pageObj.screenshot({ path: join(OUT, 'compare.png'), fullPage: true });
    await pageObj.close();
  });

  it('opens the static report from a file, offline, and shows a clicked cell from the embedded samples', async () => {
    const file = join(OUT, 'static-report.html');
    const tensor = await store.samples.tensor(run.id);
    await writeHtmlReport(file, run, summarize(tensor, run.validators), tensor, await store.samples.list(run.id));
    const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } });
    const pageObj = await context.newPage();
    const external: string[] = [];
    pageObj.on('request', (r) => {
      if (!r.url().startsWith('file:')) external.push(r.url());
    });
    await pageObj.goto(`file://${file}`);
    await expect(pageObj.locator('figure.heatmap').count()).resolves.toBe(VALIDATORS.length);
    await pageObj.locator('figure.heatmap').nth(0).locator('a[href="#cell-5-4"]').click();
    await expect(pageObj.locator('#cell-detail [data-testid="cell-output"]').textContent()).resolves.toBe(
      'Answer for input 6, sample 5: open Settings → Security.',
    );
    expect(external).toEqual([]);
    // Without embedded samples (a huge run), a click says so instead of trying to fetch.
    const bare = join(OUT, 'static-report-no-samples.html');
    await writeHtmlReport(bare, run, summarize(tensor, run.validators), tensor);
    await pageObj.goto(`file://${bare}`);
    await pageObj.locator('figure.heatmap').nth(0).locator('a[href="#cell-0-0"]').click();
    await expect(pageObj.locator('#cell-detail').textContent()).resolves.toContain('Outputs are not included in this report');
    expect(external).toEqual([]);
    await context.close();
  });

  it('renders a grounding report with claims by status and evidence beside them', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await pageObj.goto(`${server.url}/grounding`);
    await pageObj.fill('#q', 'What is the capital of France?');
    await pageObj.fill('#a', 'Paris is the capital of France. The moon is made of cheese.');
    await pageObj.click('button[type=submit]');
    await pageObj.locator('[data-status="UNSUPPORTED"]').waitFor();
    await expect(pageObj.locator('[data-status]').count()).resolves.toBe(2);
    await expect(pageObj.locator('#report').textContent()).resolves.toContain('Paris is the capital and largest city of France.');
    // The answer itself, each claim highlighted by its status (and a glyph, not colour alone).
    await expect(pageObj.locator('p.answer mark.claim-mark.UNSUPPORTED').textContent()).resolves.toBe('The moon is made of cheese.');
    await expect(pageObj.locator('p.answer').textContent()).resolves.toBe('Paris is the capital of France.\u2713 The moon is made of cheese.\u2717');
    await pageObj.screenshot({ path: join(OUT, 'grounding.png'), fullPage: true });
    await pageObj.close();
  });
});

describe('dashboard at real run sizes (1400 px screen)', () => {
  /** Horizontal overflow of the page and of each heatmap's chart box, in px. */
  const overflows = () =>
    ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      charts: Array.from(document.querySelectorAll('figure.heatmap > .chart')).map((c) => c.scrollWidth - c.clientWidth),
    }) as { page: number; charts: number[] };

  it('60 inputs × 40 samples × 3: every cell on screen at a readable size, axis titles clear of the ticks, coloured profiles', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await pageObj.goto(`${server.url}/runs/${mid.id}`);
    const heatmaps = pageObj.locator('figure.heatmap');
    await expect(heatmaps.count()).resolves.toBe(3);
    for (let k = 0; k < 3; k++) await expect(heatmaps.nth(k).locator('a[href^="#cell-"]').count()).resolves.toBe(60 * 40);
    const o = await pageObj.evaluate(overflows);
    expect(o.page).toBeLessThanOrEqual(1);
    expect(Math.max(...o.charts)).toBeLessThanOrEqual(1); // samples 32–40 no longer hide behind a scroll
    const geometry = await pageObj.evaluate(() => {
      const svg = document.querySelector('figure.heatmap svg') as SVGSVGElement;
      const box = (el: Element) => el.getBoundingClientRect();
      const last = box(svg.querySelector('a[href="#cell-59-39"] rect')!);
      const card = box(svg.closest('figure')!);
      const title = Array.from(svg.querySelectorAll('text')).find((t) => t.textContent === 'sample →')!;
      const ticks = Array.from(svg.querySelectorAll('g[text-anchor="middle"] text')).map(box);
      const t = box(title);
      const glyph = svg.querySelector('g[pointer-events="none"] text')!;
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return {
        cell: { w: last.width, h: last.height },
        lastInside: last.right <= card.right && last.bottom <= card.bottom,
        titleOverlapsTicks: ticks.some((b) => b.left < t.right && t.left < b.right && b.top < t.bottom && t.top < b.bottom),
        tickPx: parseFloat(getComputedStyle(svg.querySelector('g[text-anchor="middle"] text')!).fontSize) * scale,
        glyphPx: parseFloat(getComputedStyle(glyph).fontSize) * scale,
      };
    });
    expect(geometry.cell.w).toBeGreaterThanOrEqual(14);
    expect(geometry.cell.h).toBeGreaterThanOrEqual(12);
    expect(geometry.lastInside).toBe(true);
    expect(geometry.titleOverlapsTicks).toBe(false);
    expect(geometry.tickPx).toBeGreaterThanOrEqual(10.5);
    expect(geometry.glyphPx).toBeGreaterThanOrEqual(10.5);
    // Profiles: bars coloured by status, with glyphs, and text at a readable size.
    const profiles = await pageObj.evaluate(() => {
      const figs = Array.from(document.querySelectorAll('.grid > figure'));
      return figs.map((f) => {
        const svg = f.querySelector('svg')!;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const bars = Array.from(svg.querySelectorAll('rect[aria-label]')).map((r) => r.getAttribute('fill') ?? r.parentElement?.getAttribute('fill'));
        const glyphs = Array.from(svg.querySelectorAll('text'))
          .map((t) => t.textContent)
          .filter((t) => t === '✓' || t === '✗' || t === '?');
        const text = svg.querySelector('g[aria-label="y-axis tick label"] text, g[aria-label="x-axis tick label"] text')!;
        return {
          caption: f.querySelector('figcaption')!.textContent,
          fills: [...new Set(bars)],
          glyphs: glyphs.length,
          textPx: parseFloat(getComputedStyle(text).fontSize) * scale,
        };
      });
    });
    for (const p of profiles) expect(p.textPx, p.caption ?? '').toBeGreaterThanOrEqual(10.5);
    const irp = profiles.find((p) => p.caption === 'IRP: per input')!;
    expect(irp.fills).toEqual(expect.arrayContaining(['#1a7f37', '#cf222e']));
    expect(irp.glyphs).toBe(60);
    await pageObj.screenshot({ path: join(OUT, 'run-60x40x3-1400.png'), fullPage: true });
    await pageObj.close();
  });

  it('500 inputs × 100 samples × 3: full-width binned heatmaps; a bin opens its block at full resolution, a cell there its detail', async () => {
    const pageObj = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await pageObj.goto(`${server.url}/runs/${large.id}`, { timeout: 60_000 });
    const heatmaps = pageObj.locator('figure.heatmap');
    await expect(heatmaps.count()).resolves.toBe(3);
    for (let k = 0; k < 3; k++) await expect(heatmaps.nth(k).locator('a[href^="#zoom-"]').count()).resolves.toBe(100 * 50);
    const o = await pageObj.evaluate(overflows);
    expect(o.page).toBeLessThanOrEqual(1);
    expect(Math.max(...o.charts)).toBeLessThanOrEqual(1);
    const width = await pageObj.evaluate(() => document.querySelector('figure.heatmap svg')!.getBoundingClientRect().width);
    expect(width).toBeGreaterThanOrEqual(800); // full width of its column, not a 390 px card
    // Zoom: the bin of inputs 201–205, samples 5–6 of the second validator.
    await heatmaps.nth(1).locator('a[href="#zoom-1-200-4"]').click();
    const zoom = heatmaps.nth(1).locator('.zoom');
    await expect(zoom.locator('h3').textContent()).resolves.toMatch(/^under-50-words: inputs 181–210 × samples 1–60 at full resolution/);
    await expect(zoom.locator('a[href^="#cell-"]').count()).resolves.toBe(30 * 60);
    await expect(zoom.locator('a[href="#cell-205-4"] title').textContent()).resolves.toMatch(/^under-50-words: input 206, sample 5: (pass|fail|error)$/);
    await zoom.locator('a[href="#cell-205-4"]').click();
    await expect(pageObj.locator('#cell-detail [data-testid="cell-output"]').textContent()).resolves.toBe('output 205-4');
    await expect(pageObj.locator('#cell-detail h2').textContent()).resolves.toBe('Input 206, sample 5');
    await pageObj.screenshot({ path: join(OUT, 'run-500x100x3-1400.png'), fullPage: true });
    await zoom.locator('button[data-close-zoom]').click();
    await expect(zoom.isHidden()).resolves.toBe(true);
    await pageObj.close();
  });
});
