import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type OpenAI from 'openai';
import type { EmbeddingModel, EmbedOptions, EmbedResult } from './embedding-model.js';
import { abortError } from './errors.js';
import { mapAiSdkError } from './classify.js';
import { mapOpenAIError, openaiClient, type OpenAIModelSettings } from './openai.js';
import { loadPackage } from './package.js';
import type { SdkModelSettings, AzureModelSettings } from './sdk-providers.js';
import { AZURE_API_VERSION } from './sdk-providers.js';
import { sharedNodeFetch, type FetchLike } from './transport.js';
import { ProviderError } from './types.js';

/** EmbeddingModel adapters: any OpenAI-compatible POST /embeddings (official client), and the AI SDK's (Google, Mistral, Azure). */

function checkRows(who: string, rows: unknown, n: number): number[][] {
  if (!Array.isArray(rows) || rows.length !== n)
    throw new ProviderError('invalid_response', `${who}: ${Array.isArray(rows) ? rows.length : 'no'} embeddings for ${n} inputs`);
  for (const e of rows) {
    if (!Array.isArray(e) || !e.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new ProviderError('invalid_response', `${who}: an embedding is not an array of finite numbers`);
  }
  return rows as number[][];
}

export class OpenAIEmbeddingModel implements EmbeddingModel {
  readonly provider = 'openai';
  readonly modelId: string;
  readonly id: string;
  readonly baseURL?: string;
  readonly maxBatchSize: number;
  private readonly client: Promise<OpenAI>;

  constructor(private readonly settings: OpenAIModelSettings & { maxBatchSize?: number }) {
    this.modelId = settings.model;
    this.id = `openai:${settings.model}`;
    this.baseURL = settings.baseURL;
    this.maxBatchSize = settings.maxBatchSize ?? 96;
    this.client = openaiClient({
      baseURL: settings.baseURL,
      apiKey: settings.apiKey ?? 'not-needed',
      maxRetries: 0,
      defaultHeaders: settings.headers,
      fetch: sharedNodeFetch(),
    });
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<EmbedResult> {
    const who = this.id;
    const signal = options.signal ?? new AbortController().signal;
    const client = await this.client;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    let res: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      res = await client.embeddings.create({ model: this.modelId, input: [...texts], encoding_format: 'float' }, { signal });
    } catch (err) {
      throw mapOpenAIError(who, err, signal);
    }
    const data = res?.data;
    if (!Array.isArray(data)) throw new ProviderError('invalid_response', `${who}: the answer has no data`);
    // Rows come with their index; order by it, as not every server keeps input order.
    const rows: unknown[] = new Array(data.length);
    data.forEach((item, n) => (rows[typeof item?.index === 'number' ? item.index : n] = item?.embedding));
    return {
      embeddings: checkRows(who, rows, texts.length),
      ...(res.usage ? { usage: { promptTokens: res.usage.prompt_tokens ?? 0 } } : {}),
      latencyMs: performance.now() - started,
    };
  }
}

/** An AI SDK EmbeddingModelV3 behind the spec; the package loads on the first call. */
export class AiSdkEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  private readonly model: EmbeddingModelV3;

  constructor(
    readonly provider: string,
    readonly modelId: string,
    readonly maxBatchSize: number,
    load: (fetch: FetchLike) => EmbeddingModelV3,
    readonly baseURL?: string,
  ) {
    this.id = `${provider}:${modelId}`;
    this.model = load(sharedNodeFetch());
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<EmbedResult> {
    const who = this.id;
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    let r;
    try {
      r = await this.model.doEmbed({ values: [...texts], abortSignal: signal });
    } catch (err) {
      throw mapAiSdkError(who, err, signal);
    }
    return {
      embeddings: checkRows(who, r?.embeddings, texts.length),
      ...(r.usage ? { usage: { promptTokens: r.usage.tokens } } : {}),
      latencyMs: performance.now() - started,
    };
  }
}

export function googleEmbeddingModel(s: SdkModelSettings): EmbeddingModel {
  return new AiSdkEmbeddingModel(
    'google',
    s.model,
    100,
    (fetch) =>
      loadPackage<typeof import('@ai-sdk/google')>('@ai-sdk/google', 'the google provider')
        .createGoogleGenerativeAI({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch })
        .embedding(s.model),
    s.baseURL,
  );
}

export function mistralEmbeddingModel(s: SdkModelSettings): EmbeddingModel {
  return new AiSdkEmbeddingModel(
    'mistral',
    s.model,
    32,
    (fetch) =>
      loadPackage<typeof import('@ai-sdk/mistral')>('@ai-sdk/mistral', 'the mistral provider')
        .createMistral({ apiKey: s.apiKey ?? 'not-needed', baseURL: s.baseURL, headers: s.headers, fetch })
        .embedding(s.model),
    s.baseURL,
  );
}

export function azureEmbeddingModel(s: AzureModelSettings): EmbeddingModel {
  return new AiSdkEmbeddingModel(
    'azure',
    s.model,
    96,
    (fetch) =>
      loadPackage<typeof import('@ai-sdk/azure')>('@ai-sdk/azure', 'the azure provider')
        .createAzure({
          apiKey: s.apiKey ?? 'not-needed',
          ...(s.baseURL ? { baseURL: s.baseURL } : { resourceName: s.resourceName }),
          apiVersion: s.apiVersion ?? AZURE_API_VERSION,
          useDeploymentBasedUrls: true,
          headers: s.headers,
          fetch,
        })
        .embedding(s.model),
    s.baseURL,
  );
}
