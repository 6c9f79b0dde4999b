import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import type { Trajectory } from '../core/trajectory.js';
import { loadStoredRun } from '../report/load.js';
import { writeReports } from '../report/write.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { RunRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS as OUT } from './testing/chromium.js';
import { writeFixtureRun } from './testing/fixtures.js';

/**
 * An agent's run in a real browser (Debian's Chromium driven by playwright-core): a clicked cell shows the steps
 * as a person reads a trace — each call's tool, arguments, result or error — on the dashboard and in the static
 * HTML report, tool results shown as text (never markup), and the pass^k card.
 */
const N = 4;
const M = 6;

/** Input 2 refunds on every try, and its refund tool fails on odd tries; the others only look the order up. */
const trajectory = (i: number, j: number): Trajectory => ({
  steps: [
    {
      text: 'Let me look that up.',
      toolCalls: [
        {
          id: `c${i}${j}`,
          name: 'lookup_order',
          arguments: { orderId: `A${i}` },
          result: { status: 'shipped', note: '<img src=x onerror="window.__pwned=1">' },
          durationMs: 12,
        },
      ],
      usage: { promptTokens: 40, completionTokens: 9 },
      finishReason: 'tool-calls',
    },
    ...(i === 2
      ? [{ toolCalls: [{ name: 'refund', arguments: { orderId: 'A2', amount: 20 }, ...(j % 2 ? { error: 'refunds are closed' } : { result: 'ok' }) }] }]
      : []),
    { text: `Order A${i} has shipped.`, toolCalls: [], finishReason: 'stop' },
  ],
  ended: 'final',
});

let dir: string;
let store: SqliteStore;
let server: ServerHandle;
let browser: Browser;
let run: RunRecord;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'assay-agent-e2e-'));
  const path = join(dir, 'assay.db');
  const writer = openSqliteStore(path);
  run = await writeFixtureRun(writer, {
    name: 'support agent',
    inputs: Array.from({ length: N }, (_, i) => `Where is my order A${i}?`),
    samples: M,
    validators: [{ name: 'never refunds unasked', minSuccess: 0.8 }],
    passK: { k: 3, minSuccess: 0.5 },
    cell: (i) => (i === 2 ? Outcome.FAIL : Outcome.PASS),
    output: (i) => `Order A${i} has shipped.`,
    trajectory,
  });
  await writer.close();
  store = openSqliteStore(path, { readonly: true });
  server = await startServer({ port: 0, store, log: false });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens cell (i, j) of the first heatmap and waits for its steps. */
async function openCell(page: Page, i: number, j: number) {
  await page.locator('figure.heatmap').nth(0).locator(`a[href="#cell-${i}-${j}"]`).click();
  const trace = page.locator('#cell-detail [data-testid="trace"]');
  await trace.waitFor();
  return trace;
}

describe("an agent's run in Chromium", () => {
  it('a clicked cell shows its steps: each call with its arguments and result, a failed call with its error; results are text', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/runs/${run.id}`);
    const trace = await openCell(page, 2, 1);
    await expect(trace.locator('h3').textContent()).resolves.toBe('Steps (3)');
    await expect(trace.locator('ol.trace > li').count()).resolves.toBe(3);
    const calls = trace.locator('.call');
    await expect(calls.evaluateAll((xs) => xs.map((x) => x.getAttribute('data-tool')))).resolves.toEqual(['lookup_order', 'refund']);
    await expect(calls.nth(0).locator('pre').first().textContent()).resolves.toBe(JSON.stringify({ orderId: 'A2' }, null, 2));
    await expect(calls.nth(0).locator('[data-testid="tool-result"]').textContent()).resolves.toContain('"status": "shipped"');
    await expect(calls.nth(1).locator('[data-testid="tool-error"]').textContent()).resolves.toBe('error: refunds are closed');
    await expect(calls.nth(1).getAttribute('class')).resolves.toBe('call failed');
    await expect(trace.locator('ol.trace > li').nth(0).locator('p.muted').first().textContent()).resolves.toBe('Step 1 · tool-calls · 40 in / 9 out');
    // A tool result holding markup is shown as text: nothing in it runs.
    await expect(calls.nth(0).locator('[data-testid="tool-result"]').textContent()).resolves.toContain('<img src=x onerror=');
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    await expect(page.locator('#cell-detail [data-testid="cell-output"]').textContent()).resolves.toBe('Order A2 has shipped.');
    // The run's steps summed, and its pass^k card.
    await expect(page.locator('[data-testid="agent"]').textContent()).resolves.toMatch(
      /^agent: 24 runs with steps · steps mean 2\.3, max 3 · 30 tool calls \(lookup_order 24, refund 6 \(3 errors\)\) · 3 tool errors$/,
    );
    await expect(page.locator('section.pass-k [data-testid="pass-k"]').textContent()).resolves.toMatch(/^pass\^3 75\.0% \[\S+, \S+\] · pass@3 75\.0% \[/);
    await page.screenshot({ path: join(OUT, 'agent-run-1280x900.png'), fullPage: true });
    await page.close();
  });

  it('the static HTML report embeds the steps, shortened, and shows them the same way', async () => {
    const loaded = await loadStoredRun(store, run.id, { withStats: true });
    const file = join(dir, 'report.html');
    await writeReports({ html: file }, { ...loaded, store });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    const trace = await openCell(page, 0, 0);
    await expect(trace.locator('.call').count()).resolves.toBe(1);
    await expect(trace.locator('[data-testid="tool-result"]').textContent()).resolves.toContain('"status": "shipped"');
    await page.close();
  });
});
