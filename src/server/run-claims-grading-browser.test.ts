import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureCli } from '../cli/testing/capture.js';
import type { JsonReport } from '../report/json.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite.js';
import type { AuditRecord } from '../store/types.js';
import { startServer, type ServerHandle } from './start.js';
import { launchChromium, SCREENSHOTS as OUT } from './testing/chromium.js';

/**
 * The `grounded` rule of a run graded per claim on the dashboard (issue 27, item 5): examples/grounded run offline,
 * its claims imported as a batch (`assay audits import --run`), graded on the same audit grading page as an
 * `analyze --answers` batch, and the detector's alignment and corrected unsupported rate read back by `assay show`.
 */
let dir: string;
let db: string;
let runId: string;
let store: SqliteStore;
let server: ServerHandle;
let browser: Browser;
let audit: AuditRecord;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'assay-run-claims-e2e-'));
  cpSync('examples/grounded/docs', join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'grounded.yaml'), readFileSync('examples/grounded/grounded.yaml', 'utf8').replace('samples: 30', 'samples: 3'));
  expect((await captureCli(['kb', 'ingest', join(dir, 'docs'), '--kb', join(dir, 'kb')])).code).toBe(0);
  db = join(dir, 'assay.db');
  await captureCli(['run', join(dir, 'grounded.yaml'), '--store', db, '--json', join(dir, 'r.json'), '--no-progress']);
  runId = (JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as JsonReport).runId;
  const imp = await captureCli(['audits', 'import', '--run', runId, '--store', db]);
  expect(imp.code, imp.err).toBe(0);
  store = openSqliteStore(db);
  audit = (await store.audits.get(imp.out.trim()))!;
  server = await startServer({ port: 0, store, grading: true, log: false });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What a careful person says of a claim of this example: the KB's figures and facts, nothing else. */
const personSays = (text: string) => !/60 days|five minutes|IP68|under water/.test(text);

describe("a run's grounded rule on the audit grading page in Chromium", () => {
  it('grades its claims by keyboard; assay show gives the run’s grounded rule the alignment and corrected rate of those grades', async () => {
    expect(audit.run).toEqual({ id: runId, rule: 'grounded' });
    const n = audit.claims.length;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/audits/${audit.id}/grade?seed=2`);
    await page.locator('#a-progress', { hasText: `Claim 1 of ${n} to grade` }).waitFor();
    await page.locator('#a-grader').fill('Ada');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const graded: { detector: boolean; person: boolean }[] = [];
    for (let k = 0; k < 4; k++) {
      // the page names the output (input,sample counted from 1) and the claim's position in it
      const [, answer, claim] = /answer (\d+,\d+), claim (\d+)$/.exec((await page.locator('#a-progress').textContent())!)!;
      const c = audit.claims.find((x) => x.answer === answer && x.claim === Number(claim))!;
      await expect(page.locator('#a-claim').textContent()).resolves.toBe(c.text);
      await expect(page.locator('#a-evidence').textContent()).resolves.toBe(c.evidence ?? '(no evidence retrieved)');
      const person = personSays(c.text);
      await page.keyboard.press(person ? 'p' : 'f');
      await page.locator('#a-progress', { hasText: `Claim ${k + 2} of ${n} to grade` }).waitFor();
      graded.push({ detector: c.status === 'STRONG' || c.status === 'WEAK', person });
    }
    await page.screenshot({ path: join(OUT, 'run-claims-grading.png'), fullPage: true });
    await page.close();

    const stored = await store.audits.listGrades(audit.id);
    expect(stored).toHaveLength(4);
    const report = JSON.parse((await captureCli(['show', runId, '--store', db, '--json', '-'])).out) as JsonReport;
    const [g] = report.validators.find((v) => v.name === 'grounded')!.claimGrading!;
    const count = (d: boolean, p: boolean) => graded.filter((x) => x.detector === d && x.person === p).length;
    expect(g).toMatchObject({ id: audit.id, run: { id: runId, rule: 'grounded' }, claims: n, graded: 4 });
    expect(g.alignment).toMatchObject({ tp: count(true, true), fp: count(true, false), fn: count(false, true), tn: count(false, false) });
    expect(g.corrected_unsupported_rate).not.toBeNull();
    const text = await captureCli(['show', runId, '--store', db]);
    expect(text.out).toContain(`grounded: claims graded by people (audit batch ${audit.id})\n4 of ${n} audited claims graded by people`);
  }, 120_000);
});
