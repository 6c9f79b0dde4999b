import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatCallOptions, ChatModel, ChatModelCapabilities, ChatRequest, ChatResponse, ToolCall } from './chat-model.js';
import { abortError } from './errors.js';
import { mapAiSdkError } from './classify.js';
import { sharedNodeFetch, type FetchLike } from './transport.js';
import { ProviderError } from './types.js';

/**
 * A ChatModel over an AI SDK provider package's LanguageModelV3 (`doGenerate` called directly: no `ai`
 * package, no SDK retries). The package loads when the model is built (package.ts), so a config that never
 * uses a provider never loads it; its HTTP goes through the keep-alive transport (transport.ts).
 */
export interface AiSdkModelSettings {
  provider: string;
  modelId: string;
  baseURL?: string;
  capabilities?: Partial<ChatModelCapabilities>;
  /** Builds the provider's model with our fetch; called once, when the ChatModel is built. */
  load(fetch: FetchLike): LanguageModelV3;
  /** Provider-specific options passed on every call (e.g. Anthropic's structured output mode). */
  providerOptions?: LanguageModelV3CallOptions['providerOptions'];
}

export class AiSdkChatModel implements ChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly id: string;
  readonly baseURL?: string;
  readonly capabilities: ChatModelCapabilities;
  private readonly model: LanguageModelV3;

  constructor(private readonly settings: AiSdkModelSettings) {
    this.provider = settings.provider;
    this.modelId = settings.modelId;
    this.id = `${settings.provider}:${settings.modelId}`;
    this.baseURL = settings.baseURL;
    this.capabilities = { jsonSchema: true, tools: true, ...settings.capabilities };
    this.model = settings.load(sharedNodeFetch());
  }

  async generate(request: ChatRequest, { signal }: ChatCallOptions): Promise<ChatResponse> {
    const who = this.id;
    if (signal.aborted) throw abortError(signal, who);
    const started = performance.now();
    let result: LanguageModelV3GenerateResult;
    try {
      result = await this.model.doGenerate(callOptions(request, signal, this.settings.providerOptions));
    } catch (err) {
      throw mapAiSdkError(who, err, signal);
    }
    return toResponse(who, result, performance.now() - started);
  }
}

function callOptions(request: ChatRequest, signal: AbortSignal, providerOptions: LanguageModelV3CallOptions['providerOptions']): LanguageModelV3CallOptions {
  const o: LanguageModelV3CallOptions = { prompt: promptOf(request.messages), abortSignal: signal };
  if (request.temperature !== undefined) o.temperature = request.temperature;
  if (request.maxTokens !== undefined) o.maxOutputTokens = request.maxTokens;
  const rf = request.responseFormat;
  if (rf)
    o.responseFormat = {
      type: 'json',
      name: rf.name,
      ...(rf.description ? { description: rf.description } : {}),
      ...(rf.schema ? { schema: rf.schema as never } : {}),
    };
  if (request.tools?.length) {
    o.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.parameters as never,
    }));
    const c = request.toolChoice;
    if (c !== undefined) o.toolChoice = c === 'auto' ? { type: 'auto' } : c === 'required' ? { type: 'required' } : { type: 'tool', toolName: c.tool };
  }
  if (providerOptions) o.providerOptions = providerOptions;
  return o;
}

/** An argument text as the AI SDK's prompt takes it: the parsed JSON value, or the text when it is not JSON. */
function inputOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Messages as the AI SDK's prompt: an assistant's tool calls as tool-call parts, consecutive tool results in one tool message. */
function promptOf(messages: ChatRequest['messages']): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  for (const m of messages) {
    if (m.role === 'system') prompt.push({ role: 'system', content: m.content });
    else if (m.role === 'user') prompt.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
    else if (m.role === 'assistant')
      prompt.push({
        role: 'assistant',
        content: [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c, n) => ({
            type: 'tool-call' as const,
            toolCallId: c.id ?? `call_${n}`,
            toolName: c.name,
            input: inputOf(c.arguments),
          })),
        ],
      });
    else if (m.role === 'tool') {
      const part = {
        type: 'tool-result' as const,
        toolCallId: m.toolCallId,
        toolName: m.name,
        output: m.isError ? { type: 'error-text' as const, value: m.content } : { type: 'text' as const, value: m.content },
      };
      const last = prompt[prompt.length - 1];
      if (last?.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
    }
  }
  return prompt;
}

function toResponse(who: string, r: LanguageModelV3GenerateResult, latencyMs: number): ChatResponse {
  if (!r || !Array.isArray(r.content)) throw new ProviderError('invalid_response', `${who}: the answer has no content`);
  let text = '';
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const part of r.content) {
    if (part.type === 'text') {
      text += part.text;
      hasText = true;
    } else if (part.type === 'tool-call') toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
  }
  if (!hasText && toolCalls.length === 0)
    throw new ProviderError('invalid_response', `${who}: the answer has no text and no tool call (finish reason ${r.finishReason?.raw ?? 'unknown'})`);
  const input = r.usage?.inputTokens?.total;
  const output = r.usage?.outputTokens?.total;
  return {
    text,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(input !== undefined || output !== undefined ? { usage: { promptTokens: input ?? 0, completionTokens: output ?? 0 } } : {}),
    ...(r.finishReason?.raw !== undefined ? { finishReason: r.finishReason.raw } : {}),
    ...(r.warnings?.length ? { warnings: r.warnings.map(warningText) } : {}),
    latencyMs,
  };
}

/** An AI SDK call warning as one line: "temperature: temperature is not supported by … and will be ignored". */
function warningText(w: LanguageModelV3GenerateResult['warnings'][number]): string {
  const o = w as { type: string; feature?: string; details?: string; message?: string };
  const what = o.details ?? o.message ?? o.type;
  return o.feature && !what.includes(o.feature) ? `${o.feature}: ${what}` : what;
}
