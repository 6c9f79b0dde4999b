import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { loadInputsFile } from './inputs.js';
import { loadExperiment } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const from = { configFile: join(dir, 'exp.yaml'), field: 'inputs.file' };

function load(name: string, text: string) {
  writeFileSync(join(dir, name), text);
  return loadInputsFile(name, dir, from);
}
function fails(name: string, text: string): UsageError {
  try {
    load(name, text);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('input files', () => {
  it('.txt: one input per non-empty line', () => {
    expect(load('a.txt', 'first\r\n\n  second line  \n   \nthird')).toEqual(['first', '  second line  ', 'third']);
  });

  it('.jsonl: one JSON string or object per line', () => {
    expect(load('a.jsonl', '"plain"\n\n{"question": "q", "n": 1}\n')).toEqual(['plain', { question: 'q', n: 1 }]);
  });

  it('.jsonl: a malformed line is named by its number', () => {
    const err = fails('b.jsonl', '{"a": 1}\n{"b": 2}\n{oops\n');
    expect(err.message).toMatch(/^.*b\.jsonl:3: expected one JSON value per line, found "\{oops"/);
    expect(err.where?.line).toBe(3);
    expect(fails('c.jsonl', '"ok"\n42\n').message).toMatch(/c\.jsonl:2: expected a string or an object, found 42/);
  });

  it('.json: an array of inputs; a bad element is named by its index, bad JSON by its line', () => {
    expect(load('a.json', '["x", {"y": 1}]')).toEqual(['x', { y: 1 }]);
    expect(fails('b.json', '["x", [1]]').message).toMatch(/b\.json: \[1\]: expected a string or an object, found \[1\]/);
    expect(fails('c.json', '{"x": 1}').message).toMatch(/expected a JSON array of inputs, found \{"x":1\}/);
    expect(fails('d.json', '[\n"a",\n"b"\n"c"]').message).toMatch(/d\.json:4: expected a JSON array/);
  });

  it('.csv: a header row, then one object per row; a malformed row is named by its line', () => {
    expect(load('a.csv', 'question,lang\n"Hi, there",en\nBonjour,fr\n')).toEqual([
      { question: 'Hi, there', lang: 'en' },
      { question: 'Bonjour', lang: 'fr' },
    ]);
    const err = fails('b.csv', 'question,lang\nHi,en\nBonjour,fr,extra\n');
    expect(err.message).toMatch(/b\.csv:3: expected a CSV row matching the header/);
  });

  it('missing, empty and unsupported files', () => {
    expect(() => loadInputsFile('nope.txt', dir, from)).toThrow(/inputs\.file: expected a readable inputs file, found "nope.txt" .*does not exist/);
    expect(fails('e.txt', '\n \n').message).toMatch(/e\.txt: expected at least one input, found none/);
    expect(fails('x.xml', '<a/>').message).toMatch(/expected a \.txt, \.jsonl, \.json or \.csv file/);
  });

  it('a config reads its inputs file relative to itself', async () => {
    writeFileSync(join(dir, 'prompts.txt'), 'one\ntwo\nthree\n');
    const cfg = join(dir, 'rel.yaml');
    writeFileSync(cfg, 'system: { simulated: {} }\ninputs: { file: prompts.txt }\nvalidators:\n  - { name: j, minSuccess: 0.5, check: { type: json } }\n');
    const e = await loadExperiment(cfg);
    expect(e.inputs).toEqual(['one', 'two', 'three']);
    expect(e.serialisable).toMatchObject({ inputs: { file: 'prompts.txt' } });
    e.dispose();
  });
});

describe('inputs recorded in a replay file (no inputs key)', () => {
  const config = (name: string, system: string, rest = '') => {
    writeFileSync(join(dir, name), `name: logs\nsystem: ${system}\n${rest}validators:\n  - { name: v, check: { type: words, max: 5 }, minSuccess: 0.5 }\n`);
    return join(dir, name);
  };

  it('takes the distinct recorded inputs in order, and as many samples as the most-recorded one', async () => {
    writeFileSync(
      join(dir, 'rec.jsonl'),
      [
        '{"input":"b","output":"1"}',
        '{"input":{"q":1,"l":"fr"},"output":"2"}',
        '{"input":"b","output":"3"}',
        '{"input":{"l":"fr","q":1},"output":"4"}',
        '{"input":"b","output":"5"}',
      ].join('\n'),
    );
    const e = await loadExperiment(config('rec.yaml', '{ replay: { file: rec.jsonl } }'));
    expect([e.inputs, e.samples]).toEqual([['b', { q: 1, l: 'fr' }], 3]);
    e.dispose();
    const fixed = await loadExperiment(config('rec2.yaml', '{ replay: { file: rec.jsonl } }', 'samples: 2\n'));
    expect(fixed.samples).toBe(2);
    fixed.dispose();
  });

  it('without inputs any other system is a usage error naming the field; rows with only "i" name their line', async () => {
    const err = await loadExperiment(config('none.yaml', '{ simulated: { outputs: [a] } }')).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/none\.yaml: inputs: expected a list of inputs .* found nothing/);
    writeFileSync(join(dir, 'byindex.jsonl'), '{"input":"a","output":"x"}\n{"i":0,"output":"y"}\n');
    const e2 = await loadExperiment(config('byindex.yaml', '{ replay: { file: byindex.jsonl } }')).catch((x: unknown) => x);
    expect((e2 as Error).message).toMatch(/byindex\.jsonl:2: "input": expected every row to name its input/);
  });
});
