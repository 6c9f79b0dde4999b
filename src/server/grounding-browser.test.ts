import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../ground/embedders/lexical.js';
import { analyze } from '../ground/engine.js';
import { knowledgeBaseFromTexts } from '../ground/kb/kb.js';
import type { GroundingEngine, GroundingReport } from '../ground/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS } from './testing/chromium.js';

/**
 * The /grounding page in Debian's Chromium, against the real engine on a real (lexical) knowledge base:
 * a claim whose number the knowledge base states differently is shown CONTRADICTED, in red, with the
 * conflicting detail, and nothing else says it is supported. The screenshot goes to test-output/;
 * with ASSAY_DOCS_SCREENSHOTS=1 it also replaces the one in docs/images/ (the docs' picture of this page).
 */

export const RETURNS_KB =
  'Returns policy\n\nOpened routers can be returned within 14 days of purchase with the receipt. Unopened routers can be returned within 30 days.\n\n' +
  'After a firmware update the router reboots in two minutes. The X200 router supports 5G and Wi-Fi 6.\n';
export const RETURNS_ANSWER =
  'Opened routers can be returned within 60 days of purchase with the receipt. After a firmware update the router reboots in about five minutes. The X200 router supports 5G.';

let server: ServerHandle;
let browser: Browser;

beforeAll(async () => {
  const kb = await knowledgeBaseFromTexts([{ source: 'returns.md', text: RETURNS_KB }], createLexicalEmbedder());
  const engine: GroundingEngine = { analyze: (request, signal) => analyze(kb, request, {}, signal) };
  server = await startServer({ port: 0, engine, log: false });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** "rgb(130, 7, 30)" → [130, 7, 30] */
const rgb = (css: string) => (css.match(/\d+/g) ?? []).slice(0, 3).map(Number);
/** A red: the red channel well above green and blue. */
const isRed = ([r, g, b]: number[]) => r >= 120 && r > 1.5 * g && r > 1.5 * b;
/** A pale red background: red at full, green and blue clearly below it. */
const isRedTint = ([r, g, b]: number[]) => r >= 240 && r - g >= 25 && r - b >= 25;

describe('POST /analyze', () => {
  it('answers each claim with its one status and, when contradicted, the conflicting details', async () => {
    const res = await fetch(`${server.url}/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'returns', answer: RETURNS_ANSWER }),
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as GroundingReport;
    expect(r.claims_analysis.map((c) => c.status)).toEqual(['CONTRADICTED', 'CONTRADICTED', 'STRONG']);
    expect(r.claims_analysis[0].contradicted_details).toEqual([{ claim: '60 days', evidence: '14 days' }]);
    expect(r.claims_analysis[2].unverified_details).toEqual([]);
    expect(r.unsupported_claims).toHaveLength(2);
    expect(r.hallucination_risk).not.toBe('LOW');
  });
});

describe('the grounding page in Chromium', () => {
  it('shows a contradicted claim CONTRADICTED in red with the conflicting detail, and no green for it anywhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(`${server.url}/grounding`);
    await page.fill('#q', 'Can I return my opened router?');
    await page.fill('#a', RETURNS_ANSWER);
    await page.click('button[type=submit]');
    await page.locator('[data-status="CONTRADICTED"]').first().waitFor();

    const cards = page.locator('.claim[data-status]');
    await expect(cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).resolves.toEqual(['CONTRADICTED', 'CONTRADICTED', 'STRONG']);
    const first = page.locator('[data-status="CONTRADICTED"]').first();
    await expect(first.textContent()).resolves.toContain('Contradicted: 60 days; evidence says 14 days');
    await expect(page.locator('[data-status="CONTRADICTED"]').nth(1).textContent()).resolves.toContain('five minutes; evidence says two minutes');
    await expect(first.textContent()).resolves.toContain('\u2260 CONTRADICTED');

    // red everywhere the claim appears: its card's border and background, its line of reason, its mark in the answer
    const style = (sel: string, prop: string) =>
      page
        .locator(sel)
        .first()
        .evaluate((e, p) => getComputedStyle(e).getPropertyValue(p), prop);
    expect(isRed(rgb(await style('.claim.CONTRADICTED', 'border-left-color')))).toBe(true);
    expect(isRedTint(rgb(await style('.claim.CONTRADICTED', 'background-color')))).toBe(true);
    expect(isRed(rgb(await style('.claim.CONTRADICTED .contradiction', 'color')))).toBe(true);
    expect(isRedTint(rgb(await style('p.answer mark.claim-mark.CONTRADICTED', 'background-color')))).toBe(true);
    // the checks can tell green from red
    expect(isRed(rgb(await style('.claim.STRONG', 'border-left-color')))).toBe(false);
    expect(isRedTint(rgb(await style('.claim.STRONG', 'background-color')))).toBe(false);
    await expect(page.locator('p.answer mark.claim-mark.CONTRADICTED').first().textContent()).resolves.toBe(
      'Opened routers can be returned within 60 days of purchase with the receipt.',
    );
    await expect(page.locator('p.answer').textContent()).resolves.toContain('receipt.\u2260');

    // one answer per claim: no "supported" glyph on a contradicted claim, no name split out of "X200" or "5G"
    await expect(page.locator('#report').textContent()).resolves.not.toMatch(/Not found in the evidence/);
    await expect(page.locator('#report strong').first().textContent()).resolves.toMatch(/Hallucination risk: (MEDIUM|HIGH)/);
    // The confidence written as the CLI and the reports write it, a score to two decimals (issue 26, item 8).
    await expect(page.locator('#report').textContent()).resolves.toMatch(/confidence 0\.\d\d · evidence coverage/);

    await page.screenshot({ path: join(SCREENSHOTS, 'grounding-contradicted.png'), fullPage: true });
    if (process.env.ASSAY_DOCS_SCREENSHOTS === '1') {
      mkdirSync(join(process.cwd(), 'docs', 'images'), { recursive: true });
      await page.locator('#report').screenshot({ path: join(process.cwd(), 'docs', 'images', 'grounding-contradicted.png') });
    }
    await page.close();
  });
});
