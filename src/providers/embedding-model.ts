/**
 * The embedding half of the model spec: types only. Adapters follow the same rules as ChatModel's
 * (chat-model.ts): only ProviderError, no retries of their own, the signal honoured, usage when reported.
 * The shared suite is src/providers/embedding-contract.case.ts.
 */

export interface EmbedOptions {
  signal?: AbortSignal;
}

export interface EmbedResult {
  /** One vector per input text, in input order. */
  embeddings: number[][];
  /** Input tokens, when the provider reports them. */
  usage?: { promptTokens: number };
  latencyMs: number;
}

export interface EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  /** `${provider}:${modelId}`. */
  readonly id: string;
  readonly baseURL?: string;
  /** Most texts one call accepts; callers batch. */
  readonly maxBatchSize: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<EmbedResult>;
}
