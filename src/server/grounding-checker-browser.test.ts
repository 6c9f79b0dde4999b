import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmClaimCheckerFromConfig } from '../ground/checkers/llm.js';
import { createLexicalEmbedder } from '../ground/embedders/lexical.js';
import { analyze } from '../ground/engine.js';
import { knowledgeBaseFromTexts } from '../ground/kb/kb.js';
import type { GroundingEngine } from '../ground/types.js';
import { startMock } from '../mock/index.js';
import { mockResponder } from '../mock/rules.js';
import type { MockServer } from '../mock/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS } from './testing/chromium.js';

/**
 * The /grounding page in Chromium with an LLM claim checker (a judge on the mock server): a claim the judge
 * reads as contradicted — similar words, opposite meaning, no figure to compare — is CONTRADICTED in red,
 * with the judge's reason as the status's reason, and the checker and its cost are named. With
 * ASSAY_DOCS_SCREENSHOTS=1 the report's picture replaces docs/images/grounding-checker.png.
 */

let server: ServerHandle;
let browser: Browser;
let judge: MockServer;

beforeAll(async () => {
  judge = await startMock('openai', {
    chat: mockResponder({
      rules: [
        { regex: 'output-[0-9a-f]+>\\nThe X200 router supports 5G', judge: 'fail', reasons: ['CONTRADICTED: the evidence says the X200 does not support 5G'] },
        { regex: 'output-[0-9a-f]+>\\n', judge: 'pass' },
      ],
    }),
  });
  const kb = await knowledgeBaseFromTexts(
    [{ source: 'x200.md', text: 'The X200 router does not support 5G. Opened routers can be returned within 14 days of purchase with the receipt.\n' }],
    createLexicalEmbedder(),
  );
  const checker = llmClaimCheckerFromConfig({ openai: { model: 'gpt-4o-mini', baseURL: judge.baseURL } }, { path: 'judge' });
  const engine: GroundingEngine = { analyze: (request, signal) => analyze(kb, request, { checker }, signal) };
  server = await startServer({ port: 0, engine, log: false });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await judge?.close();
});

const rgb = (css: string) => (css.match(/\d+/g) ?? []).slice(0, 3).map(Number);
const isRed = ([r, g, b]: number[]) => r >= 120 && r > 1.5 * g && r > 1.5 * b;

describe('the grounding page with a claim checker', () => {
  it("shows the judge's contradiction as the claim's one status, in red, with its reason and the checker's cost", async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(`${server.url}/grounding`);
    await page.fill('#q', 'Does the X200 support 5G?');
    await page.fill('#a', 'The X200 router supports 5G. Opened routers can be returned within 14 days of purchase with the receipt.');
    await page.click('button[type=submit]');
    await page.locator('[data-status="CONTRADICTED"]').first().waitFor();
    const cards = page.locator('.claim[data-status]');
    await expect(cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).resolves.toEqual(['CONTRADICTED', 'STRONG']);
    const contradicted = page.locator('[data-status="CONTRADICTED"]');
    await expect(contradicted.textContent()).resolves.toContain(
      'Claim checker: contradicted \u2014 CONTRADICTED: the evidence says the X200 does not support 5G',
    );
    const reason = contradicted.locator('div.worse').last();
    expect(isRed(rgb(await reason.evaluate((e) => getComputedStyle(e).color)))).toBe(true);
    await expect(page.locator('[data-status="STRONG"]').textContent()).resolves.toContain('Claim checker: entailed');
    await expect(page.locator('#report').textContent()).resolves.toMatch(/claims checked by llm:openai:gpt-4o-mini@\S+ \(\$0\.\d{6}\)/);
    await page.screenshot({ path: join(SCREENSHOTS, 'grounding-checker.png'), fullPage: true });
    if (process.env.ASSAY_DOCS_SCREENSHOTS === '1')
      await page.locator('#report').screenshot({ path: join(process.cwd(), 'docs', 'images', 'grounding-checker.png') });
    await page.close();
  });
});
