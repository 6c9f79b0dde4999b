/**
 * The model spec: what every chat model adapter offers and every feature consumes (the system under test,
 * verifiers/judges, SPADE's steps, grounding's answers). Types only, no implementation (GUIDE: versioned
 * provider interfaces). docs/providers/model-spec.md explains it for people who write their own adapter.
 *
 * The rules an adapter follows (the shared suite src/providers/chat-contract.case.ts checks them):
 * - it throws only ProviderError, its kind mapped once (429 → rate_limit with Retry-After, 5xx → server,
 *   timeouts, connection failures, other 4xx → client, an unreadable body → invalid_response);
 * - it never retries: `callWithRetry` (src/providers/retry.ts) is the one place that does;
 * - it stops promptly when `signal` aborts: kind `timeout` when the abort's reason is a timeout, else `aborted`;
 * - it reports the provider's token usage and its raw finish reason when the provider sends them.
 * Decorators (a response cache, prices, a rate limiter) wrap a ChatModel and are ChatModels themselves.
 */

export type { TokenUsage } from '../core/call.js';
import type { TokenUsage } from '../core/call.js';

/**
 * One message of a chat. An agent's loop (agent-system.ts) adds the assistant's tool calls and a `tool` message
 * per call with its result (or its error), which each adapter sends in its provider's own wire format.
 */
export type ChatMessage =
  { role: 'system' | 'user'; content: string } | { role: 'assistant'; content: string; toolCalls?: readonly ToolCall[] } | ToolResultMessage;

/** The result of one tool call, answering the call with `toolCallId`. */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  /** The tool's name (Gemini and Ollama name results by tool, not by call). */
  name: string;
  /** The result as the model reads it: text, or JSON text. */
  content: string;
  /** The call failed (the tool threw, timed out, is not declared, or its arguments failed the schema): `content` says why. */
  isError?: boolean;
}

/** Ask for a JSON object matching a JSON Schema (structured output where the provider supports it). */
export interface JsonResponseFormat {
  type: 'json';
  /** A short name for the schema (OpenAI's json_schema.name, the JSON tool's name elsewhere). */
  name: string;
  description?: string;
  /** Without a schema: any JSON object (OpenAI's json_object). */
  schema?: Record<string, unknown>;
}

export interface ChatTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** OpenAI's strict mode (the schema must then close every object); default true, an agent's tools false. */
  strict?: boolean;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  responseFormat?: JsonResponseFormat;
  tools?: readonly ChatTool[];
  /** Default 'auto' when tools are given; `{ tool }` forces that tool. */
  toolChoice?: 'auto' | 'required' | { tool: string };
}

export interface ChatCallOptions {
  /** Aborted on a per-call timeout (reason: a TimeoutError or ProviderError kind timeout) or a cancel. */
  signal: AbortSignal;
  /** Sample index j of the call, so a response cache keeps M samples as M independent draws. */
  sample?: number;
  /**
   * What identifies the request for a response cache when its text does not (a judge's prompt carries a
   * fresh random nonce each time); default: the request itself.
   */
  cacheKey?: string;
  /**
   * The call's nonce, when its answer must be bound to it (a judge's verdict): a response cache keeps it with
   * the answer and gives it back on a hit (ChatResponse.nonce), so the answer is checked against its own call's.
   */
  nonce?: string;
}

export interface ToolCall {
  /** The provider's id for the call (a tool result answers it by this id); absent when the provider gives none (Ollama). */
  id?: string;
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

export interface ChatResponse {
  /** The answer's text ('' when the answer is only tool calls). */
  text: string;
  toolCalls?: ToolCall[];
  /** Tokens of the calls actually made (absent for a cached answer: no call, no tokens). */
  usage?: TokenUsage;
  /** The provider's own finish reason, e.g. "stop", "end_turn", "STOP", "length". */
  finishReason?: string;
  /** Wall time of the call in ms. */
  latencyMs: number;
  /** USD of this call at the configured prices (set by the prices decorator; 0 for a cached answer). */
  costUsd?: number;
  /** Served from the response cache: no call was made. */
  cached?: boolean;
  /** A cached answer: the nonce of the call it was given to (ChatCallOptions.nonce), when that call had one. */
  nonce?: string;
  /** What the provider did not apply as asked (e.g. a temperature the model does not take), in its library's words. */
  warnings?: string[];
}

export interface ChatModelCapabilities {
  /** `responseFormat` is enforced by the provider (JSON Schema structured output or a forced JSON tool). */
  jsonSchema: boolean;
  /** Function tools and a forced `toolChoice` are supported. */
  tools: boolean;
}

export interface ChatModel {
  /** The wire protocol: openai, anthropic, google, bedrock, azure, mistral, ollama, or your own. */
  readonly provider: string;
  readonly modelId: string;
  /** `${provider}:${modelId}`, shown in reports. */
  readonly id: string;
  /** The endpoint, when not the provider's default (part of a response cache's key). */
  readonly baseURL?: string;
  readonly capabilities: ChatModelCapabilities;
  generate(request: ChatRequest, options: ChatCallOptions): Promise<ChatResponse>;
  close?(): Promise<void>;
}
