import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchReportWriter, formatBatchTable, renderBatchJson, renderBatchJunit, renderBatchMarkdown, summarizeBatch } from './grounding.js';
import { goldenBatches } from './testing/grounding-batch.js';

// The golden files were written by the in-memory renderers before the reports were streamed (issue 30).
const GOLDEN = fileURLToPath(new URL('./testing/golden/', import.meta.url));
const golden = (name: string) => readFileSync(join(GOLDEN, name), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'assay-batch-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('batch reports of assay analyze --answers, streamed (issue 30: 1M answers in bounded memory)', () => {
  for (const [name, batch] of Object.entries(goldenBatches())) {
    it(`${name}: the reports built in memory are byte-identical to the reports before streaming`, () => {
      expect(formatBatchTable(batch)).toBe(golden(`${name}.table.txt`));
      expect(formatBatchTable(batch, { color: true })).toBe(golden(`${name}.table-color.txt`));
      expect(renderBatchJson(batch)).toBe(golden(`${name}.json`));
      expect(renderBatchJunit(batch)).toBe(golden(`${name}.xml`));
      expect(renderBatchMarkdown(batch)).toBe(golden(`${name}.md`));
    });

    it(`${name}: streamed through temporary files, the table and the reports are the same bytes, and the files are removed`, async () => {
      const files = { json: join(dir, `${name}.json`), junit: join(dir, `${name}.xml`), markdown: join(dir, `${name}.md`) };
      for (const color of [false, true]) {
        const table = new PassThrough();
        let shown = '';
        table.on('data', (c: Buffer) => (shown += String(c)));
        const writer = new BatchReportWriter(batch, color ? {} : files, { to: table, color });
        for (const r of batch.results) writer.add(r);
        const spools = readdirSync(tmpdir()).filter((f) => f.startsWith('assay-report-')).length;
        const { summary, written } = await writer.finish();
        expect(summary).toEqual(summarizeBatch(batch));
        expect(shown).toBe(golden(`${name}.table${color ? '-color' : ''}.txt`));
        expect(written).toEqual(color ? [] : [files.json, files.junit, files.markdown]);
        // finish removed its spool folder.
        expect(readdirSync(tmpdir()).filter((f) => f.startsWith('assay-report-')).length).toBeLessThan(spools || 1);
      }
      expect(readFileSync(files.json, 'utf8')).toBe(golden(`${name}.json`));
      expect(readFileSync(files.junit, 'utf8')).toBe(golden(`${name}.xml`));
      expect(readFileSync(files.markdown, 'utf8')).toBe(golden(`${name}.md`));
    });
  }
});
