import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { buildTinyClassifier, type TinyClassifier } from '../embedders/tiny-onnx.js';
import { checkOfLogits, createNliChecker, labelLayout, verdictOfLabel } from './nli.js';
import type { ClaimChecker } from './types.js';

// The real MiniLM (BERT) tokenizer, vendored as a test fixture, with a tiny sequence-pair classifier the test
// builds (logits = the sum of per-token rows): the whole path folder → tokenizer (pairs) → ONNX session → labels runs.
const FIXTURE = join(import.meta.dirname, '..', 'embedders', 'testing', 'all-MiniLM-L6-v2');
const root = mkdtempSync(join(tmpdir(), 'assay-tiny-nli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Tok = {
  (a: string[], o: Record<string, unknown>): { input_ids: { data: BigInt64Array }; token_type_ids: { data: BigInt64Array } };
  encode(t: string, o?: Record<string, unknown>): number[];
};
let tok: Tok;

/** A model folder in the transformers.js layout with `id2label` and the tiny classifier's weights. */
function modelFolder(name: string, id2label: Record<string, string> | undefined, model: TinyClassifier, extra: Record<string, unknown> = {}): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(FIXTURE, f), join(dir, f));
  const config = { model_type: 'bert', architectures: ['BertForSequenceClassification'], ...(id2label ? { id2label } : {}), ...extra };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), model.onnx);
  return dir;
}

/** The logits the tiny model must give for a pair, summed by hand from the tokenizer's ids and segments. */
function expectedLogits(m: TinyClassifier, premise: string, hypothesis: string): number[] {
  const enc = tok([premise], { text_pair: [hypothesis] });
  const ids = Array.from(enc.input_ids.data, Number);
  const types = Array.from(enc.token_type_ids.data, Number);
  const out = new Array<number>(m.labels).fill(0);
  ids.forEach((id, t) => {
    for (let j = 0; j < m.labels; j++) out[j] += m.word[id * m.labels + j] + m.type[types[t] * m.labels + j];
  });
  return out;
}

const softmax = (x: number[]) => {
  const e = x.map((v) => Math.exp(v - Math.max(...x)));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};

let nli3: TinyClassifier;
let checker: ClaimChecker;
beforeAll(async () => {
  const t = await import('@huggingface/transformers');
  t.env.localModelPath = `${join(FIXTURE, '..')}/`;
  tok = (await t.AutoTokenizer.from_pretrained('all-MiniLM-L6-v2', { local_files_only: true })) as unknown as Tok;
  const id = (w: string) => tok.encode(w, { add_special_tokens: false })[0];
  // cross-encoder/nli-deberta-v3-* order: contradiction, entailment, neutral. "not" pushes contradiction, [CLS] entailment, "purple" neutral.
  nli3 = buildTinyClassifier(30522, 3, { [id('not')]: [6, 0, 0], 101: [0, 2, 0], [id('purple')]: [0, 0, 6], [id('filler')]: [0, 0, 0] });
  checker = await createNliChecker({ dir: modelFolder('tiny-nli', { 0: 'contradiction', 1: 'entailment', 2: 'neutral' }, nli3), label: '--nli-model' });
});

describe('NLI claim checker (tiny ONNX classifier, real BERT tokenizer)', () => {
  it('scores each premise–hypothesis pair through the session, labels by id2label, probabilities by softmax', async () => {
    const items = [
      { claim: 'The router supports 5G.', evidence: 'The X200 router supports 5G and Wi-Fi 6.', query: 'q' },
      { claim: 'The router does not support 5G.', evidence: 'The X200 router supports 5G and Wi-Fi 6.', query: 'q' },
      { claim: 'The router is purple.', evidence: 'The X200 router supports 5G and Wi-Fi 6.', query: 'q' },
    ];
    const { checks } = await checker.check(items);
    expect(checks.map((c) => ('verdict' in c ? c.verdict : c.error))).toEqual(['entailed', 'contradicted', 'neutral']);
    items.forEach((x, i) => {
      const p = softmax(expectedLogits(nli3, x.evidence, x.claim));
      expect((checks[i] as { score: number }).score).toBeCloseTo(p[1], 5); // entailment is label 1 in this model
    });
    expect(checker).toMatchObject({ id: 'nli:tiny-nli', kind: 'nli' });
  });

  it('pads a batch without the padding changing any pair, and batches beyond batchSize', async () => {
    const one = await checker.check([{ claim: 'Short.', evidence: 'Short evidence.', query: '' }]);
    const many = await checker.check(
      Array.from({ length: 11 }, (_, i) => ({
        claim: i === 0 ? 'Short.' : `A longer claim number ${i} that pads the first.`,
        evidence: 'Short evidence.',
        query: '',
      })),
    );
    expect(many.checks).toHaveLength(11);
    expect((many.checks[0] as { score: number }).score).toBeCloseTo((one.checks[0] as { score: number }).score, 6);
  });

  it('cuts a long premise so that the claim is always read whole', async () => {
    const evidence = Array.from({ length: 900 }, () => 'filler').join(' ');
    const { checks } = await checker.check([{ claim: 'It does not hold.', evidence, query: '' }]);
    expect((checks[0] as { verdict: string }).verdict).toBe('contradicted'); // "not" sits in the claim, after 900 words of evidence
  });

  it('reads one-logit (consistency score) and entailment/not_entailment models', async () => {
    const id = (w: string) => tok.encode(w, { add_special_tokens: false })[0];
    const hhem = buildTinyClassifier(30522, 1, { [id('not')]: [-8], 101: [3] });
    const score = await createNliChecker({ dir: modelFolder('tiny-hhem', { 0: 'consistent' }, hhem) });
    const r = await score.check([
      { claim: 'It holds.', evidence: 'It holds.', query: '' },
      { claim: 'It does not hold.', evidence: 'It holds.', query: '' },
    ]);
    const p0 = 1 / (1 + Math.exp(-expectedLogits(hhem, 'It holds.', 'It holds.')[0]));
    expect(r.checks[0]).toMatchObject({ verdict: 'entailed' });
    expect((r.checks[0] as { score: number }).score).toBeCloseTo(p0, 5);
    expect(r.checks[1]).toMatchObject({ verdict: 'neutral' });
    const binary = buildTinyClassifier(30522, 2, { [id('not')]: [0, 8], 101: [2, 0] });
    const two = await createNliChecker({ dir: modelFolder('tiny-binary', { 0: 'entailment', 1: 'not_entailment' }, binary) });
    const b = await two.check([
      { claim: 'It holds.', evidence: 'It holds.', query: '' },
      { claim: 'It does not hold.', evidence: 'It holds.', query: '' },
    ]);
    expect(b.checks.map((c) => (c as { verdict: string }).verdict)).toEqual(['entailed', 'neutral']);
  });

  it('refuses, naming the flag and the file, a missing folder or file, unknown labels and a model that does not match its labels', async () => {
    await expect(createNliChecker({ dir: join(root, 'nope'), label: '--nli-model' })).rejects.toThrow(
      /--nli-model: expected a folder in the transformers\.js layout.*found nothing at/,
    );
    const noOnnx = modelFolder('no-onnx', { 0: 'entailment', 1: 'neutral', 2: 'contradiction' }, nli3);
    rmSync(join(noOnnx, 'onnx', 'model.onnx'));
    await expect(createNliChecker({ dir: noOnnx, label: '--nli-model' })).rejects.toThrow(/onnx\/model\.onnx is missing/);
    const generic = modelFolder('generic', { 0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2' }, nli3);
    const e = await createNliChecker({ dir: generic }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(
      /config\.json: id2label\.0: expected id2label naming its labels entailment, neutral and contradiction.*found "LABEL_0"/,
    );
    // the config says two labels, the model gives three logits: found by the probe at load, not on the first request
    const mismatch = modelFolder('mismatch', { 0: 'entailment', 1: 'not_entailment' }, nli3);
    await expect(createNliChecker({ dir: mismatch, label: 'validators[0].check.nliModel' })).rejects.toThrow(
      /validators\[0\]\.check\.nliModel: the NLI model .* does not run as a sequence-pair classifier: .*shape \[1, 3\], expected \[1, 2\]/,
    );
  });

  it('never asks the hub: the library is set to local files only while loading, and its settings are restored', async () => {
    const t = await import('@huggingface/transformers');
    t.env.allowRemoteModels = true;
    const before = t.env.localModelPath;
    await createNliChecker({ dir: join(root, 'tiny-nli') });
    expect([t.env.allowRemoteModels, t.env.localModelPath]).toEqual([true, before]);
    // a model name only on the hub is never fetched: the folder must hold it
    await expect(createNliChecker({ dir: join(root, 'Xenova', 'nli-deberta-v3-xsmall') })).rejects.toThrow(/found nothing at/);
  });
});

describe('labels and logits', () => {
  it('maps label names in any case and separator', () => {
    expect(['ENTAILMENT', 'entailment', 'Neutral', 'CONTRADICTION', 'not_entailment', 'not-entailment', 'contradicts', 'LABEL_0'].map(verdictOfLabel)).toEqual([
      'entailed',
      'entailed',
      'neutral',
      'contradicted',
      'neutral',
      'neutral',
      'contradicted',
      undefined,
    ]);
    // a fact-checking classifier's labels (MiniCheck, HHEM-style two-label exports): supported / not supported
    expect(['supported', 'Not Supported', 'unsupported', 'consistent', 'inconsistent', 'hallucinated'].map(verdictOfLabel)).toEqual([
      'entailed',
      'neutral',
      'neutral',
      'entailed',
      'neutral',
      'neutral',
    ]);
    expect(labelLayout({ id2label: { 0: 'not_supported', 1: 'supported' } }, 'c.json')).toEqual({ kind: 'labels', verdicts: ['neutral', 'entailed'] });
    expect(labelLayout({ id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' } }, 'c.json')).toEqual({
      kind: 'labels',
      verdicts: ['entailed', 'neutral', 'contradicted'],
    });
    expect(labelLayout({ num_labels: 1 }, 'c.json')).toEqual({ kind: 'score' });
    expect(() => labelLayout({ id2label: { 0: 'neutral', 1: 'contradiction' } }, 'c.json')).toThrow(/found no entailment label/);
  });

  it('gives the most probable verdict and P(entailment), by hand', () => {
    const layout = { kind: 'labels' as const, verdicts: ['contradicted', 'entailed', 'neutral'] as const };
    const c = checkOfLogits([0, Math.log(3), 0], { ...layout, verdicts: [...layout.verdicts] });
    expect((c as { verdict: string }).verdict).toBe('entailed');
    expect((c as { score: number }).score).toBeCloseTo(0.6, 12); // e^ln3 / (1 + 3 + 1)
    expect(checkOfLogits([0, 0, 0], { ...layout, verdicts: [...layout.verdicts] })).toMatchObject({ verdict: 'contradicted' }); // ties: the cautious verdict
    expect(checkOfLogits([0], { kind: 'score' })).toEqual({ verdict: 'entailed', score: 0.5 });
  });
});
