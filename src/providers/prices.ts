import type { ChatCallOptions, ChatModel, ChatRequest, ChatResponse, TokenUsage } from './chat-model.js';
import { decorateChatModel } from './decorate.js';

/**
 * What calls cost: USD per million input (prompt) and output (completion) tokens. The table below holds
 * public list prices of well-known models (standard tier, no batch or cache discounts; checked 2025) and
 * is overridden, or extended, by `prices:` in a config. Local models (Ollama) cost nothing. A model found
 * in neither has no cost: its calls are counted as unpriced, never guessed.
 */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

const p = (inputPerMTok: number, outputPerMTok: number): ModelPrice => ({ inputPerMTok, outputPerMTok });

export const DEFAULT_PRICES: PriceTable = {
  // OpenAI
  'gpt-5': p(1.25, 10),
  'gpt-5-mini': p(0.25, 2),
  'gpt-5-nano': p(0.05, 0.4),
  'gpt-4.1': p(2, 8),
  'gpt-4.1-mini': p(0.4, 1.6),
  'gpt-4.1-nano': p(0.1, 0.4),
  'gpt-4o': p(2.5, 10),
  'gpt-4o-mini': p(0.15, 0.6),
  'gpt-4-turbo': p(10, 30),
  'gpt-3.5-turbo': p(0.5, 1.5),
  o3: p(2, 8),
  'o3-mini': p(1.1, 4.4),
  'o4-mini': p(1.1, 4.4),
  o1: p(15, 60),
  'text-embedding-3-small': p(0.02, 0),
  'text-embedding-3-large': p(0.13, 0),
  // Anthropic
  'claude-opus-4-1': p(15, 75),
  'claude-opus-4': p(15, 75),
  'claude-sonnet-4-5': p(3, 15),
  'claude-sonnet-4': p(3, 15),
  'claude-3-7-sonnet': p(3, 15),
  'claude-3-5-sonnet': p(3, 15),
  'claude-haiku-4-5': p(1, 5),
  'claude-3-5-haiku': p(0.8, 4),
  'claude-3-haiku': p(0.25, 1.25),
  'claude-3-opus': p(15, 75),
  // Google (prompts up to 200k tokens)
  'gemini-2.5-pro': p(1.25, 10),
  'gemini-2.5-flash': p(0.3, 2.5),
  'gemini-2.5-flash-lite': p(0.1, 0.4),
  'gemini-2.0-flash': p(0.1, 0.4),
  'gemini-2.0-flash-lite': p(0.075, 0.3),
  'gemini-1.5-pro': p(1.25, 5),
  'gemini-1.5-flash': p(0.075, 0.3),
  // Mistral
  'mistral-large': p(2, 6),
  'mistral-medium': p(0.4, 2),
  'mistral-small': p(0.1, 0.3),
  codestral: p(0.3, 0.9),
  'open-mistral-nemo': p(0.15, 0.15),
  'ministral-8b': p(0.1, 0.1),
  'ministral-3b': p(0.04, 0.04),
};

/** Providers whose models run on your own machine: no price needed, no cost. */
const FREE_PROVIDERS = new Set(['ollama']);

/**
 * The price of a model: `provider:model` or `model` exactly, then the longest key the model id starts
 * with followed by a separator (dated ids such as claude-3-5-sonnet-20241022, gpt-4o-2024-08-06, or
 * Bedrock's anthropic.claude-3-5-sonnet-20240620-v1:0 after its vendor prefix).
 */
export function priceOf(table: PriceTable, provider: string, modelId: string): ModelPrice | undefined {
  const exact = table[`${provider}:${modelId}`] ?? table[modelId];
  if (exact) return exact;
  if (FREE_PROVIDERS.has(provider)) return { inputPerMTok: 0, outputPerMTok: 0 };
  // Bedrock and Vertex ids name the vendor first: "anthropic.claude-…", "us.anthropic.claude-…".
  const bare = modelId.replace(/^(?:[a-z]{2}\.)?(?:anthropic|meta|mistral|amazon|cohere|ai21)\./, '').replace(/^models\//, '');
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (key.length > (best?.length ?? 0) && bare.startsWith(key) && /^[-@:.]|^$/.test(bare.slice(key.length))) best = key;
  }
  return best !== undefined ? table[best] : undefined;
}

export function costOf(price: ModelPrice, usage: TokenUsage): number {
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1e6;
}

/** The default table with a config's `prices:` laid over it. */
export function priceTable(overrides: Record<string, ModelPrice> | undefined): PriceTable {
  return overrides ? { ...DEFAULT_PRICES, ...overrides } : DEFAULT_PRICES;
}

/**
 * The same model, with `costUsd` set on every answer whose usage is known and whose model has a price. A
 * decorator, so it composes with a cache (which puts it inside: a cached answer costs nothing) and with
 * rate limiters.
 */
export function withPrices(model: ChatModel, table: PriceTable = DEFAULT_PRICES): ChatModel {
  const price = priceOf(table, model.provider, model.modelId);
  if (!price) return model;
  return decorateChatModel(model, async (request: ChatRequest, options: ChatCallOptions): Promise<ChatResponse> => {
    const r = await model.generate(request, options);
    return r.usage && r.costUsd === undefined && !r.cached ? { ...r, costUsd: costOf(price, r.usage) } : r;
  });
}
