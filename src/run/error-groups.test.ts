import { describe, expect, it } from 'vitest';
import { errorKey, ErrorGrouper, errorSummaryLines, MAX_GROUPS } from './error-groups.js';

describe('error groups', () => {
  it('messages that differ only in ids, timestamps and long numbers share a key; codes, indices and words do not', () => {
    const same = [
      ['answer: {"id":"chatcmpl-8x2Kq91ZaB"}', 'answer: {"id":"chatcmpl-Z0pLm7fQ2w"}'],
      ['request req_01HQ3Z7Y8K failed', 'request req_01HQ3Z9ABC failed'],
      ['trace 3f2a9c10 ended', 'trace 77ab01ce ended'],
      ['run 550e8400-e29b-41d4-a716-446655440000 gone', 'run 123e4567-e89b-12d3-a456-426614174000 gone'],
      ['at 2026-11-23T10:30:00.123Z', 'at 2026-11-24T11:00:59Z'],
      ['created 1700000001', 'created 1700000002'],
    ];
    for (const [a, b] of same) expect(errorKey(a), a).toBe(errorKey(b));
    const different = [
      ['HTTP 404 Not Found', 'HTTP 500 Internal Server Error'],
      ['HTTP 429', 'HTTP 503'],
      ['input 3: bad', 'input 4: bad'],
      ['predicate threw: x is not defined', 'predicate threw: y is not defined'],
      ['timeout after 1000 ms', 'timeout after 5000 ms'],
    ];
    for (const [a, b] of different) expect(errorKey(a), a).not.toBe(errorKey(b));
  });

  it('a quoted answer (after "; answer: ") is left out of the key: it changes with every output, the cause does not', () => {
    const a = 'http: outputPath x is not in the answer (the answer has id, choices); answer: {"choices":[{"text":"Hello"}]}';
    const b = 'http: outputPath x is not in the answer (the answer has id, choices); answer: {"choices":[{"text":"Goodbye, and thanks"}]}';
    expect(errorKey(a)).toBe(errorKey(b));
    expect(errorKey(a)).toBe('http: outputPath x is not in the answer (the answer has id, choices)');
    // The stable part still tells causes apart.
    expect(errorKey(a)).not.toBe(errorKey(b.replace('outputPath x', 'outputPath y')));
  });

  it('counts per group, most frequent first, with variants and the first message kept whole', () => {
    const g = new ErrorGrouper();
    for (let i = 0; i < 3; i++) g.add(`answer: {"id":"chatcmpl-a${i}bcdef9"}`);
    g.add('HTTP 500');
    g.add('HTTP 500');
    g.add('HTTP 404');
    const s = g.summary();
    expect(s).toEqual({
      total: 6,
      distinct: 3,
      groups: [
        { message: 'answer: {"id":"chatcmpl-a0bcdef9"}', count: 3, variants: 3 },
        { message: 'HTTP 500', count: 2, variants: 1 },
        { message: 'HTTP 404', count: 1, variants: 1 },
      ],
    });
    expect(g.summary(1).groups).toHaveLength(1);
    expect(g.summary(1).distinct).toBe(3);
  });

  it('lists the top groups whole, then "and N more" with the errors they hold', () => {
    const g = new ErrorGrouper();
    for (let k = 0; k < 7; k++) for (let c = 0; c <= k; c++) g.add(`failure kind ${k}: ${'detail '.repeat(30)}end`);
    const lines = errorSummaryLines(g.summary(), { top: 5 });
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(`  error ×7: failure kind 6: ${'detail '.repeat(30)}end`);
    expect(lines[4]).toMatch(/^ {2}error ×3: failure kind 2:/);
    expect(lines[5]).toBe('  and 2 more distinct messages (3 errors): see the JSON or HTML report');
    expect(errorSummaryLines(new ErrorGrouper().summary())).toEqual([]);
  });

  it('stays bounded when every message differs: errors beyond the tracked groups are still counted', () => {
    const g = new ErrorGrouper();
    for (let i = 0; i < MAX_GROUPS + 50; i++) g.add(`failure ${i}`);
    const s = g.summary(5);
    expect(s.total).toBe(MAX_GROUPS + 50);
    expect(s.distinct).toBe(MAX_GROUPS);
    expect(errorSummaryLines(s).at(-1)).toBe(`  and ${MAX_GROUPS - 5}+ more distinct messages (${MAX_GROUPS + 45} errors): see the JSON or HTML report`);
  });
});
