import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { loadMockRules } from './rules.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-mock-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  try {
    loadMockRules(file);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message.replace(`${dir}/`, '');
  }
  throw new Error(`${name}: no error`);
}

describe('loadMockRules: a bad rules file reads as a bad config does (file, rule, field, expected, found)', () => {
  it.each([
    ['- { match: x, reply: 1 }\n', 'rules.yaml: rules[0].reply: expected a string, found 1'],
    [
      '- { match: x, replyy: "a" }\n',
      'rules.yaml: rules[0].replyy: unknown key (expected one of: match, regex, model, reply, status, retryAfterSeconds, delayMs)',
    ],
    ['- { match: x, reply: a }\n- { match: y, status: 200 }\n', 'rules.yaml: rules[1].status: expected an HTTP error status from 400 to 599, found 200'],
    ['- { match: "", reply: a }\n', 'rules.yaml: rules[0].match: expected a non-empty string, found ""'],
    ['- { match: x, delayMs: -1 }\n', 'rules.yaml: rules[0].delayMs: expected a number of milliseconds ≥ 0, found -1'],
    ['- { match: x, status: 429.5 }\n', 'rules.yaml: rules[0].status: expected an HTTP error status from 400 to 599, found 429.5'],
    ['- 5\n', 'rules.yaml: rules[0]: expected an object, found 5'],
  ])('%j', (text, message) => {
    expect(errorOf('rules.yaml', text)).toBe(message);
  });

  it('JSON Lines name the line, .ndjson as .jsonl', () => {
    expect(errorOf('rules.jsonl', '{"match":"a","reply":"b"}\n{"match":"a","reply":2}\n')).toBe('rules.jsonl:2: reply: expected a string, found 2');
    expect(errorOf('rules.ndjson', '{"match":"a","replyy":"b"}\n')).toMatch(/^rules\.ndjson:1: replyy: unknown key/);
  });

  it('a good file loads', () => {
    const file = join(dir, 'good.yaml');
    writeFileSync(file, '- { match: weather, reply: "Sunny." }\n- { regex: "refund|return", status: 429, retryAfterSeconds: 1 }\n');
    expect(loadMockRules(file)).toEqual([
      { match: 'weather', reply: 'Sunny.' },
      { regex: 'refund|return', status: 429, retryAfterSeconds: 1 },
    ]);
  });
});
