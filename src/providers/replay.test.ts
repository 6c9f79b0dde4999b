import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { CONTRACT_CONCURRENCY, CONTRACT_INPUTS, systemContract } from './contract.case.js';
import { ReplaySystem, loadReplayFile } from './replay.js';
import { ProviderError } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;

// Recordings for the contract's inputs: CONTRACT_CONCURRENCY samples of the string input, one of the object input.
const rows = [
  ...Array.from({ length: CONTRACT_CONCURRENCY }, (_, j) => ({ input: CONTRACT_INPUTS.string, output: `recorded ${j}: ${CONTRACT_INPUTS.string}` })),
  { input: { ...CONTRACT_INPUTS.object }, output: `recorded: ${CONTRACT_INPUTS.object.text}` },
];
const jsonl = write('contract.jsonl', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
// In CSV the object input is its JSON text; outputs carry commas, quotes and newlines to exercise quoting.
const csv = write(
  'contract.csv',
  'input,output\n' +
    rows
      .map((r) => `${csvCell(typeof r.input === 'string' ? r.input : JSON.stringify(r.input))},${csvCell(`${r.output}, "quoted",\nsecond line`)}`)
      .join('\n') +
    '\n',
);
// Failing fixtures record only the object input, so the string input has no recording.
const onlyObject = write('only-object.jsonl', JSON.stringify(rows[rows.length - 1]) + '\n');

systemContract('replay (JSONL)', ({ delayMs, failing }) => new ReplaySystem({ file: failing ? onlyObject : jsonl, latencyMs: delayMs }));
systemContract('replay (CSV)', ({ delayMs, failing }) => new ReplaySystem({ file: failing ? onlyObject : csv, latencyMs: delayMs }));

const signal = () => new AbortController().signal;

function usageError(name: string, text: string): UsageError {
  const file = write(name, text);
  try {
    loadReplayFile(file);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('ReplaySystem', () => {
  it('sample j of an input is its j-th recording, in file order', async () => {
    const file = write('order.jsonl', ['{"input":"a","output":"a0"}', '{"input":"b","output":"b0"}', '{"input":"a","output":"a1"}'].join('\n'));
    const s = new ReplaySystem({ file });
    expect((await s.generate('a', { signal: signal(), inputIndex: 0, sample: 0 })).text).toBe('a0');
    expect((await s.generate('a', { signal: signal(), inputIndex: 0, sample: 1 })).text).toBe('a1');
    expect((await s.generate('b', { signal: signal(), inputIndex: 1, sample: 0 })).text).toBe('b0');
    expect(s.recordedInputs()).toEqual(['a', 'b']);
  });

  it('matches object inputs whatever their key order', async () => {
    const file = write('obj.jsonl', '{"input":{"b":2,"a":1},"output":"yes"}\n');
    const s = new ReplaySystem({ file });
    expect((await s.generate({ a: 1, b: 2 }, { signal: signal(), inputIndex: 5, sample: 0 })).text).toBe('yes');
  });

  it('matches by i and j, and by i alone in order; reports recorded latency', async () => {
    const file = write('idx.csv', 'i,j,output,latencyMs\n1,1,second,12\n1,0,first,\n0,,zero-a,\n0,,zero-b,\n');
    const s = new ReplaySystem({ file });
    const at = (i: number, j: number) => s.generate('ignored', { signal: signal(), inputIndex: i, sample: j });
    expect((await at(1, 0)).text).toBe('first');
    const g = await at(1, 1);
    expect([g.text, g.latencyMs]).toEqual(['second', 12]);
    expect((await at(0, 0)).text).toBe('zero-a');
    expect((await at(0, 1)).text).toBe('zero-b');
  });

  it('parses CSV quotes, embedded commas and newlines', () => {
    const file = write('q.csv', 'input,output\n"a, b","line 1\nline ""2"""\nplain,x\n');
    expect(loadReplayFile(file).map((r) => [r.input, r.output, r.line])).toEqual([
      ['a, b', 'line 1\nline "2"', 2],
      ['plain', 'x', 4],
    ]);
  });

  it('a missing recording is ProviderError invalid_response naming the input and its count (the same for every missing sample)', async () => {
    const file = write('short.jsonl', '{"input":"a","output":"a0"}\n');
    const s = new ReplaySystem({ file });
    const e = (await s.generate('a', { signal: signal(), inputIndex: 2, sample: 3 }).catch((err: unknown) => err)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe('invalid_response');
    expect(e.message).toMatch(/input #3 \("a"\): the file has only 1 recording of it/); // inputIndex 2: the third input
    const next = (await s.generate('a', { signal: signal(), inputIndex: 2, sample: 4 }).catch((err: unknown) => err)) as ProviderError;
    expect(next.message).toBe(e.message);
    const none = (await s.generate('zzz', { signal: signal(), inputIndex: 0, sample: 0 }).catch((err: unknown) => err)) as ProviderError;
    expect(none.message).toContain('no recording for this input');
  });

  it('JSONL line errors name file and line', () => {
    const bad = usageError('bad.jsonl', '{"input":"a","output":"x"}\n\n{"input": "b", "output": \n');
    expect(bad.message).toMatch(/bad\.jsonl:3: expected a JSON object, found invalid JSON/);
    expect(bad.where?.line).toBe(3);
    expect(usageError('arr.jsonl', '[1,2]\n').message).toMatch(/arr\.jsonl:1: expected a JSON object, found an array/);
    expect(usageError('noout.jsonl', '{"input":"a"}\n').message).toMatch(/noout\.jsonl:1: expected a field "output"/);
    expect(usageError('num.jsonl', '{"input":"a","output":5}\n').message).toMatch(/num\.jsonl:1: "output": expected a string, found number 5/);
    expect(usageError('nokey.jsonl', '{"output":"x"}\n').message).toMatch(/nokey\.jsonl:1: expected a field "input" or an index "i"/);
    expect(usageError('negi.jsonl', '{"i":-1,"output":"x"}\n').message).toMatch(/negi\.jsonl:1: "i": expected a non-negative integer/);
    expect(usageError('jonly.jsonl', '{"j":1,"input":"a","output":"x"}\n').message).toMatch(/jonly\.jsonl:1: "j" is given without "i"/);
  });

  it('CSV errors name file and line', () => {
    expect(usageError('cols.csv', 'input,output\na,b\nc,d,e\n').message).toMatch(/cols\.csv:3: malformed CSV/);
    expect(usageError('quote.csv', 'input,output\na,b\n"open,c\n').message).toMatch(/quote\.csv:\d+: malformed CSV.*[Qq]uote/);
    expect(usageError('header.csv', 'prompt,answer\na,b\n').message).toMatch(
      /header\.csv:1: expected a header row with an "output" column, found columns "prompt", "answer"/,
    );
    expect(usageError('badi.csv', 'i,output\n0,a\nx,b\n').message).toMatch(/badi\.csv:3: "i": expected a non-negative integer index, found the string "x"/);
  });

  it('a duplicate (i, j) names both lines; unknown extensions and missing files are usage errors', () => {
    const dup = write('dup.jsonl', '{"i":0,"j":0,"output":"a"}\n{"i":0,"j":0,"output":"b"}\n');
    expect(() => new ReplaySystem({ file: dup })).toThrow(/dup\.jsonl:2: a second recording for i=0, j=0 \(the first is on line 1\)/);
    expect(usageError('log.txt', 'x').message).toMatch(/log\.txt: expected a replay file ending in \.jsonl, \.ndjson or \.csv, found "\.txt"/);
    expect(() => loadReplayFile(join(dir, 'absent.jsonl'))).toThrow(/absent\.jsonl: cannot read the replay file \(ENOENT\)/);
  });
});
