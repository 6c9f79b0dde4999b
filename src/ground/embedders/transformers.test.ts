import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../kb/chunk.js';
import { embedderContract } from './contract.case.js';
import { buildTinyBert } from './tiny-onnx.js';
import { createTransformersEmbedder, type TransformersEmbedder } from './transformers.js';

// The real all-MiniLM-L6-v2 tokenizer and config (vendored as a test fixture with its Apache-2.0 licence; no
// weights), with a tiny ONNX model of BERT's interface built by the test: the whole path tokenizer → session →
// pooling → normalisation runs.
const FIXTURE = join(import.meta.dirname, 'testing', 'all-MiniLM-L6-v2');
const root = mkdtempSync(join(tmpdir(), 'assay-tiny-bert-'));
const modelDir = join(root, 'tiny-minilm');
mkdirSync(join(modelDir, 'onnx'), { recursive: true });
for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(FIXTURE, f), join(modelDir, f));
const tiny = buildTinyBert(30522, 8);
writeFileSync(join(modelDir, 'onnx', 'model.onnx'), tiny.onnx);
afterAll(() => rmSync(root, { recursive: true, force: true }));

let shared: Promise<TransformersEmbedder> | undefined;
const make = () => (shared ??= createTransformersEmbedder({ model: 'tiny-minilm', modelDir: root, maxTokens: 256 }));

embedderContract('transformers (tiny ONNX BERT, real MiniLM tokenizer)', make);

describe('transformers embedder', () => {
  it('computes mean pooling over the attention mask and L2 normalisation of the model output', async () => {
    const e = await make();
    const texts = ['Paris', 'The Eiffel Tower is in Paris, France.'];
    const got = await e.embed(texts);
    // Expected: [CLS] ids [SEP] from the real vocabulary (101/102), rows of the word table plus type row 0, averaged, normalised.
    const ids: Record<string, number[]> = { Paris: [101, 3000, 102] };
    for (const [i, text] of texts.entries()) {
      const tokenIds = ids[text] ?? [101, ...(await tokenIdsOf(e, text)), 102];
      const want = new Float64Array(8);
      for (const id of tokenIds) for (let j = 0; j < 8; j++) want[j] += tiny.word[id * 8 + j] + tiny.type[j];
      const norm = Math.hypot(...want);
      for (let j = 0; j < 8; j++) expect(got[i * 8 + j]).toBeCloseTo(want[j] / norm, 5);
    }
  });

  it('pads a batch without the padding changing any row', async () => {
    const e = await make();
    const short = await e.embed(['short']);
    const batch = await e.embed(['short', 'a much longer sentence that forces padding of the short one in the batch']);
    for (let j = 0; j < 8; j++) expect(batch[j]).toBeCloseTo(short[j], 6);
  });

  it('counts word pieces with the real tokenizer and truncates at maxTokens', async () => {
    const e = await make();
    expect(e.countTokens('unbelievably')).toBeGreaterThan(1); // split into word pieces
    const long = Array.from({ length: 400 }, (_, i) => `word${i % 5}`).join(' ');
    const t256 = await e.embed([long]);
    const cut = await e.embed([long.split(' ').slice(0, 600).join(' ')]);
    expect(Array.from(t256)).toEqual(Array.from(cut)); // beyond 256 pieces nothing changes
    expect(e.spec()).toMatchObject({ kind: 'transformers', id: 'transformers:tiny-minilm', dimension: 8, settings: { maxTokens: 256, pooling: 'mean' } });
  });

  it('chunks a document into 500–700 word pieces with 10–15% overlap', async () => {
    const e = await make();
    const text = Array.from({ length: 300 }, (_, i) => `Sentence ${i} mentions photosynthesis and chlorophyll ${i}.`).join(' ');
    const { chunks } = chunkDocument(text, (s) => e.countTokens(s));
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks.slice(0, -1)) {
      expect(e.countTokens(text.slice(c.start, c.end))).toBe(c.tokens);
      expect(c.tokens).toBeGreaterThanOrEqual(500);
      expect(c.tokens).toBeLessThanOrEqual(700);
    }
    for (let i = 1; i < chunks.length; i++) {
      const shared = e.countTokens(text.slice(chunks[i].start, chunks[i - 1].end)) / chunks[i - 1].tokens;
      expect(shared).toBeGreaterThanOrEqual(0.1);
      expect(shared).toBeLessThanOrEqual(0.15);
    }
  });

  it('fails with a clear message when the model is missing in offline mode', async () => {
    await expect(createTransformersEmbedder({ model: 'no-such-model', modelDir: root })).rejects.toThrow(
      /could not load embedding model "no-such-model".*offline/,
    );
  });
});

async function tokenIdsOf(e: TransformersEmbedder, text: string): Promise<number[]> {
  // The tokenizer is private; read the ids through the public countTokens-compatible path of transformers.js.
  const t = await import('@huggingface/transformers');
  const tok = await t.AutoTokenizer.from_pretrained('tiny-minilm', { local_files_only: true });
  const ids = tok.encode(text, { add_special_tokens: false });
  expect(ids.length).toBe(e.countTokens(text));
  return ids;
}
