import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { crossValidateGrounding, runGroundingBench, type GroundingBenchResult } from './bench-grounding.js';
import { createLexicalEmbedder } from '../embedders/lexical.js';
import { loadFaithBench, loadWice, scoreItems } from './eval.js';
import { fitThreshold } from './metrics.js';

/**
 * `assay bench grounding` on small labelled sets the test writes in the datasets' own formats: the loaders
 * follow each README's label and split rules, thresholds come from the calibration split only, and tuning
 * (`--cv`) never opens the test split.
 */

let root = '';
const out: string[] = [];

const FACTS = [
  'The Nile flows north into the Mediterranean Sea.',
  'The Eiffel Tower was completed in 1889 in Paris.',
  'Mount Everest is 8,849 metres high.',
  'The Amazon rainforest covers much of Brazil.',
  'Marie Curie won the Nobel Prize in Physics in 1903.',
  'The Great Wall of China is thousands of kilometres long.',
  'Photosynthesis converts light energy into chemical energy.',
  'The Danube passes through Vienna and Budapest.',
];
const DISTRACTOR = 'Local markets sell bread, cheese and fresh fruit every morning.';

/** One WiCE row: a claim, its evidence sentences (an oracle chunk) and a label. */
const wiceRow = (id: string, claim: string, fact: string, label: string) => JSON.stringify({ label, claim, evidence: [DISTRACTOR, fact], meta: { id } });

/** Supported: the fact itself, written a little differently. Unsupported: a changed year or name, or another topic. */
function wiceSplit(prefix: string, seedShift: number): string {
  const rows: string[] = [];
  FACTS.forEach((fact, i) => {
    const j = (i + seedShift) % FACTS.length;
    rows.push(wiceRow(`${prefix}${i}a`, FACTS[j].replace(/\.$/, ', as records show.'), FACTS[j], 'supported'));
    rows.push(wiceRow(`${prefix}${i}a`, FACTS[j].replace(/\.$/, ', as records show.'), `${DISTRACTOR} ${FACTS[j]}`, 'supported'));
    const wrong = i % 2 ? FACTS[j].replace(/\d{4}/, '1777').replace(/Paris|Brazil|Vienna|Physics/, 'Madrid') : FACTS[(j + 3) % FACTS.length];
    rows.push(
      wiceRow(`${prefix}${i}b`, wrong === FACTS[j] ? 'Submarines dive under the polar ice.' : wrong, FACTS[j], i % 3 ? 'not_supported' : 'partially_supported'),
    );
  });
  return rows.join('\n') + '\n';
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assay-bench-grounding-'));
  await mkdir(join(root, 'wice', 'oracle_chunks', 'claim'), { recursive: true });
  await writeFile(join(root, 'wice', 'oracle_chunks', 'claim', 'dev.jsonl'), wiceSplit('dev', 0));
  await writeFile(join(root, 'wice', 'oracle_chunks', 'claim', 'test.jsonl'), wiceSplit('test', 3));
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

describe('WiCE', () => {
  it('groups rows by meta.id, counts "supported" as supported and the other two labels as unsupported', async () => {
    const items = await loadWice(join(root, 'wice'));
    expect(items.filter((i) => i.split === 'calibration')).toHaveLength(16);
    expect(items.filter((i) => i.split === 'test')).toHaveLength(16);
    const first = items.find((i) => i.id === 'dev0a');
    expect(first?.documents).toHaveLength(2);
    expect(first?.unsupported).toBe(false);
    expect(items.find((i) => i.id === 'dev0b')?.unsupported).toBe(true); // partially_supported
    expect(items.find((i) => i.id === 'dev1b')?.unsupported).toBe(true); // not_supported
  });

  it('prints n, BA, precision, recall and F1 with intervals, and the thresholds, fitted on the calibration split only', async () => {
    out.length = 0;
    const json = join(root, 'wice.json');
    expect(await main(['bench', 'grounding', '--dataset', 'wice', '--data', join(root, 'wice'), '--json', json])).toBe(0);
    const text = out.join('');
    for (const name of ['balanced_accuracy', 'precision', 'recall', 'f1'])
      expect(text).toMatch(new RegExp(`${name} \\d\\.\\d{3} \\[\\d\\.\\d{3}, \\d\\.\\d{3}\\]`));
    expect(text).toMatch(/n 16 {2}balanced_accuracy/);
    expect(text).toMatch(/threshold \d\.\d{3} \(fitted on the calibration split\)/);
    const r = JSON.parse(await readFile(json, 'utf8')) as GroundingBenchResult;
    expect(r.splits).toMatchObject({ calibration: 16, test: 16 });
    // the reported threshold is the one that maximises BA on the calibration items, whatever the test items say
    const calib = (await loadWice(join(root, 'wice'))).filter((i) => i.split === 'calibration');
    const scores = await scoreItems(calib, createLexicalEmbedder(), { details: 'count' });
    const after = r.variants.find((v) => v.details === 'count');
    expect(after?.thresholds.weak).toBe(
      fitThreshold(
        scores.map((s) => s.effective),
        scores.map((s) => s.unsupported),
      ).threshold,
    );
    const testItems = (await loadWice(join(root, 'wice'))).filter((i) => i.split === 'test');
    const testScores = await scoreItems(testItems, createLexicalEmbedder(), { details: 'count' });
    // precondition that makes the check above discriminating: fitting on the test split would give another threshold
    expect(
      fitThreshold(
        testScores.map((s) => s.effective),
        testScores.map((s) => s.unsupported),
      ).threshold,
    ).not.toBe(after?.thresholds.weak);
    expect(after?.test.n).toBe(16);
    expect(after?.test.balanced_accuracy.value).toBeGreaterThan(0.7); // wrong years and names are caught
  });

  it('cross-validates inside the calibration split without ever reading the test split', async () => {
    const dir = join(root, 'wice-cv');
    await mkdir(join(dir, 'oracle_chunks', 'claim'), { recursive: true });
    await writeFile(join(dir, 'oracle_chunks', 'claim', 'dev.jsonl'), wiceSplit('dev', 0));
    await writeFile(join(dir, 'oracle_chunks', 'claim', 'test.jsonl'), 'not json at all\n');
    const cv = await crossValidateGrounding('wice', dir, createLexicalEmbedder(), 4);
    expect(cv.n).toBe(16);
    expect(cv.variants.map((v) => v.per_fold.length)).toEqual([4, 4]);
    await expect(runGroundingBench('wice', dir, createLexicalEmbedder())).rejects.toThrow(/test\.jsonl line 1: not valid JSON/);
    out.length = 0;
    expect(await main(['bench', 'grounding', '--dataset', 'wice', '--data', dir, '--cv', '4'])).toBe(0);
    expect(out.join('')).toMatch(/4-fold cross-validation on the calibration split \(16 items\)/);
  });
});

describe('FaithBench', () => {
  it('labels a summary hallucinated when any annotation is Unwanted*, and splits by sha256 of the source', async () => {
    const dir = join(root, 'faithbench');
    await mkdir(join(dir, 'data_for_release'), { recursive: true });
    const sources = FACTS.slice(0, 5).map((f, i) => `${f} ${DISTRACTOR} Document ${i}.`);
    const labels = [['Unwanted.Intrinsic'], ['Questionable'], ['Benign'], ['Unwanted'], []];
    const samples = sources.flatMap((source, s) =>
      [0, 1].map((k) => ({
        sample_id: s * 2 + k,
        source,
        summary: k ? FACTS[s] : `${FACTS[s]} It was moved in 1999.`,
        annotations: k || !labels[s].length ? [] : [{ label: labels[s], summary_span: 'x', summary_start: 0, summary_end: 1 }],
      })),
    );
    await writeFile(join(dir, 'data_for_release', 'batch_1.json'), JSON.stringify({ samples }));
    const items = await loadFaithBench(dir);
    expect(items.filter((i) => i.unsupported).map((i) => i.id)).toEqual(['batch_1.json:0', 'batch_1.json:6']);
    const bySha = [...sources].sort((a, b) =>
      createHash('sha256').update(`faithbench:${a}`).digest('hex') < createHash('sha256').update(`faithbench:${b}`).digest('hex') ? -1 : 1,
    );
    const calibration = new Set(bySha.slice(0, 3));
    for (const it of items) expect(it.split).toBe(calibration.has(it.documents[0]) ? 'calibration' : 'test');
    await writeFile(join(dir, 'data_for_release', 'batch_2.json'), '{"samples": [{"source": 3}]}');
    await expect(loadFaithBench(dir)).rejects.toThrow(/batch_2\.json field "samples\[0\]\.source"/);
  });
});
