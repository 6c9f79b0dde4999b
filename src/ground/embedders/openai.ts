import OpenAI from 'openai';
import { ProviderError } from '../../providers/types.js';
import { countWordTokens } from '../text.js';
import type { SupportThresholds } from '../types.js';
import { normalizeRows, type EmbedderSpec, type KbEmbedder } from './spec.js';

/**
 * Any OpenAI-compatible POST /v1/embeddings endpoint (OpenAI, Ollama, vLLM, TEI) through the official
 * `openai` client, in batches. Rows are L2-normalised here, since not every server normalises.
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
  timeoutMs?: number;
  /** Token counter for chunking (the remote tokenizer is not reachable); default: word-level tokens. */
  countTokens?: (text: string) => number;
}

/** The design's thresholds; calibrate per model with `assay calibrate`. */
export const OPENAI_DEFAULT_THRESHOLDS: SupportThresholds = { strong: 0.75, weak: 0.5 };

function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    if (status === 429) return new ProviderError('rate_limit', err.message, { status, cause: err });
    if (status !== undefined && status >= 500) return new ProviderError('server', err.message, { status, cause: err });
    if (err instanceof OpenAI.APIConnectionTimeoutError) return new ProviderError('timeout', err.message, { cause: err });
    if (err instanceof OpenAI.APIConnectionError) return new ProviderError('connection', err.message, { cause: err });
    return new ProviderError('client', err.message, { status, cause: err });
  }
  return new ProviderError('invalid_response', err instanceof Error ? err.message : String(err), { cause: err });
}

export class OpenAIEmbedder implements KbEmbedder {
  readonly thresholds: SupportThresholds;
  private readonly client: OpenAI;
  private readonly batchSize: number;
  private readonly counter: (text: string) => number;

  constructor(
    private readonly options: OpenAIEmbedderOptions,
    readonly dimension: number,
  ) {
    this.client = new OpenAI({ apiKey: options.apiKey ?? 'none', baseURL: options.baseURL, maxRetries: 2, timeout: options.timeoutMs ?? 30_000 });
    this.batchSize = options.batchSize ?? 96;
    this.thresholds = options.thresholds ?? OPENAI_DEFAULT_THRESHOLDS;
    this.counter = options.countTokens ?? countWordTokens;
  }

  get id(): string {
    return `openai:${this.options.model}`;
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
      const rows = await rawEmbed(this.client, this.options.model, batch);
      rows.forEach((row, j) => {
        if (row.length !== d) throw new ProviderError('invalid_response', `embedding of dimension ${row.length}, expected ${d}`);
        out.set(row, (i + j) * d);
      });
    }
    return normalizeRows(out, d);
  }
}

async function rawEmbed(client: OpenAI, model: string, input: string[]): Promise<number[][]> {
  let res;
  try {
    res = await client.embeddings.create({ model, input, encoding_format: 'float' });
  } catch (err) {
    throw toProviderError(err);
  }
  const data = res?.data;
  if (!Array.isArray(data) || data.length !== input.length) {
    throw new ProviderError('invalid_response', `embeddings response has ${Array.isArray(data) ? data.length : 'no'} rows for ${input.length} inputs`);
  }
  const rows: number[][] = new Array(input.length);
  for (const item of data) {
    const e = item?.embedding as unknown;
    if (!Array.isArray(e) || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new ProviderError('invalid_response', 'embedding is not an array of finite numbers');
    rows[item.index ?? rows.indexOf(undefined as never)] = e;
  }
  return rows;
}

export async function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Promise<OpenAIEmbedder> {
  let dimension = options.dimension;
  if (dimension === undefined) {
    const client = new OpenAI({ apiKey: options.apiKey ?? 'none', baseURL: options.baseURL, maxRetries: 2, timeout: options.timeoutMs ?? 30_000 });
    dimension = (await rawEmbed(client, options.model, ['dimension probe']))[0].length;
  }
  return new OpenAIEmbedder(options, dimension);
}
