import { startMockAnthropic } from '../mock/anthropic.js';
import { startMockAzure } from '../mock/azure.js';
import { startMockBedrock } from '../mock/bedrock.js';
import { startMockGemini } from '../mock/gemini.js';
import { startMockMistral } from '../mock/mistral.js';
import { startMockOllama } from '../mock/ollama.js';
import { startMockServer } from '../mock/server.js';
import { openaiDialect } from '../mock/openai.js';
import { OllamaChatModel } from '../providers/ollama.js';
import { OpenAIChatModel } from '../providers/openai.js';
import { anthropicChatModel, azureChatModel, bedrockChatModel, googleChatModel, mistralChatModel } from '../providers/sdk-providers.js';
import { judgeContract } from './contract.case.js';

const model = 'judge-model';

judgeContract('openai', { start: (chat) => startMockServer(openaiDialect, { chat }), model: (s) => new OpenAIChatModel({ model, baseURL: s.baseURL }) });
judgeContract('anthropic', { start: (chat) => startMockAnthropic({ chat }), model: (s) => anthropicChatModel({ model, baseURL: s.baseURL }) });
judgeContract('google', { start: (chat) => startMockGemini({ chat }), model: (s) => googleChatModel({ model, baseURL: s.baseURL }) });
judgeContract('bedrock', {
  start: (chat) => startMockBedrock({ chat }),
  model: (s) => bedrockChatModel({ model, baseURL: s.baseURL, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
});
judgeContract('azure', { start: (chat) => startMockAzure({ chat }), model: (s) => azureChatModel({ model, baseURL: s.baseURL }) });
judgeContract('mistral', { start: (chat) => startMockMistral({ chat }), model: (s) => mistralChatModel({ model, baseURL: s.baseURL }) });
judgeContract('ollama', { start: (chat) => startMockOllama({ chat }), model: (s) => new OllamaChatModel({ model, baseURL: s.baseURL }) });
