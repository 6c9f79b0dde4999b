import type { ChatRequest as OllamaChatRequest, ChatResponse as OllamaChatResponse, EmbedResponse, Message as OllamaMessage, Ollama } from 'ollama';
import type { ChatCallOptions, ChatMessage, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import type { EmbeddingModel, EmbedOptions, EmbedResult } from './embedding-model.js';
import { abortError, statusError } from './errors.js';
import { classifyError } from './classify.js';
import { loadPackage } from './package.js';
import { sharedNodeFetch } from './transport.js';
import { ProviderError } from './types.js';

/**
 * Ollama's native API (/api/chat, /api/embed) through the official `ollama` client (loaded when a model is built).
 * The client takes no per-request signal and drops response headers on errors, so each call gets a client
 * whose fetch carries the call's signal and keeps the headers of the last answer (Retry-After).
 */

export interface OllamaSettings {
  model: string;
  /** Default http://127.0.0.1:11434. */
  baseURL?: string;
  /** For a hosted Ollama behind a bearer key (ollama.com); a local server needs none. */
  apiKey?: string;
  headers?: Record<string, string>;
}

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';

type OllamaModule = typeof import('ollama');
const ollamaModule = () => loadPackage<OllamaModule>('ollama', 'the ollama provider');

interface Call {
  client: Ollama;
  headers(): { get(name: string): string | null } | undefined;
}

function clientFor(Client: OllamaModule['Ollama'], s: OllamaSettings, signal: AbortSignal | undefined): Call {
  const base = sharedNodeFetch();
  let last: { get(name: string): string | null } | undefined;
  const client = new Client({
    host: s.baseURL ?? OLLAMA_DEFAULT_URL,
    headers: { ...s.headers, ...(s.apiKey ? { Authorization: `Bearer ${s.apiKey}` } : {}) },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const res = await base(input, { ...init, ...(signal ? { signal } : {}) });
      last = res.headers;
      return res;
    }) as typeof fetch,
  });
  return { client, headers: () => last };
}

function mapOllamaError(who: string, err: unknown, signal: AbortSignal, headers: Call['headers'] | undefined): ProviderError {
  if (ProviderError.isInstance(err)) return err;
  if (signal.aborted) return abortError(signal, who, err);
  const e = err as { name?: string; status_code?: unknown; error?: unknown };
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') return statusError(who, e.status_code, headers?.(), String(e.error ?? ''), err);
  // The client reads a 200 answer with response.json(): a body that is not JSON is a SyntaxError.
  if (err instanceof SyntaxError) return new ProviderError('invalid_response', `${who}: the answer is not JSON (${err.message})`, { cause: err });
  return classifyError(who, err, signal);
}

/** A message in Ollama's form: an assistant's `tool_calls` with their arguments as objects, a `tool` message naming its tool. */
function ollamaMessage(m: ChatMessage): OllamaMessage {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_name: m.name };
  if (m.role === 'assistant' && m.toolCalls?.length)
    return {
      role: 'assistant',
      content: m.content,
      tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: argumentsObject(c.arguments) } })),
    };
  return { role: m.role, content: m.content };
}

/** Ollama takes a call's arguments as an object: the JSON text parsed, anything else as { text }. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // not JSON: kept as text below
  }
  return { text };
}

export class OllamaChatModel implements ChatModel {
  readonly provider = 'ollama';
  readonly modelId: string;
  readonly id: string;
  readonly baseURL?: string;
  // Ollama offers tools but cannot force one: `toolChoice` is not part of its API.
  readonly capabilities = { jsonSchema: true, tools: false };

  private readonly Client: OllamaModule['Ollama'];

  constructor(private readonly settings: OllamaSettings) {
    this.modelId = settings.model;
    this.id = `ollama:${settings.model}`;
    this.baseURL = settings.baseURL;
    this.Client = ollamaModule().Ollama;
  }

  async generate(request: ChatRequest, { signal }: ChatCallOptions): Promise<ChatResponse> {
    const who = this.id;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    const body: OllamaChatRequest & { stream: false } = {
      model: this.modelId,
      messages: request.messages.map(ollamaMessage),
      stream: false,
    };
    const options: Record<string, number> = {};
    if (request.temperature !== undefined) options.temperature = request.temperature;
    if (request.maxTokens !== undefined) options.num_predict = request.maxTokens;
    if (Object.keys(options).length) body.options = options;
    if (request.responseFormat) body.format = request.responseFormat.schema ?? 'json';
    if (request.tools?.length)
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description ?? '', parameters: t.parameters as never },
      }));
    let call: Call | undefined;
    let r: OllamaChatResponse;
    try {
      call = clientFor(this.Client, this.settings, signal);
      r = await call.client.chat(body);
    } catch (err) {
      throw mapOllamaError(who, err, signal, call?.headers);
    }
    const message = r?.message;
    const toolCalls = message?.tool_calls?.map((c) => ({ name: c.function.name, arguments: JSON.stringify(c.function.arguments ?? {}) }));
    if (typeof message?.content !== 'string')
      throw new ProviderError('invalid_response', `${who}: the answer has no message (${JSON.stringify(r).slice(0, 200)})`);
    return {
      text: message.content,
      ...(toolCalls?.length ? { toolCalls } : {}),
      ...(typeof r.prompt_eval_count === 'number' || typeof r.eval_count === 'number'
        ? { usage: { promptTokens: r.prompt_eval_count ?? 0, completionTokens: r.eval_count ?? 0 } }
        : {}),
      ...(r.done_reason ? { finishReason: r.done_reason } : {}),
      latencyMs: performance.now() - started,
    };
  }
}

export class OllamaEmbeddingModel implements EmbeddingModel {
  readonly provider = 'ollama';
  readonly modelId: string;
  readonly id: string;
  readonly baseURL?: string;
  readonly maxBatchSize = 256;

  private readonly Client: OllamaModule['Ollama'];

  constructor(private readonly settings: OllamaSettings) {
    this.modelId = settings.model;
    this.id = `ollama:${settings.model}`;
    this.baseURL = settings.baseURL;
    this.Client = ollamaModule().Ollama;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<EmbedResult> {
    const who = this.id;
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    let call: Call | undefined;
    let r: EmbedResponse;
    try {
      call = clientFor(this.Client, this.settings, signal);
      r = await call.client.embed({ model: this.modelId, input: [...texts] });
    } catch (err) {
      throw mapOllamaError(who, err, signal, call?.headers);
    }
    const rows = r?.embeddings;
    if (!Array.isArray(rows) || rows.length !== texts.length)
      throw new ProviderError('invalid_response', `${who}: ${Array.isArray(rows) ? rows.length : 'no'} embeddings for ${texts.length} inputs`);
    return {
      embeddings: rows,
      ...(typeof r.prompt_eval_count === 'number' ? { usage: { promptTokens: r.prompt_eval_count } } : {}),
      latencyMs: performance.now() - started,
    };
  }
}
