import type { EmbeddingModel } from '../../providers/embedding-model.js';
import { OpenAIEmbeddingModel } from '../../providers/embeddings.js';
import { ProviderError } from '../../providers/types.js';
import { callWithRetry, type RetryOptions } from '../../providers/retry.js';
import { countWordTokens } from '../claims/text.js';
import type { SupportThresholds } from '../types.js';
import { normalizeRows, type EmbedderSpec, type KbEmbedder } from './spec.js';

/**
 * A knowledge-base embedder over an EmbeddingModel (src/providers): any OpenAI-compatible POST /embeddings
 * endpoint (OpenAI, Ollama's /v1, vLLM, TEI) by default. Texts go in batches; retryable failures are
 * retried in callWithRetry, the one place; rows are L2-normalised here, since not every server normalises.
 */

export interface OpenAIEmbedderOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Known dimension; otherwise probed with one request at creation. */
  dimension?: number;
  /** Texts per request (default 96). */
  batchSize?: number;
  thresholds?: SupportThresholds;
  /** Limit of one request in ms (default 30 000). */
  timeoutMs?: number;
  /** Backoff of retryable failures (default 2 retries). */
  retry?: Omit<RetryOptions, 'signal' | 'attemptTimeoutMs'>;
  /** Token counter for chunking (the remote tokenizer is not reachable); default: word-level tokens. */
  countTokens?: (text: string) => number;
  /** Another EmbeddingModel instead of the OpenAI-compatible endpoint (its id is recorded in the KB). */
  embeddingModel?: EmbeddingModel;
}

/** The design's thresholds; calibrate per model with `assay calibrate`. */
export const OPENAI_DEFAULT_THRESHOLDS: SupportThresholds = { strong: 0.75, weak: 0.5 };

function modelOf(o: OpenAIEmbedderOptions): EmbeddingModel {
  return (
    o.embeddingModel ??
    new OpenAIEmbeddingModel({
      model: o.model,
      ...(o.baseURL ? { baseURL: o.baseURL } : {}),
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      maxBatchSize: o.batchSize ?? 96,
    })
  );
}

async function embedBatch(model: EmbeddingModel, texts: string[], o: OpenAIEmbedderOptions): Promise<number[][]> {
  const r = await callWithRetry((_attempt, signal) => model.embed(texts, { signal }), {
    retries: 2,
    baseMs: 500,
    ...o.retry,
    attemptTimeoutMs: o.timeoutMs ?? 30_000,
  });
  return r.embeddings;
}

export class OpenAIEmbedder implements KbEmbedder {
  readonly thresholds: SupportThresholds;
  private readonly model: EmbeddingModel;
  private readonly batchSize: number;
  private readonly counter: (text: string) => number;

  constructor(
    private readonly options: OpenAIEmbedderOptions,
    readonly dimension: number,
  ) {
    this.model = modelOf(options);
    this.batchSize = Math.min(options.batchSize ?? 96, this.model.maxBatchSize);
    this.thresholds = options.thresholds ?? OPENAI_DEFAULT_THRESHOLDS;
    this.counter = options.countTokens ?? countWordTokens;
  }

  get id(): string {
    return this.model.id;
  }

  spec(): EmbedderSpec {
    return { kind: 'openai', id: this.id, dimension: this.dimension, settings: { model: this.options.model } };
  }

  countTokens(text: string): number {
    return this.counter(text);
  }

  async embed(texts: string[]): Promise<Float32Array> {
    const d = this.dimension;
    const out = new Float32Array(texts.length * d);
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t === '' ? ' ' : t));
      const rows = await embedBatch(this.model, batch, this.options);
      rows.forEach((row, j) => {
        if (row.length !== d) throw new ProviderError('invalid_response', `embedding of dimension ${row.length}, expected ${d}`);
        out.set(row, (i + j) * d);
      });
    }
    return normalizeRows(out, d);
  }
}

export async function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Promise<OpenAIEmbedder> {
  let dimension = options.dimension;
  if (dimension === undefined) dimension = (await embedBatch(modelOf(options), ['dimension probe'], options))[0].length;
  return new OpenAIEmbedder(options, dimension);
}
