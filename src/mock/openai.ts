import type { IncomingMessage } from 'node:http';
import { bearer, callsOf, contentText, mockId, parsedArguments, roughTokens, startMockServer, type Dialect } from './server.js';
import type { MockAnswer, MockChatView, MockEmbedView, MockMessage, MockReply, MockServer, MockServerOptions } from './types.js';

/**
 * OpenAI's chat-completions and embeddings wire format (POST /v1/chat/completions, POST /v1/embeddings),
 * which vLLM, Ollama's /v1, llama.cpp and LM Studio speak too. Azure OpenAI (azure.ts) and Mistral
 * (mistral.ts) reuse its bodies with their own routes, keys and errors.
 */

export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: unknown }[];
  temperature?: number;
  response_format?: unknown;
  tools?: unknown[];
  tool_choice?: unknown;
  [key: string]: unknown;
}

export interface EmbeddingsRequestBody {
  model: string;
  input: string | string[];
  [key: string]: unknown;
}

interface OpenAIToolCall {
  id?: string;
  function?: { name?: unknown; arguments?: unknown };
}

/**
 * Messages of OpenAI-shaped bodies (OpenAI, Azure, Mistral, Ollama): an assistant's `tool_calls`, and `tool`
 * messages named by `name` (Mistral), `tool_name` (Ollama) or the id of the call they answer (OpenAI).
 */
export function openaiMessages(list: { role: string; content: unknown; [key: string]: unknown }[]): MockMessage[] {
  const names = new Map<string, string>();
  return list.map((m) => {
    const out: MockMessage = { role: m.role, content: contentText(m.content) };
    if (Array.isArray(m.tool_calls)) {
      out.toolCalls = (m.tool_calls as OpenAIToolCall[]).map((c) => {
        const name = String(c.function?.name ?? '');
        if (c.id) names.set(c.id, name);
        return { name, arguments: parsedArguments(c.function?.arguments) };
      });
    }
    if (m.role === 'tool') {
      const name = m.name ?? m.tool_name ?? (typeof m.tool_call_id === 'string' ? names.get(m.tool_call_id) : undefined);
      if (typeof name === 'string') out.toolName = name;
    }
    return out;
  });
}

/** The request fields of OpenAI-shaped bodies (OpenAI, Azure OpenAI, Mistral). */
export function openaiChatView(raw: unknown): Omit<MockChatView, 'body' | 'path' | 'headers'> {
  const b = raw as ChatRequestBody & { max_tokens?: number; max_completion_tokens?: number };
  if (!b || !Array.isArray(b.messages)) throw new Error('expected "messages" to be a list');
  const system = b.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => contentText(m.content));
  const rf = b.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  const tools = Array.isArray(b.tools) ? b.tools.map((t) => String((t as { function?: { name?: unknown } }).function?.name ?? '')) : [];
  const tc = b.tool_choice as { function?: { name?: string } } | string | undefined;
  const forcedTool = typeof tc === 'object' ? tc.function?.name : (tc === 'required' || tc === 'any') && tools.length === 1 ? tools[0] : undefined;
  return {
    model: String(b.model ?? ''),
    ...(system.length ? { system: system.join('\n') } : {}),
    messages: openaiMessages(b.messages.filter((m) => m.role !== 'system' && m.role !== 'developer')),
    ...(typeof b.temperature === 'number' ? { temperature: b.temperature } : {}),
    ...(typeof (b.max_tokens ?? b.max_completion_tokens) === 'number' ? { maxTokens: (b.max_tokens ?? b.max_completion_tokens) as number } : {}),
    json: rf?.type === 'json_schema' || rf?.type === 'json_object' || forcedTool !== undefined,
    ...(rf?.json_schema?.schema !== undefined ? { schema: rf.json_schema.schema } : {}),
    tools,
    ...(forcedTool !== undefined ? { forcedTool } : {}),
  };
}

/** A chat.completion body. A forced tool without an explicit tool call gets the content as its arguments. */
export function openaiChatBody(a: MockAnswer, view: MockChatView, n: number, usage: { prompt: number; completion: number }): unknown {
  const calls = callsOf(a);
  if (!calls.length && view.forcedTool !== undefined) calls.push({ name: view.forcedTool, arguments: a.content });
  const call = calls[0];
  const message: Record<string, unknown> = { role: 'assistant', content: call ? null : a.content };
  if (call) message.tool_calls = calls.map((c, k) => ({ id: mockId(k ? `call_${k}_` : 'call_', n), type: 'function', function: c }));
  return {
    id: mockId('chatcmpl-', n),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: view.model,
    choices: [{ index: 0, message, finish_reason: a.finishReason ?? (call ? 'tool_calls' : 'stop'), logprobs: null }],
    usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
  };
}

export function openaiEmbedView(raw: unknown): Omit<MockEmbedView, 'body' | 'path'> {
  const b = raw as EmbeddingsRequestBody;
  return { model: String(b?.model ?? ''), input: (Array.isArray(b?.input) ? b.input : [b?.input]).map(String) };
}

export function openaiEmbedBody(vectors: number[][], view: MockEmbedView): unknown {
  const tokens = roughTokens(view.input.join(' '));
  return {
    object: 'list',
    model: view.model,
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'invalid_request_error', 404: 'not_found_error', 429: 'rate_limit_exceeded' };

export const openaiDialect: Dialect = {
  name: 'openai',
  basePath: '/v1',
  route: (method, path) => (method !== 'POST' ? undefined : path.endsWith('/chat/completions') ? 'chat' : path.endsWith('/embeddings') ? 'embed' : undefined),
  chatView: (body) => openaiChatView(body),
  chatBody: openaiChatBody,
  embedView: (body) => openaiEmbedView(body),
  embedBody: openaiEmbedBody,
  errorBody: (status, message) => ({
    body: { error: { message, type: ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), code: null } },
  }),
  authorized: (req: IncomingMessage, key) => bearer(req) === key,
};

/** The OpenAI mock with handlers that receive the raw request bodies (what most tests inspect). */
export interface MockOpenAIOptions extends Omit<MockServerOptions, 'chat' | 'embeddings'> {
  /** Handler for chat completions. `n` is the 1-based count of chat requests so far. */
  chat?: (body: ChatRequestBody, n: number) => MockReply | Promise<MockReply>;
  /** Handler for embeddings; default returns deterministic pseudo-vectors of `dimension`. */
  embeddings?: (body: EmbeddingsRequestBody, n: number) => number[][] | MockReply | Promise<number[][] | MockReply>;
}

export type MockOpenAI = MockServer;
export type { MockAnswer, MockReply } from './types.js';

/** A real local HTTP server speaking the OpenAI-compatible protocol. */
export function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const { chat, embeddings, ...rest } = options;
  return startMockServer(openaiDialect, {
    ...rest,
    ...(chat ? { chat: (view, n) => chat(view.body as ChatRequestBody, n) } : {}),
    ...(embeddings ? { embeddings: (view, n) => embeddings(view.body as EmbeddingsRequestBody, n) } : {}),
  });
}
