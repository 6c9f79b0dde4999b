import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Outcome } from '../core/outcome.js';
import { summarize } from '../core/summarize.js';
import { UsageError } from '../errors.js';
import { MemoryStore } from '../store/memory.js';
import { reportMeta } from './meta.js';
import { checkReportTargets } from './targets.js';
import { ReportWriteError, writeReports } from './write.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-targets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refused(targets: Record<string, string>, storeFile?: string): string {
  try {
    checkReportTargets(targets, storeFile !== undefined ? { storeFile } : {});
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('checkReportTargets', () => {
  it('accepts new files in existing folders and "-" once, and leaves no file behind', () => {
    checkReportTargets({ json: join(dir, 'a.json'), html: join(dir, 'a.html'), markdown: '-' }, { storeFile: join(dir, 's.db') });
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
  });

  it('refuses the store, its WAL, a shared path, two stdouts, a missing folder and a folder', () => {
    const store = join(dir, 's.db');
    writeFileSync(store, 'x');
    expect(refused({ json: store }, store)).toMatch(/^--json: .*is the assay store/);
    expect(refused({ junit: `${store}-wal` }, store)).toMatch(/^--junit: .*is the assay store/);
    expect(refused({ json: join(dir, 'r'), markdown: join(dir, '.', 'r') })).toMatch(/^--markdown: expected a path of its own, .* which --json writes too/);
    expect(refused({ json: '-', html: '-' })).toMatch(/^--html: .*which --json writes too/);
    expect(refused({ json: join(dir, 'no', 'such', 'r.json') })).toMatch(/^--json: expected a file in an existing folder/);
    expect(refused({ html: dir })).toMatch(/^--html: expected a file path, found .* which is a folder/);
  });
});

describe('writeReports', () => {
  it('a report that cannot be written at the end is a one-line ReportWriteError (exit 3) naming the flag and the stored run', async () => {
    const store = new MemoryStore();
    const run = await store.runs.create({
      name: 'x',
      config: null,
      inputs: ['a'],
      samples: 1,
      validators: [{ name: 'v', message: 'm', minSuccess: 0.5, weight: 1, kind: 'validator' }],
      systemId: 's',
    });
    await store.samples.record(run.id, { i: 0, j: 0, outcomes: [Outcome.PASS], latencyMs: 1, attempts: 1 });
    const tensor = await store.samples.tensor(run.id);
    const summary = summarize(tensor, run.validators, {});
    const ctx = { run, summary, meta: reportMeta(run), tensor, store };
    const err = await writeReports({ json: join(dir, 'gone', 'r.json') }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReportWriteError);
    expect((err as ReportWriteError).exitCode).toBe(3);
    expect((err as Error).message).toMatch(new RegExp(`^--json: could not write .*r\\.json \\(ENOENT\\); run ${run.id} is stored`));
    expect(await writeReports({ json: join(dir, 'ok.json') }, ctx)).toEqual([join(dir, 'ok.json')]);
  });
});
