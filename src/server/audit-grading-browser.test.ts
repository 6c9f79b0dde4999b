import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { AuditRecord, NewAudit } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS as OUT } from './testing/chromium.js';

/**
 * Grading a stored batch of grounding audits on the dashboard, end to end in Chromium (issue 27, item 5): the
 * claim and its evidence shown, keys p / f store the grade, the detector's status revealed only after grading,
 * and the detector's alignment and the corrected unsupported rate shown from the stored grades.
 */
const BATCH: NewAudit = {
  name: 'router answers',
  claims: [
    {
      answer: 'returns',
      claim: 1,
      text: 'Opened routers can be returned within 14 days.',
      status: 'STRONG',
      evidence: 'Opened routers can be returned within 14 days of purchase.',
    },
    {
      answer: 'returns',
      claim: 2,
      text: 'Unopened routers can be returned within 60 days.',
      status: 'CONTRADICTED',
      evidence: 'Unopened routers can be returned within 30 days.',
    },
    {
      answer: 'reboot',
      claim: 1,
      text: 'The router reboots in two minutes.',
      status: 'WEAK',
      evidence: 'After a firmware update the router reboots in two minutes.',
    },
    { answer: 'reboot', claim: 2, text: 'The router is waterproof.', status: 'UNSUPPORTED' },
  ],
};

let dir: string;
let store: SqliteStore;
let server: ServerHandle;
let browser: Browser;
let audit: AuditRecord;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'assay-audit-grading-e2e-'));
  store = openSqliteStore(join(dir, 'assay.db'));
  audit = (await store.audits.create(BATCH)).audit;
  server = await startServer({ port: 0, store, grading: true, log: false });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const byText = new Map(BATCH.claims.map((c) => [c.text, c]));

describe('audit grading page in Chromium', () => {
  it('grades every claim by keyboard; grades stored; status shown after grading; alignment and corrected rate shown', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/audits/${audit.id}/grade?seed=5`);
    await page.locator('#a-progress', { hasText: 'Claim 1 of 4 to grade' }).waitFor();
    await expect(page.locator('#a-summary').textContent()).resolves.toMatch(/0 of 4 audited claims graded.*corrected by the grades – \(no grades yet\)/);
    // the detector's status is not on the page before grading
    expect(await page.locator('body').textContent()).not.toMatch(/STRONG|WEAK|UNSUPPORTED|CONTRADICTED/);
    await page.locator('#a-grader').fill('Ada');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    // the person says: supported exactly when the evidence has the same text minus the numbers differing — here:
    // supported for the claims the detector called STRONG/WEAK, and also for the waterproof one (one disagreement)
    const said: { text: string; supported: boolean }[] = [];
    for (let k = 0; k < 4; k++) {
      const text = (await page.locator('#a-claim').textContent())!;
      const c = byText.get(text)!;
      expect(c).toBeDefined();
      await expect(page.locator('#a-evidence').textContent()).resolves.toBe(c.evidence ?? '(no evidence retrieved)');
      const sup = c.status === 'STRONG' || c.status === 'WEAK' || c.status === 'UNSUPPORTED';
      said.push({ text, supported: sup });
      await page.keyboard.press(sup ? 'p' : 'f');
      await page.locator('#a-last [data-testid="agreement"]', { hasText: `detector: ${c.status}` }).waitFor();
      await expect(page.locator('#a-last [data-testid="agreement"]').textContent()).resolves.toBe(
        `You: ${sup ? 'supported' : 'not supported'} · detector: ${c.status} · ${c.status === 'UNSUPPORTED' ? '✗ disagree' : '✓ agree'}`,
      );
    }
    await page.locator('#a-progress', { hasText: 'Nothing left to grade.' }).waitFor();
    const stored = await store.audits.listGrades(audit.id);
    expect(stored.map((g) => [BATCH.claims.find((c) => c.answer === g.answer && c.claim === g.claim)!.text, g.supported, g.grader])).toEqual(
      said.map((s) => [s.text, s.supported, 'Ada']),
    );
    // 4 graded: tp 2 (STRONG, WEAK), fn 1 (UNSUPPORTED, person: supported), tn 1; people's unsupported share 1/4
    const summary = (await page.locator('#a-summary').textContent())!;
    expect(summary).toContain('4 of 4 audited claims graded by people (positive: supported) · tp 2 · fp 0 · fn 1 · tn 1');
    expect(summary).toMatch(/TPR 66\.7% \[[\d.]+%, [\d.]+%\] · TNR 100\.0% \[[\d.]+%, 100\.0%\] · κ 0\.50/);
    expect(summary).toMatch(/unsupported claims: detector 50\.0%; corrected by the grades 25\.0% \[/);
    await page.screenshot({ path: join(OUT, 'audit-grading.png'), fullPage: true });
    await page.close();
  }, 120_000);

  it('answers 404 for an unknown batch and 400 for a grade of a claim it lacks, storing nothing', async () => {
    expect((await fetch(`${server.url}/audits/a-nope/grade`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/audits/a-nope/grading`)).status).toBe(404);
    const before = (await store.audits.listGrades(audit.id)).length;
    const r = await fetch(`${server.url}/api/audits/${audit.id}/grades`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'returns', claim: 9, supported: true, grader: 'Ada' }),
    });
    expect(r.status).toBe(400);
    expect((await r.json()).message).toMatch(/no claim 9/);
    const form = await fetch(`${server.url}/api/audits/${audit.id}/grades`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(form.status).toBe(415);
    expect((await store.audits.listGrades(audit.id)).length).toBe(before);
  });
});
