import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { startMock } from '../../mock/index.js';
import { loadMockRules, mockResponder } from '../../mock/rules.js';
import type { MockServer } from '../../mock/types.js';
import type { GroundingBenchResult } from './bench-grounding.js';
import { writeTinyNliModel } from '../checkers/testing/tiny-nli.js';

/**
 * `assay bench grounding --checker …` measures a claim checker the same way as the detector alone: the checker's
 * verdict joins the one status function, the threshold is fitted on the calibration split, the figures come from the
 * test split, and items the checker could not decide are counted and left out. MiniCheck runs against the mock
 * Ollama server answering from a rules file (what `assay mock --provider ollama --rules` serves).
 */

let root = '';
let ollama: MockServer;
const out: string[] = [];
const FACTS = [
  'The Nile flows north into the Mediterranean Sea.',
  'The Eiffel Tower was completed in 1889 in Paris.',
  'Mount Everest is 8,849 metres high.',
  'Marie Curie won the Nobel Prize in Physics in 1903.',
  'Photosynthesis converts light energy into chemical energy.',
  'The Danube passes through Vienna and Budapest.',
];
const DISTRACTOR = 'Local markets sell bread, cheese and fresh fruit every morning.';
// supported: the fact with a paraphrased tail; unsupported: a statement the evidence never makes, in the fact's words
const rows = (prefix: string) =>
  FACTS.flatMap((fact, i) => [
    JSON.stringify({ label: 'supported', claim: fact.replace(/\.$/, ', as the records show.'), evidence: [DISTRACTOR, fact], meta: { id: `${prefix}${i}a` } }),
    JSON.stringify({
      label: 'not_supported',
      claim: fact.replace(/\.$/, ', but few people believe it.'),
      evidence: [DISTRACTOR, fact],
      meta: { id: `${prefix}${i}b` },
    }),
  ]).join('\n') + '\n';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-bench-checker-'));
  await mkdir(join(root, 'wice', 'oracle_chunks', 'claim'), { recursive: true });
  await writeFile(join(root, 'wice', 'oracle_chunks', 'claim', 'dev.jsonl'), rows('dev'));
  await writeFile(join(root, 'wice', 'oracle_chunks', 'claim', 'test.jsonl'), rows('test'));
  await writeFile(
    join(root, 'rules.yaml'),
    [
      '- { regex: "Claim: Mount Everest", status: 500 }',
      '- { regex: "Claim: .*as the records show", reply: "Yes" }',
      '- { regex: "Claim: ", reply: "No" }',
    ].join('\n'),
  );
  const respond = mockResponder({ rules: loadMockRules(join(root, 'rules.yaml')) });
  ollama = await startMock('ollama', { chat: respond });
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await ollama?.close();
  await rm(root, { recursive: true, force: true });
});

describe('assay bench grounding --checker', () => {
  it('adds the checker as a variant measured the same way; undecided items are counted and left out', async () => {
    out.length = 0;
    const json = join(root, 'r.json');
    const args = ['bench', 'grounding', '--dataset', 'wice', '--data', join(root, 'wice'), '--json', json];
    expect(await main([...args, '--checker', 'minicheck', '--checker-url', ollama.url])).toBe(0);
    const r = JSON.parse(await readFile(json, 'utf8')) as GroundingBenchResult;
    const [after, checked] = [r.variants.find((v) => v.name.startsWith('after:'))!, r.variants.find((v) => v.checker)!];
    expect(checked).toMatchObject({ checker: 'minicheck:ollama:bespoke-minicheck', details: 'count', errors: { calibration: 2, test: 2 } });
    expect(checked.test.n).toBe(10);
    // the words are the evidence's in both kinds of claim: similarity and details cannot tell them apart, the checker can
    expect(checked.test.balanced_accuracy.value).toBe(1);
    expect(after.test.balanced_accuracy.value).toBeLessThan(1);
    expect(out.join('')).toMatch(/after \+ claim checker minicheck:ollama:bespoke-minicheck: threshold/);
    expect(out.join('')).toMatch(/items the checker could not decide \(left out\): calibration 2, test 2/);
  }, 120_000);

  it('measures a local NLI / fact-checking classifier (the tiny ONNX graph) the same way: --checker nli:<dir>', async () => {
    const dir = await writeTinyNliModel(join(root, 'nli'), { neutral: ['believe'] });
    const json = join(root, 'nli.json');
    expect(await main(['bench', 'grounding', '--dataset', 'wice', '--data', join(root, 'wice'), '--json', json, '--checker', `nli:${dir}`])).toBe(0);
    const checked = (JSON.parse(await readFile(json, 'utf8')) as GroundingBenchResult).variants.find((v) => v.checker)!;
    expect(checked).toMatchObject({ checker: 'nli:nli', errors: { calibration: 0, test: 0 } });
    expect(checked.test.n).toBe(12);
    expect(checked.test.balanced_accuracy.value).toBe(1);
  }, 120_000);

  it('names the flag it cannot use (exit 2)', async () => {
    const args = ['bench', 'grounding', '--dataset', 'wice', '--data', join(root, 'wice')];
    for (const [extra, message] of [
      [['--checker', 'bert'], /--checker: expected minicheck, minicheck:<model>, judge:<file> or nli:<dir>, found "bert"/],
      [['--checker', 'judge:'], /--checker: expected/],
      [['--checker-url', ollama.url], /--checker-url needs --checker minicheck/],
      [['--checker', 'nli:models/none', '--checker-url', ollama.url], /--checker-url needs --checker minicheck/],
    ] as const) {
      out.length = 0;
      expect(await main([...args, ...extra]), extra.join(' ')).toBe(2);
      expect(out.join(''), extra.join(' ')).toMatch(message);
    }
  });
});
