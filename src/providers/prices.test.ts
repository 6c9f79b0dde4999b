import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatResponse } from './chat-model.js';
import { costOf, DEFAULT_PRICES, priceOf, priceTable, withPrices } from './prices.js';

const fake = (provider: string, modelId: string, r: Partial<ChatResponse>): ChatModel => ({
  provider,
  modelId,
  id: `${provider}:${modelId}`,
  capabilities: { jsonSchema: true, tools: true },
  generate: async () => ({ text: 'x', latencyMs: 1, ...r }),
});

describe('prices', () => {
  it('finds a model exactly, by provider:model, or by its dated and vendor-prefixed ids', () => {
    expect(priceOf(DEFAULT_PRICES, 'openai', 'gpt-4o-mini')).toEqual({ inputPerMTok: 0.15, outputPerMTok: 0.6 });
    // The longest key wins: gpt-4o-mini-… is not gpt-4o.
    expect(priceOf(DEFAULT_PRICES, 'openai', 'gpt-4o-mini-2024-07-18')).toEqual(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf(DEFAULT_PRICES, 'openai', 'gpt-4o-2024-08-06')).toEqual(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf(DEFAULT_PRICES, 'anthropic', 'claude-sonnet-4-5-20250929')).toEqual(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceOf(DEFAULT_PRICES, 'bedrock', 'us.anthropic.claude-3-5-haiku-20241022-v1:0')).toEqual(DEFAULT_PRICES['claude-3-5-haiku']);
    expect(priceOf(DEFAULT_PRICES, 'mistral', 'mistral-large-latest')).toEqual(DEFAULT_PRICES['mistral-large']);
    // A prefix must end at a separator: gpt-4 is not priced as gpt-4o, nor o3x as o3.
    expect(priceOf(DEFAULT_PRICES, 'openai', 'gpt-4')).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, 'openai', 'o3x')).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, 'anthropic', 'claude-test')).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, 'ollama', 'llama3.1:8b')).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    const t = priceTable({ 'claude-test': { inputPerMTok: 3, outputPerMTok: 15 }, 'azure:my-deployment': { inputPerMTok: 1, outputPerMTok: 2 } });
    expect(priceOf(t, 'anthropic', 'claude-test')).toEqual({ inputPerMTok: 3, outputPerMTok: 15 });
    expect(priceOf(t, 'azure', 'my-deployment')).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(priceOf(t, 'openai', 'my-deployment')).toBeUndefined();
    expect(costOf({ inputPerMTok: 3, outputPerMTok: 15 }, { promptTokens: 1_000_000, completionTokens: 200_000 })).toBeCloseTo(6, 12);
  });

  it('withPrices prices answers with usage, leaves unknown models and cached answers alone', async () => {
    const usage = { promptTokens: 2000, completionTokens: 100 };
    const priced = withPrices(fake('openai', 'gpt-4o', { usage }));
    expect((await priced.generate({ messages: [] }, { signal: new AbortController().signal })).costUsd).toBeCloseTo((2000 * 2.5 + 100 * 10) / 1e6, 12);
    const unknown = fake('openai', 'my-model', { usage });
    expect(withPrices(unknown)).toBe(unknown);
    const cached = withPrices(fake('openai', 'gpt-4o', { cached: true, costUsd: 0 }));
    expect((await cached.generate({ messages: [] }, { signal: new AbortController().signal })).costUsd).toBe(0);
  });
});
