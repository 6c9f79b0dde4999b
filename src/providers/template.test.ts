import { describe, expect, it } from 'vitest';
import { envRefs, expandEnv, getPath, inputKey, parsePath, renderJsonTemplate, renderTemplate, stableStringify } from './template.js';

describe('paths', () => {
  it('parses dotted paths with indices and quoted keys', () => {
    expect(parsePath('data.choices[0].text')).toEqual(['data', 'choices', 0, 'text']);
    expect(parsePath('$.a["b.c"][2]')).toEqual(['a', 'b.c', 2]);
    expect(parsePath('$')).toEqual([]);
    expect(() => parsePath('a..b')).toThrow(/malformed path/);
    expect(() => parsePath('a[x]')).toThrow(/malformed path/);
  });
  it('follows a path, undefined when a step is missing', () => {
    const v = { data: { choices: [{ text: 't' }] } };
    expect(getPath(v, parsePath('data.choices[0].text'))).toBe('t');
    expect(getPath(v, parsePath('data.choices[1].text'))).toBeUndefined();
    expect(getPath(v, parsePath('data.choices.text'))).toBeUndefined();
  });
});

describe('templates', () => {
  it('fills fields of object inputs; {{input}} is the whole input', () => {
    expect(renderTemplate('Summarise: {{ text }} in {{meta.lang}}', { text: 'x', meta: { lang: 'fr' } })).toBe('Summarise: x in fr');
    expect(renderTemplate('{{input}}!', 'hi')).toBe('hi!');
    expect(renderTemplate('{{input}}', { a: 1 })).toBe('{"a":1}');
    expect(() => renderTemplate('{{missing}}', { text: 'x' })).toThrow(/\{\{missing\}\} is not in the input \(fields: text\)/);
  });
  it('keeps JSON types for whole-placeholder leaves of a JSON template', () => {
    expect(renderJsonTemplate({ q: '{{input}}', n: '{{n}}', s: 'n={{n}}', k: [true, '{{n}}'] }, { n: 3 })).toEqual({
      q: { n: 3 },
      n: 3,
      s: 'n=3',
      k: [true, 3],
    });
  });
  it('expands ${VAR} references', () => {
    expect(envRefs('Bearer ${A} ${B_2} $C')).toEqual(['A', 'B_2']);
    expect(expandEnv('Bearer ${A}', { A: 'x' })).toBe('Bearer x');
  });
  it('keys equal objects equally whatever the key order', () => {
    expect(stableStringify({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    expect(inputKey({ b: 1, a: 2 })).toBe(inputKey({ a: 2, b: 1 }));
    expect(inputKey('plain')).toBe('plain');
  });
});
