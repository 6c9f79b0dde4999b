import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchReportWriter, formatBatchTable, renderBatchJson, renderBatchJunit, renderBatchMarkdown, summarizeBatch } from './grounding.js';
import { goldenBatches } from './testing/grounding-batch.js';
import { boundedRun } from './testing/bounded.js';

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

/** `bytes` of a file from `at` (from its end when negative), without reading the rest. */
function part(file: string, bytes: number, at: number): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, at < 0 ? Math.max(0, statSync(file).size + at) : at);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
const head = (file: string, bytes: number) => part(file, bytes, 0);
const tail = (file: string, bytes: number) => part(file, bytes, -bytes);

describe('the reports of 200,000 answers in a heap of 64 MB (issue 30: bounded memory)', () => {
  // 200,000 answers' results take hundreds of MB held together (the JSON report alone is 240 MB); streamed, the
  // heap holds counts, column widths and buffers (under 15 MB measured). A cap, not a clock: robust on a loaded machine.
  it('streamed: every report written whole, in input order, with the summary of all 200,000', () => {
    const out = mkdtempSync(join(dir, 'stream-'));
    const r = boundedRun('stream', 200_000, out);
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ answers: 200_000, passed: 50_000, failed: 50_000, errors: 100_000 });
    const top = ['{', '  "schema": "assay-grounding-batch/1",', '  "kb": "kb",', '  "fail_on": "HIGH",', '  "summary": {', '    "answers": 200000,'];
    expect(head(join(out, 'batch.json'), 200).startsWith(top.join('\n'))).toBe(true);
    const end = tail(join(out, 'batch.json'), 300);
    expect(end).toContain(['    {', '      "id": "answer-199999",', '      "line": 200000,'].join('\n'));
    expect(end.endsWith(['      "error": "the LLM timed out"', '    }', '  ]', '}', ''].join('\n'))).toBe(true);
    expect(tail(join(out, 'batch.xml'), 60).endsWith(['    </testcase>', '  </testsuite>', '</testsuites>', ''].join('\n'))).toBe(true);
    expect(head(join(out, 'batch.xml'), 200)).toMatch(/tests="200000" failures="50000" errors="100000"/);
    expect(tail(join(out, 'table.txt'), 200)).toMatch(
      /ERROR answer-199999 \(line 200000\): the LLM timed out\n\n200000 answers: 50000 LOW, 50000 MEDIUM, 50000 HIGH; 50000 at or above fail-on HIGH; 100000 not decided \(errors\)\n$/,
    );
    expect(tail(join(out, 'batch.md'), 100)).toMatch(/Query: q199999\n\n\n<\/details>\n$/);
    rmSync(out, { recursive: true, force: true });
  }, 900_000);

  it('the cap is far below what the same reports need built in memory, as before: that process runs out of heap', () => {
    const out = mkdtempSync(join(dir, 'memory-'));
    const r = boundedRun('memory', 200_000, out);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/heap out of memory/);
    rmSync(out, { recursive: true, force: true });
  }, 900_000);
});
