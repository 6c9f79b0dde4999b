import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTinyClassifier } from '../../embedders/tiny-onnx.js';

/** The vendored MiniLM (BERT) tokenizer the tiny models use (test fixture, Apache-2.0). */
export const TOKENIZER_FIXTURE = join(import.meta.dirname, '..', '..', 'embedders', 'testing', 'all-MiniLM-L6-v2');

/**
 * Tests only: writes an NLI model folder (transformers.js layout, real BERT tokenizer, a tiny ONNX classifier)
 * whose verdicts are chosen by words: the label order is that of cross-encoder/nli-deberta-v3-* (contradiction,
 * entailment, neutral); a word in `contradict` pushes contradiction, one in `neutral` pushes neutral, and
 * anything else is entailed. Returns the folder.
 */
export async function writeTinyNliModel(dir: string, words: { contradict?: string[]; neutral?: string[] } = {}): Promise<string> {
  const t = await import('@huggingface/transformers');
  const saved = t.env.localModelPath;
  t.env.localModelPath = `${join(TOKENIZER_FIXTURE, '..')}/`;
  const tok = await t.AutoTokenizer.from_pretrained('all-MiniLM-L6-v2', { local_files_only: true });
  t.env.localModelPath = saved;
  const rows: Record<number, number[]> = { 101: [0, 2, 0] }; // [CLS]: entailed unless a chosen word says otherwise
  for (const w of words.contradict ?? []) for (const id of tok.encode(w, { add_special_tokens: false })) rows[id] = [8, 0, 0];
  for (const w of words.neutral ?? []) for (const id of tok.encode(w, { add_special_tokens: false })) rows[id] = [0, 0, 8];
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(TOKENIZER_FIXTURE, f), join(dir, f));
  const config = { model_type: 'bert', architectures: ['BertForSequenceClassification'], id2label: { 0: 'contradiction', 1: 'entailment', 2: 'neutral' } };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), buildTinyClassifier(30522, 3, rows).onnx);
  return dir;
}
