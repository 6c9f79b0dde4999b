import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatCallOptions, ChatMessage, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { ChatSystem, type ChatSystemOptions } from './chat-system.js';
import { classifyError } from './classify.js';
import { abortError } from './errors.js';
import { sharedNodeFetch } from './transport.js';
import { ProviderError } from './types.js';

/** Connection settings of an OpenAI-compatible endpoint. */
export interface OpenAIModelSettings {
  model: string;
  /** e.g. http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM); default OpenAI's. */
  baseURL?: string;
  /** The API key itself (resolved by the factory from `apiKeyEnv`); local servers may need none. */
  apiKey?: string;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}

type OpenAIModule = typeof import('openai');
let openaiModule: Promise<OpenAIModule> | undefined;

/**
 * The official client, made when a model is built: its package is imported then (once per process), not when
 * assay starts, so a run that calls no OpenAI-compatible model never loads it. By `import()`, not `require`,
 * so the CLI's bundle carries it as a chunk of its own (docs/runner.md, "Start-up").
 */
export function openaiClient(options: ConstructorParameters<OpenAIModule['OpenAI']>[0]): Promise<OpenAI> {
  const client = (openaiModule ??= import('openai')).then(({ OpenAI }) => new OpenAI(options));
  client.catch(() => {}); // reported by the first call that awaits it, not as an unhandled rejection
  return client;
}

/**
 * Any OpenAI-compatible chat-completions endpoint through the official `openai` client, with its retries
 * off and the keep-alive node:http transport (transport.ts) as its fetch: about half the CPU per call of
 * the global fetch at the runner's rates. The package starts loading when the model is built; a call
 * waits for it before its latency clock starts.
 */
export class OpenAIChatModel implements ChatModel {
  readonly provider = 'openai';
  readonly modelId: string;
  readonly id: string;
  readonly baseURL?: string;
  readonly capabilities = { jsonSchema: true, tools: true };
  private readonly client: Promise<OpenAI>;

  constructor(settings: OpenAIModelSettings) {
    this.modelId = settings.model;
    this.id = `openai:${settings.model}`;
    this.baseURL = settings.baseURL;
    this.client = openaiClient({
      baseURL: settings.baseURL,
      // The client refuses to start without a key; local servers ignore it.
      apiKey: settings.apiKey ?? 'not-needed',
      // callWithRetry (src/providers/retry.ts) is the one place that retries.
      maxRetries: 0,
      defaultHeaders: settings.headers,
      fetch: sharedNodeFetch(),
    });
  }

  body(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
    const body: ChatCompletionCreateParamsNonStreaming = { model: this.modelId, messages: request.messages.map(openaiMessage) };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    const rf = request.responseFormat;
    if (rf) {
      body.response_format = rf.schema
        ? {
            type: 'json_schema',
            json_schema: { name: rf.name, strict: true, schema: { ...rf.schema }, ...(rf.description ? { description: rf.description } : {}) },
          }
        : { type: 'json_object' };
    }
    if (request.tools?.length) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: { ...t.parameters }, strict: t.strict ?? true },
      }));
      const c = request.toolChoice;
      if (c !== undefined) body.tool_choice = typeof c === 'string' ? c : { type: 'function', function: { name: c.tool } };
    }
    return body;
  }

  async generate(request: ChatRequest, { signal }: ChatCallOptions): Promise<ChatResponse> {
    const who = this.id;
    const client = await this.client;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create(this.body(request), { signal });
    } catch (err) {
      throw mapOpenAIError(who, err, signal);
    }
    const latencyMs = performance.now() - started;
    const choice = completion?.choices?.[0];
    const message = choice?.message;
    const toolCalls = message?.tool_calls?.flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
    );
    if (typeof message?.content !== 'string' && !toolCalls?.length) {
      throw new ProviderError('invalid_response', `${who}: the answer has no message content (${JSON.stringify(completion).slice(0, 200)})`);
    }
    const u = completion.usage;
    return {
      text: typeof message?.content === 'string' ? message.content : '',
      ...(toolCalls?.length ? { toolCalls } : {}),
      ...(u ? { usage: { promptTokens: u.prompt_tokens ?? 0, completionTokens: u.completion_tokens ?? 0 } } : {}),
      ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
      latencyMs,
    };
  }
}

/** The openai client's errors (and anything else it lets through), read as every system's are (classify.ts). */
export const mapOpenAIError = classifyError;

/** A message in chat-completions form: an assistant's `tool_calls`, a `tool` message answering its call's id. */
function openaiMessage(m: ChatMessage): ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant' && m.toolCalls?.length)
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c, n) => ({ id: c.id ?? `call_${n}`, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    };
  return { role: m.role, content: m.content };
}

export interface OpenAISystemOptions extends OpenAIModelSettings, ChatSystemOptions {}

/** The system under test on an OpenAI-compatible endpoint (a ChatSystem over OpenAIChatModel). */
export class OpenAISystem extends ChatSystem {
  constructor(options: OpenAISystemOptions) {
    super(new OpenAIChatModel(options), options);
  }
}
