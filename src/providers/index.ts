export * from './types.js';
export type * from './chat-model.js';
export type * from './embedding-model.js';
export { ChatSystem, type ChatSystemOptions } from './chat-system.js';
export { CommandSystem, type CommandSystemOptions } from './command.js';
export { HttpSystem, type HttpSystemOptions } from './http.js';
export { OpenAIChatModel, OpenAISystem, mapOpenAIError, type OpenAIModelSettings, type OpenAISystemOptions } from './openai.js';
export { AiSdkChatModel, type AiSdkModelSettings } from './ai-sdk.js';
export {
  anthropicChatModel,
  googleChatModel,
  bedrockChatModel,
  azureChatModel,
  mistralChatModel,
  type SdkModelSettings,
  type AzureModelSettings,
  type BedrockModelSettings,
} from './sdk-providers.js';
export { OllamaChatModel, OllamaEmbeddingModel, type OllamaSettings } from './ollama.js';
export { OpenAIEmbeddingModel, AiSdkEmbeddingModel, googleEmbeddingModel, mistralEmbeddingModel, azureEmbeddingModel } from './embeddings.js';
export { chatModelFromConfig, createChatModel, decorateModel, parseChatOptions, DEFAULT_KEY_ENV, type ModelContext } from './chat-factory.js';
export { withResponseCache, withSystemCache, cacheKey, canonicalJson, type CacheSettings } from './cache.js';
export { DEFAULT_PRICES, priceOf, priceTable, costOf, withPrices, type ModelPrice, type PriceTable } from './prices.js';
export { ReplaySystem, loadReplayFile, recordedInputs, parseReplayCsv, parseReplayJsonl, type ReplayRow, type ReplaySystemOptions } from './replay.js';
export { SimulatedSystem, type SimulatedOutput, type SimulatedSystemOptions, type TransientKind } from './simulated.js';
export { createSystem, parseSystemConfig, type SystemContext } from './factory.js';
export {
  commandOptionsSchema,
  httpOptionsSchema,
  openaiOptionsSchema,
  anthropicOptionsSchema,
  googleOptionsSchema,
  bedrockOptionsSchema,
  azureOptionsSchema,
  mistralOptionsSchema,
  ollamaOptionsSchema,
  chatProviderSchemas,
  replayOptionsSchema,
  simulatedOptionsSchema,
  systemSchema,
  PROVIDER_NAMES,
  CHAT_PROVIDER_NAMES,
  type ProviderName,
  type ChatProviderName,
  type SystemConfig,
} from './schemas.js';
export { abortKind, parseRetryAfter, statusKind, mapAiSdkError } from './errors.js';
