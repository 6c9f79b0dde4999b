import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite.js';
import { grade, gradedRun } from './testing/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-sqlite-grades-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite grades: version() kept between writes', () => {
  it("a reader's kept count changes when another connection (another thread or process) records or deletes a grade", async () => {
    const path = join(dir, 'assay.db');
    await using writer = openSqliteStore(path);
    const runId = await gradedRun(writer);
    await using reader = openSqliteStore(path, { readonly: true });
    const [all0, run0] = [await reader.grades.version(), await reader.grades.version(runId)];
    expect(await reader.grades.version()).toBe(all0); // kept: nothing written
    const a = await writer.grades.record(runId, grade(0, 0));
    const [all1, run1] = [await reader.grades.version(), await reader.grades.version(runId)];
    expect(all1).not.toBe(all0);
    expect(run1).not.toBe(run0);
    expect(all1).toBe(await writer.grades.version());
    await writer.grades.delete(runId, a.id);
    expect(await reader.grades.version(runId)).not.toBe(run1);
    expect(await reader.grades.version(runId)).toBe(await writer.grades.version(runId));
    // Its own writes too.
    const before = await writer.grades.version(runId);
    await writer.grades.record(runId, grade(0, 1));
    expect(await writer.grades.version(runId)).not.toBe(before);
  });
});
