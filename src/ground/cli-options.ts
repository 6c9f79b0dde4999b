import type { Command } from 'commander';
import type { EmbedderConfig } from './embedders/resolve.js';
import type { OpenAIGeneratorOptions } from './llm.js';

/** Options shared by the grounding commands (kb, analyze, calibrate, bench grounding). */
export function embedderOptions(cmd: Command): Command {
  return cmd
    .option('--model-dir <dir>', 'transformers embedder: folder holding the model (transformers.js layout)')
    .option('--allow-remote', 'transformers embedder: allow downloads from the Hugging Face hub')
    .option('--embedding-url <url>', 'openai embedder: base URL of an OpenAI-compatible /v1/embeddings endpoint (default $OPENAI_BASE_URL)');
}

export function embedderConfig(o: { modelDir?: string; allowRemote?: boolean; embeddingUrl?: string }): EmbedderConfig {
  return { modelDir: o.modelDir, allowRemote: o.allowRemote, baseURL: o.embeddingUrl };
}

export function llmConfig(o: { llmModel?: string; llmUrl?: string; temperature?: string }): OpenAIGeneratorOptions | undefined {
  if (!o.llmModel) return undefined;
  return { model: o.llmModel, baseURL: o.llmUrl ?? process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, temperature: o.temperature ? Number(o.temperature) : undefined };
}
