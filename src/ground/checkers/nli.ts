import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { importOptional, UsageError, thrownMessage } from '../../errors.js';
import type { CheckVerdict, ClaimCheck, ClaimCheckBatch, ClaimCheckItem, ClaimChecker } from './types.js';
import { maxOf, pushAll } from '../../core/arrays.js';

/**
 * The NLI / cross-encoder claim checker: a sequence-pair classifier (a DeBERTa-v3 NLI model, an HHEM-style
 * consistency model) exported to ONNX, read from a local folder only — never downloaded — through
 * @huggingface/transformers (an optional peer, on onnxruntime-node). Each claim is the hypothesis and its best
 * evidence window the premise; the labels come from the model's own config.json (`id2label`), so any order
 * works:
 *
 * - three labels entailment / neutral / contradiction (MNLI-style): the most probable one is the verdict;
 * - two labels entailment / not_entailment: entailed, or not stated;
 * - one logit (HHEM-style consistency score): sigmoid ≥ 0.5 is entailed, else not stated.
 *
 * The folder has the transformers.js layout: config.json, tokenizer.json, tokenizer_config.json and
 * onnx/model.onnx (onnx/model_quantized.onnx with dtype q8).
 */

export interface NliCheckerOptions {
  /** The model folder. */
  dir: string;
  /** Named in error messages: the flag or config field that gave the folder (default "nli model"). */
  label?: string;
  /** ONNX weights: fp32 → onnx/model.onnx (default), q8 → onnx/model_quantized.onnx, fp16 → onnx/model_fp16.onnx. */
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** Word pieces per premise–hypothesis pair, special tokens included (default: the tokenizer's limit, at most 512). */
  maxTokens?: number;
  /** Pairs per model call (default 8). */
  batchSize?: number;
}

type Transformers = typeof import('@huggingface/transformers');

interface PairTokenizer {
  (texts: string[], options: Record<string, unknown>): Record<string, unknown>;
  encode(text: string, options?: Record<string, unknown>): number[];
  decode(ids: number[], options?: Record<string, unknown>): string;
  model_max_length?: number;
}
interface Classifier {
  (inputs: Record<string, unknown>): Promise<{ logits: { data: ArrayLike<number>; dims: number[] } }>;
  dispose?(): Promise<unknown>;
}

/** How the model's outputs read: one logit (a consistency score), or a label per output position. */
export type LabelLayout = { kind: 'score' } | { kind: 'labels'; verdicts: CheckVerdict[] };

const WEIGHTS: Record<NonNullable<NliCheckerOptions['dtype']>, string> = { fp32: 'model.onnx', fp16: 'model_fp16.onnx', q8: 'model_quantized.onnx' };

/**
 * A label name as a verdict: entailment, neutral / not_entailment, contradiction (any case, any separator); a
 * fact-checking classifier's supported / not supported, consistent / inconsistent, hallucinated (never
 * "contradicted": such a model does not tell a conflict from silence).
 */
export function verdictOfLabel(name: string): CheckVerdict | undefined {
  const n = name.toLowerCase().replace(/[^a-z]/g, '');
  if (/^(not|non)entail/.test(n) || /^(notsupport|unsupport|inconsistent|hallucinat)/.test(n)) return 'neutral';
  if (n.startsWith('support') || n === 'consistent') return 'entailed';
  if (n.startsWith('entail')) return 'entailed';
  if (n.startsWith('contradict')) return 'contradicted';
  if (n === 'neutral') return 'neutral';
  return undefined;
}

/** The label layout from a model's config.json; a usage error naming the file says what does not fit. */
export function labelLayout(config: Record<string, unknown>, file: string): LabelLayout {
  const id2label = config.id2label as Record<string, unknown> | undefined;
  const n = id2label ? Object.keys(id2label).length : Number(config.num_labels ?? 0);
  if (n === 1) return { kind: 'score' };
  const expected =
    'expected id2label naming its labels entailment, neutral and contradiction (an NLI model), entailment and not_entailment, or supported and not_supported (a fact-checking classifier), in the order the model was trained with, or a single output (a consistency score)';
  if (!id2label || n < 2) throw new UsageError(`${file}: ${expected}; found ${id2label ? `${n} labels` : 'no id2label'}`, { file, path: 'id2label' });
  const verdicts: CheckVerdict[] = [];
  for (let i = 0; i < n; i++) {
    const name = id2label[String(i)];
    const v = typeof name === 'string' ? verdictOfLabel(name) : undefined;
    if (!v) throw new UsageError(`${file}: id2label.${i}: ${expected}; found ${JSON.stringify(name)}`, { file, path: `id2label.${i}` });
    verdicts.push(v);
  }
  if (!verdicts.includes('entailed')) throw new UsageError(`${file}: id2label: ${expected}; found no entailment label`, { file, path: 'id2label' });
  return { kind: 'labels', verdicts };
}

/** One row of logits as a check: the verdict with the most probability, and the probability of entailment. */
export function checkOfLogits(logits: ArrayLike<number>, layout: LabelLayout): ClaimCheck {
  if (layout.kind === 'score') {
    const p = 1 / (1 + Math.exp(-logits[0]));
    return { verdict: p >= 0.5 ? 'entailed' : 'neutral', score: p };
  }
  const max = maxOf(Array.from(logits));
  const e = Array.from(logits, (x) => Math.exp(x - max));
  const sum = e.reduce((s, x) => s + x, 0);
  const byVerdict: Record<CheckVerdict, number> = { entailed: 0, neutral: 0, contradicted: 0 };
  layout.verdicts.forEach((v, i) => (byVerdict[v] += e[i] / sum));
  // Ties go to the harsher verdict: contradicted, then not stated, then entailed.
  const verdict = (['contradicted', 'neutral', 'entailed'] as const).reduce((best, v) => (byVerdict[v] > byVerdict[best] ? v : best));
  return { verdict, score: byVerdict.entailed };
}

function loadTransformers(): Promise<Transformers> {
  return importOptional('@huggingface/transformers', 'the NLI claim checker', () => import('@huggingface/transformers'), 'or leave out the NLI model');
}

/** Checks the folder before anything loads: each missing file is named, with what belongs there. */
function checkFolder(dir: string, label: string, weights: string): Record<string, unknown> {
  const layout = 'a folder in the transformers.js layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)';
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`${label}: expected ${layout}, found nothing at ${dir}`, { file: dir, path: label });
  }
  if (!isDir) throw new UsageError(`${label}: expected ${layout}, found a file at ${dir}`, { file: dir, path: label });
  for (const f of ['config.json', 'tokenizer.json', join('onnx', weights)]) {
    if (!existsSync(join(dir, f))) throw new UsageError(`${label}: expected ${layout}; ${join(dir, f)} is missing`, { file: join(dir, f), path: label });
  }
  const file = join(dir, 'config.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${label}: ${file} is not valid JSON (${(err as Error).message})`, { file, path: label });
  }
}

export async function createNliChecker(options: NliCheckerOptions): Promise<ClaimChecker> {
  const dir = resolve(options.dir);
  const label = options.label ?? 'nli model';
  const dtype = options.dtype ?? 'fp32';
  const config = checkFolder(dir, label, WEIGHTS[dtype]);
  const layout = labelLayout(config, join(dir, 'config.json'));
  const t = await loadTransformers();
  const name = basename(dir);
  // Local files only, whatever the process's other models allow: the hub is never asked. The library's settings
  // are global, so they are restored after this load (a transformers embedder may have set them otherwise).
  const saved = { allowRemoteModels: t.env.allowRemoteModels, allowLocalModels: t.env.allowLocalModels, localModelPath: t.env.localModelPath };
  let tokenizer: PairTokenizer;
  let model: Classifier;
  try {
    t.env.allowRemoteModels = false;
    t.env.allowLocalModels = true;
    t.env.localModelPath = `${dirname(dir)}/`;
    tokenizer = (await t.AutoTokenizer.from_pretrained(name, { local_files_only: true })) as unknown as PairTokenizer;
    model = (await t.AutoModelForSequenceClassification.from_pretrained(name, { local_files_only: true, dtype, device: 'cpu' })) as unknown as Classifier;
  } catch (err) {
    throw new UsageError(`${label}: could not load the NLI model in ${dir} (local files only): ${thrownMessage(err)}`, {
      file: dir,
      path: label,
    });
  } finally {
    Object.assign(t.env, saved);
  }
  const maxTokens = Math.min(options.maxTokens ?? 512, tokenizer.model_max_length ?? 512);
  const batchSize = Math.max(1, options.batchSize ?? 8);
  const labels = layout.kind === 'score' ? 1 : layout.verdicts.length;

  /** Premise and hypothesis cut to fit together: the evidence gives way first, the claim only if it alone is too long. */
  const fit = (premise: string, hypothesis: string): [string, string] => {
    const room = maxTokens - 4; // [CLS] premise [SEP] ([SEP]) hypothesis [SEP]
    const p = tokenizer.encode(premise, { add_special_tokens: false });
    const h = tokenizer.encode(hypothesis, { add_special_tokens: false });
    if (p.length + h.length <= room) return [premise, hypothesis];
    const keepH = Math.min(h.length, Math.max(room - p.length, Math.floor(room / 2)));
    const keepP = room - keepH;
    const cut = (ids: number[], n: number, text: string) => (ids.length <= n ? text : tokenizer.decode(ids.slice(0, n), { skip_special_tokens: true }));
    return [cut(p, keepP, premise), cut(h, keepH, hypothesis)];
  };

  const run = async (items: readonly ClaimCheckItem[]): Promise<ClaimCheck[]> => {
    const pairs = items.map((x) => fit(x.evidence, x.claim));
    const inputs = tokenizer(
      pairs.map((p) => p[0]),
      { text_pair: pairs.map((p) => p[1]), padding: true, truncation: true, max_length: maxTokens },
    );
    const { logits } = await model(inputs);
    const [n, width] = logits.dims;
    if (n !== items.length || width !== labels)
      throw new Error(`the model answered logits of shape [${logits.dims.join(', ')}], expected [${items.length}, ${labels}] (id2label in config.json)`);
    return Array.from({ length: n }, (_, i) => checkOfLogits(Array.from(logits.data).slice(i * width, (i + 1) * width), layout));
  };

  // One probe pair: a model whose output does not match its config.json is found now, not on the first request.
  try {
    await run([{ claim: 'The sky is blue.', evidence: 'The sky is blue.', query: '' }]);
  } catch (err) {
    throw new UsageError(`${label}: the NLI model in ${dir} does not run as a sequence-pair classifier: ${(err as Error).message}`, { file: dir, path: label });
  }

  return {
    id: `nli:${name}`,
    kind: 'nli',
    async check(items: readonly ClaimCheckItem[], signal?: AbortSignal): Promise<ClaimCheckBatch> {
      const checks: ClaimCheck[] = [];
      for (let i = 0; i < items.length; i += batchSize) {
        signal?.throwIfAborted();
        pushAll(checks, await run(items.slice(i, i + batchSize)));
      }
      return { checks };
    },
    async close() {
      await model.dispose?.();
    },
  };
}
