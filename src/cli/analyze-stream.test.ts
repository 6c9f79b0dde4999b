import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureCli } from './testing/capture.js';
import { cliCommand } from './testing/process.js';

// assay analyze --answers streams its reports through temporary files (issue 30): they never outlive the command.
const dir = mkdtempSync(join(tmpdir(), 'assay-analyze-stream-'));
const kb = join(dir, 'kb');
const answers = join(dir, 'answers.jsonl');
const DOCS = fileURLToPath(new URL('../../examples/grounded/docs', import.meta.url));

beforeAll(async () => {
  expect((await captureCli(['kb', 'ingest', DOCS, '--kb', kb])).code).toBe(0);
  const rows = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ id: `a${i}`, query: 'q', answer: 'The X200 router supports 5G.' }));
  writeFileSync(answers, rows.join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('assay analyze --answers, interrupted', () => {
  it('removes its temporary files on Ctrl-C and ends as interrupted, with no report written', async () => {
    // A TMPDIR of its own, to watch.
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const report = join(dir, 'batch.json');
    const child = spawn(process.execPath, [...cliCommand(), 'analyze', '--kb', kb, '--answers', answers, '--json', report], {
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: tmp },
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    // Interrupted once the analysis has begun writing to its temporary files.
    while (!readdirSync(tmp).some((f) => f.startsWith('assay-report-'))) {
      expect(child.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGINT');
    const end = await exited;
    expect(end.signal === 'SIGINT' || end.code === 130).toBe(true);
    expect(readdirSync(tmp).filter((f) => f.startsWith('assay-report-'))).toEqual([]);
    expect(readdirSync(dir)).not.toContain('batch.json');
  }, 300_000);
});
