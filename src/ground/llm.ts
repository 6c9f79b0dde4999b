import OpenAI from 'openai';
import type { AnswerGenerator } from './engine.js';

/** The design's LLM Response Generator on any OpenAI-compatible chat endpoint: one call, temperature ≤ 0.3. */
export interface OpenAIGeneratorOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Clamped to at most 0.3 (design §3.1). Default 0.2. */
  temperature?: number;
  timeoutMs?: number;
  system?: string;
}

export function createOpenAIAnswerGenerator(options: OpenAIGeneratorOptions): AnswerGenerator {
  // Exactly one call per request (design §3.1): no client retry either. A failure is a 503 the caller may retry.
  const client = new OpenAI({ apiKey: options.apiKey ?? 'none', baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs ?? 60_000 });
  const temperature = Math.min(0.3, Math.max(0, options.temperature ?? 0.2));
  return {
    id: `openai:${options.model}`,
    async generate(query: string, signal?: AbortSignal): Promise<string> {
      const res = await client.chat.completions.create(
        {
          model: options.model,
          temperature,
          messages: [
            { role: 'system', content: options.system ?? 'Answer the question factually and concisely.' },
            { role: 'user', content: query },
          ],
        },
        { signal },
      );
      const content = res.choices?.[0]?.message?.content;
      return typeof content === 'string' ? content : '';
    },
  };
}
