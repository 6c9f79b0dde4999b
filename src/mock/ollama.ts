import { openaiMessages } from './openai.js';
import { callsOf, contentText, parsedArguments, startMockServer, type Dialect } from './server.js';
import type { MockServer, MockServerOptions } from './types.js';

/**
 * Ollama's native API (POST /api/chat with "stream": false, POST /api/embed): `format` for structured
 * output, `options` for sampling, counts as prompt_eval_count / eval_count, errors as { error }.
 */

interface ChatBody {
  model?: string;
  messages?: { role: string; content: unknown; [key: string]: unknown }[];
  format?: unknown;
  options?: { temperature?: number; num_predict?: number };
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
}

export const ollamaDialect: Dialect = {
  name: 'ollama',
  basePath: '',
  route: (method, path) => (method !== 'POST' ? undefined : path === '/api/chat' ? 'chat' : path === '/api/embed' ? 'embed' : undefined),
  chatView: (raw) => {
    const b = raw as ChatBody;
    if (!b || !Array.isArray(b.messages)) throw new Error('messages: required');
    if (b.stream !== false) throw new Error('this mock answers only "stream": false');
    const system = b.messages.filter((m) => m.role === 'system').map((m) => contentText(m.content));
    return {
      model: String(b.model ?? ''),
      ...(system.length ? { system: system.join('\n') } : {}),
      messages: openaiMessages(b.messages.filter((m) => m.role !== 'system')),
      ...(typeof b.options?.temperature === 'number' ? { temperature: b.options.temperature } : {}),
      ...(typeof b.options?.num_predict === 'number' ? { maxTokens: b.options.num_predict } : {}),
      json: b.format !== undefined && b.format !== '',
      ...(b.format && typeof b.format === 'object' ? { schema: b.format } : {}),
      tools: (b.tools ?? []).map((t) => String(t.function?.name ?? '')),
    };
  },
  chatBody: (a, view, _n, usage) => ({
    model: view.model,
    created_at: new Date().toISOString(),
    message: {
      role: 'assistant',
      content: callsOf(a).length ? '' : a.content,
      ...(callsOf(a).length ? { tool_calls: callsOf(a).map((c) => ({ function: { name: c.name, arguments: parsedArguments(c.arguments) } })) } : {}),
    },
    done: true,
    done_reason: a.finishReason ?? 'stop',
    total_duration: 1000,
    prompt_eval_count: usage.prompt,
    eval_count: usage.completion,
  }),
  embedView: (raw) => {
    const b = raw as { model?: string; input?: string | string[] };
    return { model: String(b?.model ?? ''), input: (Array.isArray(b?.input) ? b.input : [b?.input]).map(String) };
  },
  embedBody: (vectors, view) => ({ model: view.model, embeddings: vectors, total_duration: 1000, prompt_eval_count: view.input.join(' ').length }),
  errorBody: (_status, message) => ({ body: { error: message } }),
  authorized: (req, key) => req.headers.authorization === `Bearer ${key}`,
};

export function startMockOllama(options: MockServerOptions = {}): Promise<MockServer> {
  return startMockServer(ollamaDialect, options);
}
