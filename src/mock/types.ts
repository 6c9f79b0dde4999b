import type { IncomingMessage } from 'node:http';

/**
 * What a mock LLM server answers, whatever wire format it speaks: the model's text (or a tool call), an
 * HTTP error, or a fault (a hang, a dropped connection, a body that is not JSON). Each dialect renders it
 * in its provider's documented format.
 */

export interface MockAnswer {
  /** What the model says. A dialect whose client asked for a forced tool (a JSON tool) sends it as that tool's input. */
  content: string;
  toolCall?: { name: string; arguments: string };
  /** Several calls at once (parallel tool calls), in order; over `toolCall`. */
  toolCalls?: { name: string; arguments: string }[];
  delayMs?: number;
  /** Token counts to report; default: about 4 characters a token. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The finish reason in the dialect's own words; default its "stop". */
  finishReason?: string;
}

export type MockReply =
  /** A normal answer: assistant content (and optional tool call). */
  | MockAnswer
  /** An HTTP error status, optionally with Retry-After (seconds). */
  | { status: number; body?: unknown; retryAfterSeconds?: number; delayMs?: number }
  /** Never answer (until the client gives up or the server closes). */
  | { hang: true }
  /** Destroy the socket without a response (connection reset). */
  | { reset: true }
  /** Answer 200 with a body that is not valid JSON. */
  | { garbage: string; delayMs?: number };

/** One message of a chat request, the same in every wire format. */
export interface MockMessage {
  role: string;
  content: string;
  /** An assistant message's tool calls (arguments parsed when they were JSON). */
  toolCalls?: { name: string; arguments: unknown }[];
  /** A tool result's tool (role `tool`), when the wire format names it or its call id leads to it. */
  toolName?: string;
}

/** A chat request as every dialect sees it: the same fields whatever the wire format. */
export interface MockChatView {
  model: string;
  /** System prompt(s), joined. */
  system?: string;
  /**
   * The conversation without the system prompt, as text: each tool result is a message of its own (role `tool`,
   * with the tool's name), whatever block or part the wire format carries it in; an assistant's tool calls are
   * on its message.
   */
  messages: MockMessage[];
  temperature?: number;
  maxTokens?: number;
  /** The client asked for JSON (a response format, a JSON mime type, or a forced JSON tool). */
  json: boolean;
  /** The JSON Schema sent with it, when one was. */
  schema?: unknown;
  /** Names of the tools offered. */
  tools: string[];
  /** The tool the client forces, if any. */
  forcedTool?: string;
  /** The request body as received. */
  body: unknown;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface MockEmbedView {
  model: string;
  input: string[];
  body: unknown;
  path: string;
}

export type ChatHandler = (request: MockChatView, n: number) => MockReply | Promise<MockReply>;
export type EmbedHandler = (request: MockEmbedView, n: number) => number[][] | MockReply | Promise<number[][] | MockReply>;

export interface MockServerOptions {
  /** Answers chat requests. `n` is the 1-based count of chat requests so far. Default: "ok". */
  chat?: ChatHandler;
  /** Answers embedding requests; default: deterministic pseudo-vectors of `dimension`. */
  embeddings?: EmbedHandler;
  /** Dimension of the default embeddings (default 8). */
  dimension?: number;
  /** If set, requests must carry this key the way the provider expects (bearer, x-api-key, …) or get 401. */
  apiKey?: string;
  /** Port to listen on (default: any free port). */
  port?: number;
  /** Host to listen on (default 127.0.0.1). */
  host?: string;
}

export interface MockServer {
  /** The base URL a client of this provider is configured with (e.g. …/v1 for OpenAI and Anthropic). */
  baseURL: string;
  /** Scheme, host and port. */
  url: string;
  /** Every request received, in order, with its path and parsed body. */
  requests: { path: string; body: unknown; headers: IncomingMessage['headers'] }[];
  /** Highest number of requests in flight at once. */
  readonly maxInFlight: number;
  readonly inFlight: number;
  close(): Promise<void>;
}
