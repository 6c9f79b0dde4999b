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
