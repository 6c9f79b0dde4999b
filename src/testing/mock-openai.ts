import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real local HTTP server speaking the OpenAI-compatible protocol (POST /v1/chat/completions and
 * POST /v1/embeddings), for tests and benchmarks: it stands in for a paid LLM API, nothing else.
 * Each request is answered by a scripted handler, which can also inject faults (429, 5xx, delays,
 * hangs, dropped connections) to exercise retry and timeout paths.
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

export interface MockAnswer {
  content: string;
  toolCall?: { name: string; arguments: string };
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
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

export interface MockOpenAIOptions {
  /** Handler for chat completions. `n` is the 1-based count of chat requests so far. */
  chat?: (body: ChatRequestBody, n: number) => MockReply | Promise<MockReply>;
  /** Handler for embeddings; default returns deterministic pseudo-vectors of `dimension`. */
  embeddings?: (body: EmbeddingsRequestBody, n: number) => number[][] | MockReply | Promise<number[][] | MockReply>;
  /** Dimension of the default embeddings. */
  dimension?: number;
  /** If set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
}

export interface MockOpenAI {
  /** Base URL including /v1, as the `openai` client's baseURL expects. */
  baseURL: string;
  url: string;
  server: Server;
  /** Every request body received, in order, with its path. */
  requests: { path: string; body: unknown; headers: IncomingMessage['headers'] }[];
  /** Highest number of requests in flight at once. */
  readonly maxInFlight: number;
  readonly inFlight: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Deterministic unit vector from a string (FNV-1a seeded xorshift), so equal texts embed equally. */
export function pseudoEmbedding(text: string, dimension: number): number[] {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  const v: number[] = [];
  let s = h || 1;
  let norm = 0;
  for (let d = 0; d < dimension; d++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const x = s / 0xffffffff - 0.5;
    v.push(x);
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  return v.map((x) => x / norm);
}

export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  let inFlight = 0;
  let maxInFlight = 0;
  let chatCount = 0;
  let embCount = 0;
  const requests: MockOpenAI['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const dimension = options.dimension ?? 8;

  const reply = async (res: ServerResponse, r: MockReply, ok: (answer: MockAnswer) => unknown) => {
    if ('hang' in r) return; // leave it open; the client's timeout or close() ends it
    if ('reset' in r) {
      res.socket?.destroy();
      return;
    }
    if ('delayMs' in r && r.delayMs) await sleep(r.delayMs);
    if ('garbage' in r) return send(res, 200, r.garbage);
    if ('status' in r) {
      const headers: Record<string, string> = {};
      if (r.retryAfterSeconds !== undefined) headers['retry-after'] = String(r.retryAfterSeconds);
      return send(res, r.status, r.body ?? { error: { message: `mock error ${r.status}`, type: 'mock_error' } }, headers);
    }
    return send(res, 200, ok(r as MockAnswer));
  };

  const server = createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight--;
    });
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return send(res, 400, { error: { message: 'invalid JSON body' } });
      }
      const path = (req.url ?? '').split('?')[0];
      requests.push({ path, body, headers: req.headers });
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(res, 401, { error: { message: 'invalid api key', type: 'invalid_request_error' } });
      }
      if (req.method === 'POST' && path.endsWith('/chat/completions')) {
        const b = body as ChatRequestBody;
        const n = ++chatCount;
        const r = options.chat ? await options.chat(b, n) : { content: 'ok' };
        return reply(res, r, (ok) => {
          const message: Record<string, unknown> = { role: 'assistant', content: ok.toolCall ? null : ok.content };
          if (ok.toolCall) {
            message.tool_calls = [{ id: `call_${n}`, type: 'function', function: ok.toolCall }];
          }
          const promptChars = JSON.stringify(b.messages ?? []).length;
          return {
            id: `chatcmpl-mock-${n}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: b.model,
            choices: [{ index: 0, message, finish_reason: ok.toolCall ? 'tool_calls' : 'stop', logprobs: null }],
            usage: {
              prompt_tokens: ok.usage?.prompt_tokens ?? Math.ceil(promptChars / 4),
              completion_tokens: ok.usage?.completion_tokens ?? Math.ceil((ok.content ?? '').length / 4),
              total_tokens: (ok.usage?.prompt_tokens ?? Math.ceil(promptChars / 4)) + (ok.usage?.completion_tokens ?? Math.ceil((ok.content ?? '').length / 4)),
            },
          };
        });
      }
      if (req.method === 'POST' && path.endsWith('/embeddings')) {
        const b = body as EmbeddingsRequestBody;
        const n = ++embCount;
        const inputs = Array.isArray(b.input) ? b.input : [b.input];
        const r = options.embeddings ? await options.embeddings(b, n) : inputs.map((t) => pseudoEmbedding(String(t), dimension));
        if (!Array.isArray(r)) return reply(res, r, () => ({}));
        return send(res, 200, {
          object: 'list',
          model: b.model,
          data: r.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: inputs.join(' ').length, total_tokens: inputs.join(' ').length },
        });
      }
      return send(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    } catch (err) {
      return send(res, 500, { error: { message: String(err) } });
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${url}/v1`,
    url,
    server,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
