import { describe, expect, it } from 'vitest';
import { loadExperiment } from '../config/load.js';
import { loadInputsFile } from '../config/inputs.js';
import { readAnswersFile } from '../ground/ci.js';
import { parseGrades } from '../grades/io.js';
import { loadMockRules } from '../mock/rules.js';
import { readProviderFile } from '../providers/provider-file.js';
import { loadReplayFile } from '../providers/replay.js';
import { readData } from '../spade/io.js';
import { useConfigDir } from './testing/config-dir.js';

/**
 * Issue 30, item 2: a text file saved with a byte-order mark (Windows editors, Excel's "UTF-8 CSV") is read
 * like the same file without one, by every reader of text assay has: answers, inputs, grades, configs,
 * replays, provider files, SPADE's data, the mock's rules.
 */
const tmp = useConfigDir('assay-bom-');
const BOM = '\uFEFF';

describe('a byte-order mark is accepted in every text input', () => {
  it('answers (JSONL)', () => {
    const file = tmp.config('answers.jsonl', `${BOM}{"query": "When did it open?", "answer": "It opened in 1990."}\n`);
    expect(readAnswersFile(file, { generate: false })).toEqual([{ id: 'line 1', line: 1, query: 'When did it open?', answer: 'It opened in 1990.' }]);
  });

  it('configs (YAML and JSON) and their inputs files (JSONL, CSV, text)', async () => {
    const config = {
      name: 'bom',
      system: { simulated: { seed: 1, outputs: [{ text: 'fine' }] } },
      inputs: ['a'],
      samples: 2,
      validators: [{ name: 'v', message: 'm', predicate: 'o => o.length > 0', minSuccess: 0.5 }],
    };
    const json = tmp.config('c.json', BOM + JSON.stringify(config));
    expect((await loadExperiment(json)).name).toBe('bom');
    // JSON is YAML: the same document as a .yaml file.
    expect((await loadExperiment(tmp.config('c.yaml', `${BOM}${JSON.stringify(config)}`))).name).toBe('bom');
    const from = { configFile: 'c.yaml', field: 'inputs' };
    expect(loadInputsFile(tmp.config('in.jsonl', `${BOM}"a"\n"b"\n`), tmp.dir(), from)).toEqual(['a', 'b']);
    expect(loadInputsFile(tmp.config('in.txt', `${BOM}a\nb\n`), tmp.dir(), from)).toEqual(['a', 'b']);
  });

  it('grades (JSONL and CSV)', () => {
    const line = '{"input": 0, "sample": 0, "rule": "r", "grade": "pass", "grader": "a"}';
    expect(parseGrades(BOM + line, 'g.jsonl', 'jsonl')).toHaveLength(1);
    expect(parseGrades(`${BOM}input,sample,rule,grade,grader\n0,0,r,pass,a\n`, 'g.csv', 'csv')).toHaveLength(1);
  });

  it('replays, provider files, SPADE data and mock rules', async () => {
    expect(loadReplayFile(tmp.config('r.jsonl', `${BOM}{"input": "a", "output": "b"}\n`))).toHaveLength(1);
    expect(loadReplayFile(tmp.config('r.csv', `${BOM}input,output\na,b\n`))).toHaveLength(1);
    expect(await readProviderFile(tmp.config('p.json', `${BOM}{"ollama": {"model": "m"}}`), '--llm')).toEqual({ ollama: { model: 'm' } });
    expect(await readProviderFile(tmp.config('p.yaml', `${BOM}ollama:\n  model: m\n`), '--llm')).toEqual({ ollama: { model: 'm' } });
    expect(await readData(tmp.config('d.jsonl', `${BOM}{"a": 1}\n{"a": 2}\n`))).toEqual([{ a: 1 }, { a: 2 }]);
    expect(await readData(tmp.config('d.json', `${BOM}{"a": 1}`))).toEqual({ a: 1 });
    expect(loadMockRules(tmp.config('rules.jsonl', `${BOM}{"reply": "hi"}\n`))).toHaveLength(1);
    expect(loadMockRules(tmp.config('rules.yaml', `${BOM}- reply: hi\n`))).toHaveLength(1);
  });
});
