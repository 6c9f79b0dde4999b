import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { InputValue } from '../core/validator.js';
import { abortError, networkError, statusError, messageOf } from './errors.js';
import { renderTemplate } from './template.js';
import { sharedNodeFetch } from './transport.js';
import { ProviderError, type GenerateOptions, type Generation, type SystemUnderTest } from './types.js';

export interface OpenAISystemOptions {
  /** e.g. http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM); default OpenAI's. */
  baseURL?: string;
  model: string;
  temperature?: number;
  maxTokens?: number;
  /** System prompt, sent first. */
  system?: string;
  /** Prompt for object inputs, e.g. "Summarise: {{text}}"; string inputs are sent as they are. */
  template?: string;
  /** The API key itself (resolved by the factory from `apiKeyEnv`); local servers may need none. */
  apiKey?: string;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** Any OpenAI-compatible chat-completions endpoint, through the official client. */
export class OpenAISystem implements SystemUnderTest {
  readonly id: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAISystemOptions) {
    this.id = `openai:${options.model}`;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      // The client refuses to start without a key; local servers ignore it.
      apiKey: options.apiKey ?? 'not-needed',
      // The runner retries in one place, with its own backoff and Retry-After handling.
      maxRetries: 0,
      defaultHeaders: options.headers,
      // Keep-alive node:http transport: about half the CPU per call of the global fetch (see transport.ts).
      fetch: sharedNodeFetch(),
    });
  }

  /** The chat messages for one input: system prompt, then the prompt (object inputs through the template). */
  messages(input: InputValue): ChatMessage[] {
    const out: ChatMessage[] = [];
    if (this.options.system) out.push({ role: 'system', content: this.options.system });
    if (typeof input === 'string') out.push({ role: 'user', content: input });
    else if (this.options.template !== undefined) out.push({ role: 'user', content: renderTemplate(this.options.template, input) });
    else out.push({ role: 'user', content: JSON.stringify(input) });
    return out;
  }

  async generate(input: InputValue, { signal }: GenerateOptions): Promise<Generation> {
    const who = this.id;
    if (signal.aborted) throw abortError(signal, who);
    let messages: ChatMessage[];
    try {
      messages = this.messages(input);
    } catch (err) {
      throw new ProviderError('client', `${who}: ${messageOf(err)}`, { cause: err });
    }
    const started = performance.now();
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: this.options.model,
          messages,
          ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
          ...(this.options.maxTokens !== undefined ? { max_tokens: this.options.maxTokens } : {}),
        },
        { signal },
      );
    } catch (err) {
      throw mapOpenAIError(who, err, signal);
    }
    const latencyMs = performance.now() - started;
    const choice = completion?.choices?.[0];
    const message = choice?.message;
    let text: string;
    if (typeof message?.content === 'string') text = message.content;
    else if (message?.tool_calls?.length) {
      // A tool-calling system's answer is its calls; keep them as text so validators can read them.
      text = JSON.stringify(
        message.tool_calls.map((c) => (c.type === 'function' ? { name: c.function.name, arguments: c.function.arguments } : c)),
      );
    } else {
      throw new ProviderError('invalid_response', `${who}: the answer has no message content (${JSON.stringify(completion).slice(0, 200)})`);
    }
    const usage = completion.usage
      ? { promptTokens: completion.usage.prompt_tokens ?? 0, completionTokens: completion.usage.completion_tokens ?? 0 }
      : undefined;
    return { text, usage, latencyMs };
  }
}

/** Maps the openai client's errors (and anything else it lets through) to ProviderError kinds. */
export function mapOpenAIError(who: string, err: unknown, signal: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (signal.aborted || err instanceof APIUserAbortError) {
    return signal.aborted ? abortError(signal, who, err) : new ProviderError('aborted', `${who}: aborted`, { cause: err });
  }
  if (err instanceof APIConnectionTimeoutError) return new ProviderError('timeout', `${who}: timed out`, { cause: err });
  if (err instanceof APIConnectionError) {
    const mapped = networkError(who, err.cause ?? err, signal);
    // The client says "Connection error." for every network failure; the cause says which one.
    return mapped.kind === 'invalid_response' ? new ProviderError('connection', `${who}: ${messageOf(err)}`, { cause: err }) : mapped;
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return statusError(who, err.status, err.headers, messageOf(err), err);
  }
  // A body that is not JSON, or JSON without the expected shape.
  return networkError(who, err, signal);
}
