/**
 * `assay/providers`: the model spec every LLM call goes through (the system under test, judges, SPADE,
 * grounding), one adapter per wire protocol, the `system:` schema, and the decorators that price and cache a
 * model. Listed in docs/api.md.
 */
export type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatMessage,
  ChatCallOptions,
  ChatModelCapabilities,
  JsonResponseFormat,
  ChatTool,
  ToolCall,
  ToolResultMessage,
} from '../providers/chat-model.js';
export { AgentSystem, type AgentSystemOptions } from '../providers/agent-system.js';
export { ConversationSystem, STOP_MARKER, type ConversationOptions } from '../providers/conversation.js';
export type { ToolConfig, ToolFunction, ToolCallContext } from '../providers/tools.js';
export type { EmbeddingModel, EmbedOptions, EmbedResult } from '../providers/embedding-model.js';
export { systemSchema } from '../providers/schemas.js';
export { chatModelFromConfig, type ModelContext } from '../providers/chat-factory.js';
export { OpenAIChatModel } from '../providers/openai.js';
export { anthropicChatModel, googleChatModel, bedrockChatModel, azureChatModel, mistralChatModel } from '../providers/sdk-providers.js';
export { OllamaChatModel, OllamaEmbeddingModel } from '../providers/ollama.js';
export { OpenAIEmbeddingModel } from '../providers/embeddings.js';
export { ChatSystem } from '../providers/chat-system.js';
export { withPrices, priceTable, DEFAULT_PRICES, type ModelPrice, type PriceTable } from '../providers/prices.js';
export { withResponseCache, type CacheSettings } from '../providers/cache.js';
export { withAssayCache, type GeneratingModel } from '../providers/ai-sdk-cache.js';
export { assayCache } from '../providers/ai-sdk-middleware.js';
