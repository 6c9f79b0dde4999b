import { startMockAnthropic } from '../mock/anthropic.js';
import { startMockAzure } from '../mock/azure.js';
import { startMockBedrock } from '../mock/bedrock.js';
import { startMockGemini } from '../mock/gemini.js';
import { startMockMistral } from '../mock/mistral.js';
import { startMockOllama } from '../mock/ollama.js';
import { startMockServer } from '../mock/server.js';
import { openaiDialect } from '../mock/openai.js';
import { chatModelContract, CONTRACT_MODEL } from './chat-contract.case.js';
import { embeddingModelContract } from './embedding-contract.case.js';
import { azureEmbeddingModel, googleEmbeddingModel, mistralEmbeddingModel, OpenAIEmbeddingModel } from './embeddings.js';
import { OllamaChatModel, OllamaEmbeddingModel } from './ollama.js';
import { OpenAIChatModel } from './openai.js';
import { anthropicChatModel, azureChatModel, bedrockChatModel, googleChatModel, mistralChatModel } from './sdk-providers.js';

/** Every chat adapter against a real local server speaking its provider's wire format, with a key it checks. */
const KEY = 'test-key-123';
const NOWHERE = 'http://127.0.0.1:1';
const model = CONTRACT_MODEL;

chatModelContract('openai', {
  start: (chat) => startMockServer(openaiDialect, { chat, apiKey: KEY }),
  make: (s) => new OpenAIChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => new OpenAIChatModel({ model, baseURL: `${NOWHERE}/v1` }),
});

chatModelContract('anthropic', {
  start: (chat) => startMockAnthropic({ chat, apiKey: KEY }),
  make: (s) => anthropicChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => anthropicChatModel({ model, baseURL: `${NOWHERE}/v1` }),
});

chatModelContract('google', {
  start: (chat) => startMockGemini({ chat, apiKey: KEY }),
  make: (s) => googleChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => googleChatModel({ model, baseURL: `${NOWHERE}/v1beta` }),
});

chatModelContract('bedrock', {
  start: (chat) => startMockBedrock({ chat, apiKey: 'AKIATEST' }),
  make: (s) => bedrockChatModel({ model, baseURL: s.baseURL, region: 'us-east-1', credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'secret' } }),
  makeUnreachable: () => bedrockChatModel({ model, baseURL: NOWHERE, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
});

chatModelContract('azure', {
  start: (chat) => startMockAzure({ chat, apiKey: KEY }),
  make: (s) => azureChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => azureChatModel({ model, baseURL: `${NOWHERE}/openai` }),
});

chatModelContract('mistral', {
  start: (chat) => startMockMistral({ chat, apiKey: KEY }),
  make: (s) => mistralChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => mistralChatModel({ model, baseURL: `${NOWHERE}/v1` }),
});

chatModelContract('ollama', {
  start: (chat) => startMockOllama({ chat, apiKey: KEY }),
  make: (s) => new OllamaChatModel({ model, baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => new OllamaChatModel({ model, baseURL: NOWHERE }),
});

embeddingModelContract('openai', {
  start: (embeddings) => startMockServer(openaiDialect, { embeddings, apiKey: KEY }),
  make: (s) => new OpenAIEmbeddingModel({ model: 'contract-embed', baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => new OpenAIEmbeddingModel({ model: 'e', baseURL: `${NOWHERE}/v1` }),
});

embeddingModelContract('ollama', {
  start: (embeddings) => startMockOllama({ embeddings }),
  make: (s) => new OllamaEmbeddingModel({ model: 'contract-embed', baseURL: s.baseURL }),
  makeUnreachable: () => new OllamaEmbeddingModel({ model: 'e', baseURL: NOWHERE }),
});

embeddingModelContract('google', {
  start: (embeddings) => startMockGemini({ embeddings, apiKey: KEY }),
  make: (s) => googleEmbeddingModel({ model: 'contract-embed', baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => googleEmbeddingModel({ model: 'e', baseURL: `${NOWHERE}/v1beta` }),
});

embeddingModelContract('azure', {
  start: (embeddings) => startMockAzure({ embeddings, apiKey: KEY }),
  make: (s) => azureEmbeddingModel({ model: 'contract-embed', baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => azureEmbeddingModel({ model: 'e', baseURL: `${NOWHERE}/openai` }),
});

embeddingModelContract('mistral', {
  start: (embeddings) => startMockMistral({ embeddings, apiKey: KEY }),
  make: (s) => mistralEmbeddingModel({ model: 'contract-embed', baseURL: s.baseURL, apiKey: KEY }),
  makeUnreachable: () => mistralEmbeddingModel({ model: 'e', baseURL: `${NOWHERE}/v1` }),
});
