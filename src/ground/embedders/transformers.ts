import { importOptional, thrownMessage } from '../../errors.js';
import type { SupportThresholds } from '../types.js';
import { normalizeRows, type EmbedderSpec, type KbEmbedder } from './spec.js';

/**
 * all-MiniLM-L6-v2 (the design's model) through @huggingface/transformers on onnxruntime-node:
 * tokenizer → ONNX session → mean pooling over the attention mask → L2 normalisation, truncated at
 * 256 word pieces as sentence-transformers does. The package is an optional dependency, loaded
 * dynamically. Offline by default: the model is read from `modelDir/<model>/` and never downloaded
 * unless `allowRemote` is set.
 */

export interface TransformersOptions {
  /** Hub id or folder name under modelDir (default "Xenova/all-MiniLM-L6-v2"). */
  model?: string;
  /** Folder holding `<model>/config.json`, `tokenizer.json`, `onnx/model.onnx` (transformers.js layout). */
  modelDir?: string;
  /** Allow downloads from the Hugging Face hub (default false: offline). */
  allowRemote?: boolean;
  /** ONNX weights variant: "fp32" → onnx/model.onnx, "q8" → onnx/model_quantized.onnx (default fp32). */
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** Word pieces per text, special tokens included (default 256). */
  maxTokens?: number;
  batchSize?: number;
  thresholds?: SupportThresholds;
}

export const MINILM_DEFAULT_THRESHOLDS: SupportThresholds = { strong: 0.75, weak: 0.5 };
export const DEFAULT_MODEL = 'Xenova/all-MiniLM-L6-v2';

interface Tokenizer {
  (texts: string[], options: Record<string, unknown>): Record<string, unknown> & { attention_mask: { data: ArrayLike<bigint | number>; dims: number[] } };
  encode(text: string, options?: Record<string, unknown>): number[];
}
interface Model {
  (inputs: Record<string, unknown>): Promise<{ last_hidden_state: { data: Float32Array; dims: number[] } }>;
}

type TransformersModule = typeof import('@huggingface/transformers');

/** An optional peer dependency (with onnxruntime it weighs ~430 MB): asked for by name when missing. */
function loadTransformers(): Promise<TransformersModule> {
  return importOptional(
    '@huggingface/transformers',
    'the transformers embedder',
    () => import('@huggingface/transformers'),
    'or use the lexical embedder, which needs none',
  );
}

export class TransformersEmbedder implements KbEmbedder {
  readonly thresholds: SupportThresholds;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly model: Model,
    readonly dimension: number,
    private readonly settings: { model: string; dtype: string; maxTokens: number; batchSize: number },
    thresholds?: SupportThresholds,
  ) {
    this.thresholds = thresholds ?? MINILM_DEFAULT_THRESHOLDS;
  }

  get id(): string {
    return `transformers:${this.settings.model}`;
  }

  spec(): EmbedderSpec {
    const { model, dtype, maxTokens } = this.settings;
    return { kind: 'transformers', id: this.id, dimension: this.dimension, settings: { model, dtype, maxTokens, pooling: 'mean', normalize: true } };
  }

  /** Word pieces without special tokens, as the chunker counts them. */
  countTokens(text: string): number {
    return text === '' ? 0 : this.tokenizer.encode(text, { add_special_tokens: false }).length;
  }

  async embed(texts: string[]): Promise<Float32Array> {
    const out = new Float32Array(texts.length * this.dimension);
    for (let i = 0; i < texts.length; i += this.settings.batchSize) {
      out.set(await this.embedBatch(texts.slice(i, i + this.settings.batchSize)), i * this.dimension);
    }
    return out;
  }

  private async embedBatch(texts: string[]): Promise<Float32Array> {
    const inputs = this.tokenizer(texts, { padding: true, truncation: true, max_length: this.settings.maxTokens });
    const { last_hidden_state: h } = await this.model(inputs);
    const [n, seq, dim] = h.dims;
    if (dim !== this.dimension) throw new Error(`model output has hidden size ${dim}, expected ${this.dimension}`);
    const mask = inputs.attention_mask.data;
    const out = new Float32Array(n * dim);
    // Mean pooling: average the token vectors where attention_mask = 1.
    for (let b = 0; b < n; b++) {
      let count = 0;
      for (let t = 0; t < seq; t++) {
        if (Number(mask[b * seq + t]) === 0) continue;
        count++;
        const o = (b * seq + t) * dim;
        for (let j = 0; j < dim; j++) out[b * dim + j] += h.data[o + j];
      }
      if (count > 0) for (let j = 0; j < dim; j++) out[b * dim + j] /= count;
    }
    return normalizeRows(out, dim);
  }
}

export async function createTransformersEmbedder(options: TransformersOptions = {}): Promise<TransformersEmbedder> {
  const t = await loadTransformers();
  const model = options.model ?? DEFAULT_MODEL;
  const dtype = options.dtype ?? 'fp32';
  t.env.allowRemoteModels = options.allowRemote ?? false;
  t.env.allowLocalModels = true;
  if (options.modelDir) t.env.localModelPath = options.modelDir.endsWith('/') ? options.modelDir : `${options.modelDir}/`;
  const local = !(options.allowRemote ?? false);
  let tokenizer: Tokenizer;
  let session: Model;
  try {
    tokenizer = (await t.AutoTokenizer.from_pretrained(model, { local_files_only: local })) as unknown as Tokenizer;
    session = (await t.AutoModel.from_pretrained(model, { local_files_only: local, dtype, device: 'cpu' })) as unknown as Model;
  } catch (err) {
    throw new Error(
      `could not load embedding model "${model}" from ${options.modelDir ?? t.env.localModelPath}${local ? ' (offline mode)' : ''}: ${thrownMessage(err)}`,
    );
  }
  const settings = { model, dtype, maxTokens: options.maxTokens ?? 256, batchSize: options.batchSize ?? 32 };
  // The hidden size comes from the model itself: run one probe text.
  const probe = tokenizer(['dimension probe'], { padding: true, truncation: true, max_length: settings.maxTokens });
  const dims = (await session(probe)).last_hidden_state.dims;
  return new TransformersEmbedder(tokenizer, session, dims[2], settings, options.thresholds);
}
