import type { ChatCallOptions, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';

/**
 * A ChatModel decorator: the same model (provider, id, endpoint, capabilities, close) with its `generate`
 * replaced. The response cache, prices and rate limiters are built with it, so they compose in any order.
 */
export function decorateChatModel(model: ChatModel, generate: (request: ChatRequest, options: ChatCallOptions) => Promise<ChatResponse>): ChatModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    id: model.id,
    baseURL: model.baseURL,
    capabilities: model.capabilities,
    generate,
    ...(model.close ? { close: () => model.close!() } : {}),
  };
}

/** Each distinct note a provider makes on its answers (a setting it did not apply), passed to `warn` once. */
export function withWarnings(model: ChatModel, warn: (message: string) => void): ChatModel {
  const said = new Set<string>();
  return decorateChatModel(model, async (request, options) => {
    const r = await model.generate(request, options);
    for (const w of r.warnings ?? []) {
      if (said.has(w) || said.size >= 20) continue; // bounded: a provider that varies its words is not a log flood
      said.add(w);
      warn(`${model.id}: ${w}`);
    }
    return r;
  });
}
