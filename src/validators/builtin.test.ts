import { describe, expect, it } from 'vitest';
import { buildCheck, builtinValidator, checkSchema, CheckOptionError, countSentences, countWords, type CheckSpec } from './builtin.js';

const header = { name: 'v', minSuccess: 0.9 };
function check(spec: unknown): (o: string) => boolean {
  const v = builtinValidator(header, checkSchema.parse(spec) as CheckSpec);
  return (o) => v.predicate(o, 'input') as boolean;
}
function source(spec: unknown): string {
  return builtinValidator(header, checkSchema.parse(spec) as CheckSpec).source ?? '';
}

describe('built-in checks', () => {
  it('contains: one string, a list (all by default, or any), ignoreCase', () => {
    expect(check({ type: 'contains', value: 'Hello' })('Hello world')).toBe(true);
    expect(check({ type: 'contains', value: 'Hello' })('hello world')).toBe(false);
    expect(check({ type: 'contains', value: 'Hello', ignoreCase: true })('hello world')).toBe(true);
    expect(check({ type: 'contains', value: ['a', 'z'] })('abc')).toBe(false);
    expect(check({ type: 'contains', value: ['a', 'b'] })('abc')).toBe(true);
    expect(check({ type: 'contains', value: ['x', 'b'], match: 'any' })('abc')).toBe(true);
    expect(check({ type: 'contains', value: ['x', 'y'], match: 'any' })('abc')).toBe(false);
    expect(source({ type: 'contains', value: ['a', 'b'], ignoreCase: true })).toBe('contains all of "a", "b" (ignoring case)');
  });

  it('not-contains: none of the strings may appear', () => {
    const f = check({ type: 'not-contains', value: ['sorry', 'apologize'], ignoreCase: true });
    expect(f('Here is your answer.')).toBe(true);
    expect(f('SORRY, I cannot.')).toBe(false);
    expect(f('I apologize')).toBe(false);
    expect(check({ type: 'not-contains', value: 'sorry' })('Sorry')).toBe(true);
    expect(source({ type: 'not-contains', value: 'sorry' })).toBe('does not contain "sorry"');
  });

  it('regex: must match by default, or must not; flags honoured; no lastIndex state', () => {
    const f = check({ type: 'regex', pattern: '^dear', flags: 'ig' });
    expect(f('Dear customer')).toBe(true);
    expect(f('Dear customer')).toBe(true); // a g flag would make the second test() fail
    expect(f('Hi customer')).toBe(false);
    const g = check({ type: 'regex', pattern: '\\d{3}-\\d{4}', mustMatch: false });
    expect(g('call 555-1234')).toBe(false);
    expect(g('no number')).toBe(true);
    expect(source({ type: 'regex', pattern: 'a+', flags: 'i', mustMatch: false })).toBe('does not match /a+/i');
  });

  it("max-count: the paper's contraction rule as a built-in", () => {
    const f = check({ type: 'max-count', pattern: "'", max: 3 });
    expect(f('It is a fine day and I am glad to see it.')).toBe(true);
    expect(f("It's fine, isn't it? Don't worry, I can't complain.")).toBe(false);
    expect(f("a'b'c'd")).toBe(true);
    expect(check({ type: 'max-count', pattern: 'x', max: 0 })('abc')).toBe(true);
    expect(check({ type: 'max-count', pattern: 'X', flags: 'i', max: 1 })('xx')).toBe(false);
    expect(source({ type: 'max-count', pattern: "'", max: 3 })).toBe("at most 3 matches of /'/g");
  });

  it('words: min and max bounds', () => {
    expect(countWords('  one two\tthree\nfour  ')).toBe(4);
    expect(countWords('')).toBe(0);
    expect(check({ type: 'words', max: 3 })('one two three')).toBe(true);
    expect(check({ type: 'words', max: 3 })('one two three four')).toBe(false);
    expect(check({ type: 'words', min: 2, max: 3 })('one')).toBe(false);
    expect(source({ type: 'words', min: 2, max: 3 })).toBe('word count between 2 and 3');
  });

  it('sentences: min and max bounds', () => {
    expect(countSentences("It's fine, isn't it? Don't worry, I can't complain.")).toBe(2);
    expect(countSentences('One. Two! Three?')).toBe(3);
    expect(countSentences('   ')).toBe(0);
    expect(check({ type: 'sentences', max: 2 })('One. Two. Three.')).toBe(false);
    expect(check({ type: 'sentences', min: 1 })('One sentence without a stop')).toBe(true);
  });

  it('json: parses as JSON', () => {
    expect(check({ type: 'json' })('{"a": [1, 2]}')).toBe(true);
    expect(check({ type: 'json' })('{"a": [1, 2]')).toBe(false);
    expect(check({ type: 'json' })('Sure! {"a": 1}')).toBe(false);
  });

  it('json-schema: matches a JSON Schema (draft-07 and 2020-12, with formats)', () => {
    const schema = {
      type: 'object',
      required: ['email', 'age'],
      properties: { email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 0 } },
    };
    const f = check({ type: 'json-schema', schema });
    expect(f('{"email": "a@b.co", "age": 3}')).toBe(true);
    expect(f('{"email": "not-an-email", "age": 3}')).toBe(false);
    expect(f('{"email": "a@b.co", "age": -1}')).toBe(false);
    expect(f('not json')).toBe(false);
    const g = check({
      type: 'json-schema',
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'number' }] },
    });
    expect(g('[1, "x"]')).toBe(true);
    expect(g('["x"]')).toBe(false);
  });

  it('rejects unusable options with the field that is wrong', () => {
    expect(() => check({ type: 'regex', pattern: '(' })).toThrow(CheckOptionError);
    expect(() => check({ type: 'json-schema', schema: { type: 'nonsense' } })).toThrow(/JSON Schema/);
    expect(checkSchema.safeParse({ type: 'words' }).success).toBe(false);
    expect(checkSchema.safeParse({ type: 'contains', value: 'a', ignorecase: true }).success).toBe(false);
    expect(checkSchema.safeParse({ type: 'containz', value: 'a' }).success).toBe(false);
  });

  it('builds a complete Validator with a default message from the source', () => {
    const v = builtinValidator({ name: 'short', minSuccess: 0.8, weight: 2 }, { type: 'words', max: 10 });
    expect(v).toMatchObject({ name: 'short', minSuccess: 0.8, weight: 2, kind: 'validator', message: 'Output does not satisfy: word count at most 10' });
  });
});

describe('default messages show values as a person wrote them', () => {
  it('default messages of built-in checks: contains \'"name"\', never "\\"name\\""', () => {
    expect(buildCheck({ type: 'contains', value: '"name"' }).source).toBe(`contains '"name"'`);
    expect(buildCheck({ type: 'contains', value: ['a', 'b'], match: 'any' }).source).toBe('contains any of "a", "b"');
    expect(buildCheck({ type: 'not-contains', value: ["don't", 'x'] }).source).toBe(`does not contain any of "don't", "x"`);
  });
});
