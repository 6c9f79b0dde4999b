import { UsageError } from '../../errors.js';
import { LexicalEmbedder } from './lexical.js';
import type { EmbedderSpec, KbEmbedder } from './spec.js';

/** Run-time configuration of embedders (never stored in the KB: locations and secrets). */
export interface EmbedderConfig {
  /** transformers: folder holding the model (transformers.js layout). */
  modelDir?: string;
  /** transformers: allow hub downloads. */
  allowRemote?: boolean;
  /** openai: endpoint base URL (default env OPENAI_BASE_URL) and key (default env OPENAI_API_KEY). */
  baseURL?: string;
  apiKey?: string;
}

export type EmbedderKind = EmbedderSpec['kind'];

/** Create an embedder by kind for ingest (`--embedder lexical|transformers|openai`). */
export async function createEmbedder(kind: string, config: EmbedderConfig & { model?: string; dimension?: number } = {}): Promise<KbEmbedder> {
  switch (kind) {
    case 'lexical':
      return new LexicalEmbedder({ dimension: config.dimension });
    case 'transformers': {
      const { createTransformersEmbedder } = await import('./transformers.js');
      return createTransformersEmbedder({ model: config.model, modelDir: config.modelDir, allowRemote: config.allowRemote });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('./openai.js');
      if (!config.model) throw new UsageError('the openai embedder needs a model name (--embedding-model)');
      return createOpenAIEmbedder({
        model: config.model,
        baseURL: config.baseURL ?? process.env.OPENAI_BASE_URL,
        apiKey: config.apiKey ?? process.env.OPENAI_API_KEY,
        dimension: config.dimension,
      });
    }
    default:
      throw new UsageError(`--embedder: expected lexical, transformers or openai, found "${kind}"`);
  }
}

/** Re-create the embedder a KB records (its spec), with the run-time configuration. */
export async function embedderFromSpec(spec: EmbedderSpec, config: EmbedderConfig = {}): Promise<KbEmbedder> {
  const s = spec.settings as Record<string, unknown>;
  switch (spec.kind) {
    case 'lexical':
      return new LexicalEmbedder({ dimension: spec.dimension, weights: s.weights as { word: number; bigram: number; char: number } | undefined });
    case 'transformers': {
      const { createTransformersEmbedder } = await import('./transformers.js');
      return createTransformersEmbedder({
        model: String(s.model),
        modelDir: config.modelDir,
        allowRemote: config.allowRemote,
        dtype: s.dtype as 'fp32' | 'fp16' | 'q8',
        maxTokens: Number(s.maxTokens),
      });
    }
    case 'openai':
      return createEmbedder('openai', { ...config, model: String(s.model), dimension: spec.dimension });
    default:
      throw new UsageError(`unknown embedder kind ${JSON.stringify((spec as { kind: unknown }).kind)} in the KB manifest`);
  }
}
