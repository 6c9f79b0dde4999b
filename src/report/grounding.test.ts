import { describe, expect, it } from 'vitest';
import { formatBatchTable, renderBatchMarkdown, type AnswerResult } from './grounding.js';

describe('batch reports of assay analyze --answers at scale (issue 30, item 2)', () => {
  it('draws the terminal table and the Markdown of 200,000 answers (Math.max(...rows) threw past ~125k)', () => {
    const results: AnswerResult[] = Array.from({ length: 200_000 }, (_, n) => ({
      id: `a${n}`,
      line: n + 1,
      query: 'q',
      outcome: n % 1000 ? 'pass' : 'error',
      error: 'the LLM timed out',
    }));
    const table = formatBatchTable({ kb: 'kb', results });
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^\s+id\s+risk\s+confidence/);
    // The widest id (a199999) sets the column: every row lines up.
    expect(lines[1].indexOf('–')).toBe(lines[200_000].indexOf('–'));
    expect(table).toMatch(/200000 answers: 0 LOW, 0 MEDIUM, 0 HIGH; 200 not decided \(errors\)/);
    expect(renderBatchMarkdown({ kb: 'kb', results }).split('\n').length).toBeGreaterThan(200_000);
  });
});
