import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { writeGradedFixture } from '../grades/testing/fixture.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { RunRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS as OUT } from './testing/chromium.js';

/**
 * The grading page end to end in a real browser (Debian's Chromium driven by playwright-core), against a server
 * started with grading on over a SQLite store. Screenshots go to test-output/dashboard/ (gitignored).
 */
// polite's judge passes outputs whose i + j is even and fails the rest; 10 inputs × 5 samples.
const cell = (i: number, j: number) => ((i + j) % 2 ? Outcome.FAIL : Outcome.PASS);

let dir: string;
let store: SqliteStore;
let server: ServerHandle;
let browser: Browser;
let run: RunRecord;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'assay-grading-e2e-'));
  store = openSqliteStore(join(dir, 'assay.db'));
  run = await writeGradedFixture(store, { N: 10, M: 5, cell, config: { verdict: 'confident' } });
  server = await startServer({ port: 0, store, grading: true, log: false });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The output (i, j) the page shows. */
async function shown(page: Page): Promise<[number, number]> {
  const item = page.locator('#g-item');
  return [Number(await item.getAttribute('data-i')), Number(await item.getAttribute('data-j'))];
}

const verdictWord = (i: number, j: number) => (cell(i, j) === Outcome.PASS ? 'PASS' : 'FAIL');

describe('grading page in Chromium', () => {
  it('grades by keyboard: the verdict hidden until graded, then shown with agreement; undo and arrows; grades stored with their draw', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${server.url}/runs/${run.id}/grade?count=5&seed=3&design=uniform`);
    await page.locator('#g-progress', { hasText: 'Output 1 of 5' }).waitFor();
    await expect(page.locator('#g-asks').textContent()).resolves.toBe('LLM judge mock: Is the answer polite?');
    await expect(page.locator('#g-queue').textContent()).resolves.toMatch(/^Queue: 5 of the 50 outputs the rule decided that nobody graded yet, drawn uniform/);
    const [i0, j0] = await shown(page);
    await expect(page.locator('[data-testid="grading-output"]').textContent()).resolves.toBe(`Answer ${i0}.${j0}: open Settings, then Security.`);
    await expect(page.locator('#g-input').textContent()).resolves.toBe(`Question ${i0}: how do I reset my password?`);
    // Hidden until graded: no verdict, no reasons anywhere on the page.
    await expect(page.locator('#g-verdict [data-state]').getAttribute('data-state')).resolves.toBe('hidden');
    expect(await page.locator('body').textContent()).not.toMatch(/judge says/);

    // Grading needs a name: p without one asks for it and stores nothing.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('p');
    await page.locator('#g-status', { hasText: 'Enter your name as grader first.' }).waitFor();
    await page.locator('#g-grader').fill('Ada');
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    await page.keyboard.press('p');
    await page.locator('#g-progress', { hasText: 'Output 2 of 5' }).waitFor();
    const last = page.locator('#g-last [data-testid="agreement"]');
    const agree0 = cell(i0, j0) === Outcome.PASS;
    await expect(last.textContent()).resolves.toBe(`You: PASS · judge: ${verdictWord(i0, j0)} · ${agree0 ? '✓ agree' : '✗ disagree'}`);
    await expect(page.locator('#g-last li').textContent()).resolves.toBe(`judge says ${agree0 ? 'polite' : 'rude'} (${i0}.${j0})`);
    await expect(page.locator('#g-verdict [data-state]').getAttribute('data-state')).resolves.toBe('hidden'); // the next output's stays hidden
    const [i1, j1] = await shown(page);

    await page.keyboard.press('f');
    await page.locator('#g-progress', { hasText: 'Output 3 of 5' }).waitFor();
    await page.keyboard.press('u');
    await page.locator('#g-status', { hasText: `Undone: output (i=${i1}, j=${j1}).` }).waitFor();
    expect(await shown(page)).toEqual([i1, j1]);
    await expect(page.locator('#g-verdict [data-state]').getAttribute('data-state')).resolves.toBe('hidden');
    await page.keyboard.press('s');
    await page.locator('#g-progress', { hasText: 'Output 3 of 5' }).waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('k');
    await page.locator('#g-progress', { hasText: 'Output 1 of 5' }).waitFor();
    // Back on a graded output: its verdict is shown beside the grade.
    await expect(page.locator('#g-verdict [data-testid="agreement"]').textContent()).resolves.toBe(
      `You: PASS · judge: ${verdictWord(i0, j0)} · ${agree0 ? '✓ agree' : '✗ disagree'}`,
    );
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('j');
    await page.keyboard.press('f');
    await page.locator('#g-progress', { hasText: 'Output 4 of 5' }).waitFor();
    await page.screenshot({ path: join(OUT, 'grading-1280x900.png'), fullPage: true });

    const grades = await store.grades.list(run.id);
    expect(grades.map((g) => [g.grade, g.grader, g.rule, g.probability])).toEqual([
      ['pass', 'Ada', 'polite', 0.1],
      ['fail', 'Ada', 'polite', 0.1],
    ]);
    expect(grades.every((g) => /uniform/.test(g.design ?? ''))).toBe(true);
    expect(requests.every((u) => u.startsWith(server.url))).toBe(true);

    // A reload draws a new batch from the outputs nobody graded yet, and remembers the grader.
    await page.reload();
    await page.locator('#g-queue', { hasText: 'Queue: 5 of the 48 outputs' }).waitFor();
    await page.locator('#g-progress', { hasText: 'Output 1 of 5' }).waitFor();
    const next = await shown(page);
    expect(grades.some((g) => g.i === next[0] && g.j === next[1])).toBe(false);
    await expect(page.locator('#g-grader').inputValue()).resolves.toBe('Ada');

    // The run page now shows polite against people.
    await page.goto(`${server.url}/runs/${run.id}`);
    await expect(page.locator('section.grading[data-rule="polite"] h3').textContent()).resolves.toMatch(/^polite against people: 2 grade\(s\)/);
    await page.close();
  });

  it('keys pressed within one round trip are applied in order: what the page says is what is stored (issue 30)', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Every grade's answer held back 400 ms: the keys below all arrive while the first is in flight.
    let posted = 0;
    await page.route('**/api/runs/*/grades', async (route) => {
      posted++;
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.goto(`${server.url}/runs/${run.id}/grade?count=5&seed=11&design=uniform&grader=Grace`);
    await page.locator('#g-progress', { hasText: 'Output 1 of 5' }).waitFor();
    const first = await shown(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('p');
    await page.keyboard.press('f');
    await page.keyboard.press('s');
    await page.keyboard.press('p');
    await page.locator('#g-progress', { hasText: 'Output 5 of 5' }).waitFor({ timeout: 30_000 });
    await page.locator('#g-status', { hasText: /^Saved: PASS for output/ }).waitFor({ timeout: 30_000 });
    const said = (await page.locator('#g-status').textContent())!;
    const mine = (await store.grades.list(run.id, { grader: 'Grace' })).map((g) => [g.i, g.j, g.grade]);
    // Three grades of three different outputs (the skip moved past the third), in the order pressed.
    expect(posted).toBe(3);
    expect(mine).toHaveLength(3);
    expect(new Set(mine.map(([i, j]) => `${i},${j}`)).size).toBe(3);
    expect(mine.map((g) => g[2])).toEqual(['pass', 'fail', 'pass']);
    expect(mine[0].slice(0, 2)).toEqual(first);
    // The page's last word is the store's latest grade.
    const [li, lj] = mine[2];
    expect(said).toBe(`Saved: PASS for output (i=${li}, j=${lj}).`);
    await page.close();
  });

  it('shows bidi and control characters of untrusted text as marks: "txt.exe" after U+202E does not read "exe.txt" (issue 30)', async () => {
    const bidi = await store.runs.create({
      name: 'bidi \u202Eevil',
      config: {},
      inputs: ['open the file named \u2066report\u2069'],
      samples: 1,
      validators: [{ name: 'safe', message: 'm', minSuccess: 0.8, weight: 1, kind: 'verifier', source: 'Is it \u202Esafe?' }],
      systemId: 'fixture',
    });
    await store.samples.record(bidi.id, {
      i: 0,
      j: 0,
      output: 'download report\u202Etxt.exe now\u001b[2J\u{E0041}',
      outcomes: [Outcome.PASS],
      latencyMs: 1,
      attempts: 1,
    });
    await store.runs.setStatus(bidi.id, 'complete');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/runs/${bidi.id}/grade?i=0&j=0`);
    await page.locator('#g-progress', { hasText: 'Output 1 of 1' }).waitFor();
    await expect(page.locator('#g-output').textContent()).resolves.toBe('download report⟨U+202E⟩txt.exe now⟨U+001B⟩[2J⟨U+E0041⟩');
    await expect(page.locator('#g-input').textContent()).resolves.toBe('open the file named ⟨U+2066⟩report⟨U+2069⟩');
    await expect(page.locator('#g-asks').textContent()).resolves.toBe('Is it ⟨U+202E⟩safe?');
    await expect(page.locator('#g-run').textContent()).resolves.toMatch(/^bidi ⟨U\+202E⟩evil · /);
    expect(await page.locator('body').textContent()).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/); // eslint-disable-line no-control-regex
    // The run page, drawn by the server, marks them too.
    await page.goto(`${server.url}/runs/${bidi.id}`);
    expect(await page.locator('body').textContent()).toContain('bidi ⟨U+202E⟩evil');
    expect(await page.locator('body').textContent()).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    await page.close();
  });

  it('fits a phone without a page-wide horizontal scroll', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}/runs/${run.id}/grade?count=5&seed=4`);
    await page.locator('#g-progress', { hasText: 'of 5' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(OUT, 'grading-390x844.png'), fullPage: true });
    await page.close();
  });
});
