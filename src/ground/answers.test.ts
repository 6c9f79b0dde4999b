import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boundedRun } from '../report/testing/bounded.js';
import { checkAnswersFile, MAX_ANSWERS_LINE_CHARS, readAnswers, readAnswersFile, type AnswerLine } from './answers.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-answers-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const f = join(dir, `answers-${n++}.jsonl`);
  writeFileSync(f, text);
  return f;
};
const ok = (id: unknown, answer = 'It opened in 1990.') => JSON.stringify({ ...(id === undefined ? {} : { id }), query: 'When?', answer });

async function collect(f: string): Promise<AnswerLine[]> {
  const rows: AnswerLine[] = [];
  for await (const r of readAnswers(f, { generate: false })) rows.push(r);
  return rows;
}

async function streamedError(f: string, o = { generate: false }): Promise<string> {
  try {
    await checkAnswersFile(f, o);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

function wholeError(f: string, o = { generate: false }): string {
  try {
    readAnswersFile(f, o);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('answers files read as a stream (issue 30: 1M answers in bounded memory)', () => {
  it('yields the same answers, in file order, as reading the file whole: ids, line numbers, BOM, CRLF, blank lines', async () => {
    const f = file(`\uFEFF${ok('a')}\r\n\n${ok(undefined)}\n${ok(7)}\n   \n${ok('line 9')}`);
    expect(await checkAnswersFile(f, { generate: false })).toBe(4);
    const rows = await collect(f);
    expect(rows).toEqual(readAnswersFile(f, { generate: false }));
    expect(rows.map((r) => [r.id, r.line])).toEqual([
      ['a', 1],
      ['line 3', 3],
      ['7', 4],
      ['line 9', 6],
    ]);
  });

  it('reports the same problems, in line order, ten at most and a count: duplicate ids among them, found without a Map of ids', async () => {
    const lines = [
      ok('a'),
      ok('a'), // 2: repeats line 1
      '{"query": "q", "answer": 5}',
      ok('line 5'), // the id "line 5" …
      ok(undefined), // 5: … and line 5's own key: a repeat of line 4
      'not json',
      ok('b', ''),
      ok('a', ''), // 8: a repeat (the id is checked before the answer)
      '[1]',
      '{"query": "q", "answer": "It opened.", "extra": 1}',
      ok('c'),
      ok('c'),
      '{"answer": "x"}',
      ok('d'),
    ];
    const f = file(lines.join('\n') + '\n');
    const message = await streamedError(f);
    expect(message).toBe(wholeError(f));
    expect(message.split('\n')).toEqual([
      `${f}:2: id: expected a unique id, found "a" (also on line 1)`,
      `${f}:3: answer: expected a string, found number 5`,
      `${f}:5: id: expected a unique id, found "line 5" (also on line 4)`,
      `${f}:6: expected a JSON object {"query": …, "answer": …}, found unreadable JSON (Unexpected token 'o', "not json" is not valid JSON)`,
      `${f}:7: answer: expected an answer to audit, found an empty string`,
      `${f}:8: id: expected a unique id, found "a" (also on line 1)`,
      `${f}:9: expected a JSON object {"query": …, "answer": …}, found a list`,
      `${f}:10: extra: unknown key (expected query, answer and optionally id)`,
      `${f}:12: id: expected a unique id, found "c" (also on line 11)`,
      `${f}:13: query: expected a non-empty string, found nothing`,
    ]);
    const more = file([ok('x'), ...Array.from({ length: 25 }, () => ok('x'))].join('\n'));
    expect((await streamedError(more)).split('\n').slice(-2)).toEqual([`${more}:11: id: expected a unique id, found "x" (also on line 1)`, '… and 15 more']);
  });

  it('refuses a line past the limit without holding it, naming the line and its length; an empty file has no answers', async () => {
    const long = 'x'.repeat(MAX_ANSWERS_LINE_CHARS + 10);
    const f = file(`${ok('a')}\n{"query": "q", "answer": "${long}"}\n${ok('b')}\n`);
    const chars = (MAX_ANSWERS_LINE_CHARS + 10 + '{"query": "q", "answer": ""}'.length).toLocaleString('en');
    expect(await streamedError(f)).toBe(`${f}:2: expected a line of at most ${MAX_ANSWERS_LINE_CHARS.toLocaleString('en')} characters, found ${chars}`);
    const empty = file('\n\n');
    expect(await streamedError(empty)).toBe(`${empty}: expected at least one line {"query": …, "answer": …}, found none`);
    expect(await streamedError(join(dir, 'missing.jsonl'))).toMatch(/^--answers: cannot read .*missing\.jsonl: ENOENT/);
  });

  it('stops with the line named when the file changed after it was checked', async () => {
    // Longer than one read (64 KiB): the rest is read after the change.
    const f = file(Array.from({ length: 5000 }, (_, i) => ok(`a${i}`)).join('\n'));
    await checkAnswersFile(f, { generate: false });
    const rows: string[] = [];
    await expect(
      (async () => {
        for await (const r of readAnswers(f, { generate: false })) {
          rows.push(r.id);
          if (rows.length === 1) writeFileSync(f, `${ok('a')}\n{"query": ""}\n`.repeat(5000));
        }
      })(),
    ).rejects.toThrow(/answers-\d+\.jsonl:\d+: .*\(the file changed after it was checked\)$/);
    expect(rows.length).toBeGreaterThan(100);
  });

  it('checks and reads 200,000 answers (a 75 MB file) in a heap of 64 MB: the file, its lines and its ids are never held', () => {
    const out = mkdtempSync(join(dir, 'bounded-'));
    const r = boundedRun('answers', 200_000, out);
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ checked: 200_000, read: 200_000, last: 'answer-199999' });
    rmSync(out, { recursive: true, force: true });
  }, 900_000);
});
