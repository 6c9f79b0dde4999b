import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import { UsageError } from '../errors.js';
import { buildCheck, CheckOptionError, type CheckSpec } from './builtin.js';
import { compileLinearRegex, RegexOptionError } from './regex.js';

const check = (spec: CheckSpec) => buildCheck(spec).predicate;

describe('built-in regex checks cannot hang', () => {
  it('answers ^(a+)+$ on 30 × "a" + "!" at once (JavaScript backtracks for ~33 s), and on 100,000 characters', () => {
    const f = check({ type: 'regex', pattern: '^(a+)+$' });
    expect(f('a'.repeat(30) + '!')).toBe(false);
    expect(f('a'.repeat(100_000) + '!')).toBe(false);
    expect(f('a'.repeat(30))).toBe(true);
    const count = check({ type: 'max-count', pattern: '(x+x+)+y', max: 0 });
    expect(count('x'.repeat(5_000))).toBe(true);
  });

  it('runs JSON Schema patterns on the same engine', () => {
    const f = check({
      type: 'json-schema',
      schema: { type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'number' } } },
    });
    expect(f(JSON.stringify({ id: 'a'.repeat(40) + '!' }))).toBe(false);
    expect(f(JSON.stringify({ id: 'aaa' }))).toBe(true);
    expect(f(JSON.stringify({ id: 'aaa', ['b'.repeat(40)]: 'not a number' }))).toBe(false);
    expect(() => check({ type: 'json-schema', schema: { type: 'string', pattern: '(?=x)' } })).toThrow(CheckOptionError);
  });
});

describe('JavaScript pattern syntax on RE2', () => {
  // [pattern, flags, inputs]: the linear engine must agree with RegExp on every input (test and match count).
  const cases: [string, string, string[]][] = [
    ['^dear', 'i', ['Dear Ada', 'my dear', 'DEAR']],
    ['\\d{3}-\\d{4}', '', ['call 555-1234', '55-1234', '5551234']],
    ["'", '', ["It's fine, isn't it?", 'no apostrophes', "''''"]],
    ['\\s+', '', ['a b', 'a\u00a0b', 'a\u2003b', 'a\u2028b', 'ab', 'a\tb\vc']],
    ['\\S+', '', ['\u00a0x\u00a0', ' \u3000 ', '']],
    ['[\\s,]+', '', ['a,\u00a0b', 'ab']],
    ['a.b', '', ['a\nb', 'a\rb', 'a\u2028b', 'axb']],
    ['a.b', 's', ['a\nb', 'a\u2029b']],
    ['^b$', 'm', ['a\nb\nc', 'abc']],
    ['^b$', '', ['a\nb\nc', 'b']],
    ['caf\\u00e9', '', ['café', 'cafe']],
    ['\\uD83D\\uDE00', 'u', ['😀 smile', 'none']],
    ['\\u{1F600}', 'u', ['😀', 'x']],
    ['\\p{Lu}\\p{Ll}+', 'u', ['Éclair', 'éclair', 'Ωmega']],
    ['p{2}', '', ['pp', 'p']],
    ['[^]', '', ['', '\n', 'x']],
    ['x[]', '', ['x', 'x[]']],
    ['(?<=\\$)\\d+', '', ['cost $42', 'cost 42']],
    ['(?<!-)\\b\\d+\\b', '', ['-5 and 7', '-5']],
    ['(?<year>\\d{4})-(?<month>\\d\\d)', '', ['2024-05', '24-05']],
    ['\\bthe\\b', 'gi', ['The theme of the day', 'other']],
    ['\\cJ', '', ['a\nb', 'ab']],
    ['a*', '', ['baaac', '']],
    ['[a-z]+\\/[0-9]+', '', ['path/42', 'PATH/42']],
  ];
  it.each(cases)('/%s/%s agrees with RegExp', (pattern, flags, inputs) => {
    const re2 = compileLinearRegex(pattern, flags.replace(/[gy]/g, ''));
    const js = new RegExp(pattern, flags.replace(/[gy]/g, ''));
    const jsGlobal = new RegExp(pattern, flags.includes('g') ? flags : flags + 'g');
    for (const input of inputs) {
      expect(re2.test(input), JSON.stringify(input)).toBe(js.test(input));
      expect(re2.count(input), JSON.stringify(input)).toBe([...input.matchAll(jsGlobal)].length);
    }
  });

  it('refuses what RE2 cannot express, naming the field, the pattern and the reason', () => {
    const refusal = (pattern: string, flags = '') => {
      try {
        compileLinearRegex(pattern, flags);
      } catch (err) {
        expect(err).toBeInstanceOf(RegexOptionError);
        return err as RegexOptionError;
      }
      throw new Error(`${pattern} was accepted`);
    };
    expect(refusal('foo(?=bar)').message).toMatch(
      /^expected a pattern the linear-time regex engine \(RE2\) can run, found "foo\(\?=bar\)": lookahead is not available/,
    );
    expect(refusal('(a)\\1').message).toMatch(/backreferences are not available/);
    expect(refusal('(?<x>a)\\k<x>').message).toMatch(/backreferences are not available/);
    expect(refusal('(', '').message).toMatch(/^expected a valid regular expression, found "\("/);
    expect(refusal('a', 'v')).toMatchObject({ field: 'flags' });
    expect(refusal('a', 'q')).toMatchObject({ field: 'pattern' });
  });
});

describe('config errors for patterns RE2 cannot run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-regex-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('name the file, the field path and the line', async () => {
    const path = join(dir, 'lookahead.yaml');
    writeFileSync(
      path,
      'name: t\nsystem: { simulated: { outputs: [{ text: "hi" }] } }\ninputs: ["a"]\nsamples: 2\nvalidators:\n  - name: no_price\n    minSuccess: 0.9\n    check: { type: regex, pattern: "\\\\$(?=\\\\d)", mustMatch: false }\n',
    );
    const err = await loadExperiment(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    expect(message).toContain(
      'lookahead.yaml: validators[0].check.pattern: expected a pattern the linear-time regex engine (RE2) can run, found "\\$(?=\\d)": lookahead is not available',
    );
    expect(message).toMatch(/\(line 8\)$/);
  });
});
