import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { UsageError } from '../errors.js';
import { describeFound, explainIssues, fieldError, firstIssue, formatPath, issuesError, parseFieldPath, schemaKeys, zodUsageError } from './issues.js';

const parsed = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value, { reportInput: true });
  if (r.success) throw new Error('expected a failure');
  return r.error;
};

describe('describeFound: what was found, shown as a person wrote it', () => {
  it('quotes a string with the quotes that need no escapes', () => {
    expect(describeFound('o => o.includes("x")')).toBe(`'o => o.includes("x")'`);
    expect(describeFound('plain')).toBe('"plain"');
    expect(describeFound(42)).toBe('42');
    expect(describeFound(undefined)).toBe('nothing');
    expect(describeFound(Array.from({ length: 40 }, (_, i) => i))).toBe('a list of 40');
  });
});

describe('field paths', () => {
  it('formatPath and parseFieldPath are inverses', () => {
    const path = ['verifiers', 0, 'judge', 'openai'];
    expect(formatPath(path)).toBe('verifiers[0].judge.openai');
    expect(parseFieldPath('verifiers[0].judge.openai')).toEqual(path);
    expect(parseFieldPath('--judge')).toEqual(['--judge']);
  });
});

describe('explainIssues: one wording for every surface', () => {
  const schema = z.strictObject({
    model: z.string(),
    temperature: z.number().min(0).max(2).optional(),
    outputs: z.array(z.union([z.string(), z.strictObject({ text: z.string(), weight: z.number().positive().optional() })])).min(1),
    check: z
      .discriminatedUnion('type', [
        z.strictObject({ type: z.literal('contains'), value: z.string() }),
        z.strictObject({ type: z.literal('words'), max: z.number() }),
      ])
      .optional(),
  });

  it('says what was expected and what was found, with articles, at the field path', () => {
    const messages = explainIssues(parsed(schema, { model: 42, temperature: 3, outputs: [] }).issues, { prefix: ['system', 'x'] });
    expect(messages.map((m) => `${formatPath(m.path)}: ${m.message}`)).toEqual([
      'system.x.model: expected a string, found 42',
      'system.x.temperature: expected a number ≤ 2, found 3',
      'system.x.outputs: expected at least 1 item(s), found []',
    ]);
  });

  it('names the keys the schema allows for an unknown key, with "did you mean", at any depth', () => {
    const keysAt = schemaKeys(schema);
    const top = explainIssues(parsed(schema, { model: 'm', outputs: ['a'], temprature: 1 }).issues, { keysAt });
    expect(top[0].message).toBe('unknown key (expected one of: model, temperature, outputs, check); did you mean "temperature"?');
    const nested = explainIssues(parsed(schema, { model: 'm', outputs: [{ text: 'a', wieght: 1 }] }).issues, { keysAt });
    expect(nested).toEqual([{ path: ['outputs', 0, 'wieght'], message: 'unknown key (expected one of: text, weight); did you mean "weight"?' }]);
    // A discriminated union: the keys of the option the `type` names.
    const check = explainIssues(parsed(schema, { model: 'm', outputs: ['a'], check: { type: 'words', mx: 1 } }).issues, { keysAt });
    expect(check.map((m) => m.message)).toContain('unknown key (expected one of: type, max); did you mean "max"?');
  });

  it('an error names the file, the field and the line, in file order', () => {
    const lines: Record<string, number> = { model: 3, temperature: 2 };
    const err = zodUsageError(parsed(schema, { model: 1, temperature: -1, outputs: ['a'] }), {
      file: 'assay.yaml',
      locate: (path) => lines[String(path[0])],
    });
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('assay.yaml: temperature: expected a number ≥ 0, found -1 (line 2)\nassay.yaml: model: expected a string, found 1 (line 3)');
    expect(err.where).toMatchObject({ file: 'assay.yaml', path: 'temperature', line: 2 });
  });

  it('a code expression continues the path instead of a file; a field error reads the same', () => {
    expect(issuesError({ expression: 'toSatisfy(rule)' }, [{ path: ['type'], message: 'expected x' }]).message).toBe('toSatisfy(rule).type: expected x');
    expect(fieldError({ file: 'f.yaml' }, 'system.http.url', 'expected a URL').message).toBe('f.yaml: system.http.url: expected a URL');
    expect(fieldError({}, 'system', 'expected one provider').message).toBe('system: expected one provider');
  });

  it('an HTTP body: the first problem, its field', () => {
    const body = z.strictObject({ query: z.string().min(1) });
    expect(firstIssue(parsed(body, { query: '' }), body)).toEqual({ field: 'query', message: 'query: expected a non-empty string, found ""' });
    expect(firstIssue(parsed(body, { query: 'q', quer: 1 }), body).message).toBe('quer: unknown key (expected one of: query); did you mean "query"?');
  });
});
