import type { ChatModel } from '../providers/chat-model.js';
import { OpenAIChatModel } from '../providers/openai.js';
import { callWithRetry } from '../providers/retry.js';
import type { AnswerGenerator } from './engine.js';

/**
 * The design's LLM Response Generator: one call to any ChatModel at temperature ≤ 0.3 (design §3.1).
 * Exactly one call per request: no retry (callWithRetry with none, for its per-call deadline); a failure
 * is a 503 the caller may retry.
 */
export interface ChatGeneratorOptions {
  model: ChatModel;
  /** Clamped to at most 0.3 (design §3.1). Default 0.2. */
  temperature?: number;
  maxTokens?: number;
  /** Limit of the call in ms; default 60 000. */
  timeoutMs?: number;
  system?: string;
}

export function createChatAnswerGenerator(options: ChatGeneratorOptions): AnswerGenerator {
  const temperature = Math.min(0.3, Math.max(0, options.temperature ?? 0.2));
  const { model } = options;
  return {
    id: model.id,
    async generate(query: string, signal?: AbortSignal): Promise<string> {
      const r = await callWithRetry(
        (_attempt, attemptSignal) =>
          model.generate(
            {
              temperature,
              ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
              messages: [
                { role: 'system', content: options.system ?? 'Answer the question factually and concisely.' },
                { role: 'user', content: query },
              ],
            },
            { signal: attemptSignal },
          ),
        { retries: 0, attemptTimeoutMs: options.timeoutMs ?? 60_000, ...(signal ? { signal } : {}) },
      );
      return r.text;
    },
  };
}

/** The generator on an OpenAI-compatible chat endpoint. */
export interface OpenAIGeneratorOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  temperature?: number;
  timeoutMs?: number;
  system?: string;
}

export function createOpenAIAnswerGenerator(options: OpenAIGeneratorOptions): AnswerGenerator {
  const { model, baseURL, apiKey, ...rest } = options;
  return createChatAnswerGenerator({ ...rest, model: new OpenAIChatModel({ model, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) }) });
}
