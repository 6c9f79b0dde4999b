/**
 * `assay/testing`: real local HTTP servers speaking each provider's documented wire format, for trying
 * configs offline and for tests of code built on assay. Stand-ins for paid APIs; nothing here calls one.
 */
import { anthropicDialect } from './anthropic.js';
import { azureDialect } from './azure.js';
import { bedrockDialect } from './bedrock.js';
import { geminiDialect } from './gemini.js';
import { mistralDialect } from './mistral.js';
import { ollamaDialect } from './ollama.js';
import { openaiDialect } from './openai.js';
import { startMockServer, type Dialect } from './server.js';
import type { MockServer, MockServerOptions } from './types.js';

export * from './types.js';
export { startMockServer, pseudoEmbedding, type Dialect } from './server.js';
export { startMockOpenAI, openaiDialect, type ChatRequestBody, type EmbeddingsRequestBody, type MockOpenAI, type MockOpenAIOptions } from './openai.js';
export { startMockAnthropic, anthropicDialect } from './anthropic.js';
export { startMockGemini, geminiDialect } from './gemini.js';
export { startMockBedrock, bedrockDialect } from './bedrock.js';
export { startMockAzure, azureDialect } from './azure.js';
export { startMockMistral, mistralDialect } from './mistral.js';
export { startMockOllama, ollamaDialect } from './ollama.js';
export { mockResponder, loadMockRules, type MockRule, type MockResponderOptions } from './rules.js';
export { judgeReply, isJudgeRequest, type JudgeRequestLike } from './judge.js';

/** Every wire format a mock speaks, by the provider name used in configs. */
export const MOCK_DIALECTS: Record<string, Dialect> = {
  openai: openaiDialect,
  anthropic: anthropicDialect,
  google: geminiDialect,
  bedrock: bedrockDialect,
  azure: azureDialect,
  mistral: mistralDialect,
  ollama: ollamaDialect,
};

export type MockProvider = 'openai' | 'anthropic' | 'google' | 'bedrock' | 'azure' | 'mistral' | 'ollama';

/** A mock server speaking `provider`'s wire format. */
export function startMock(provider: MockProvider, options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(MOCK_DIALECTS[provider], options);
}
