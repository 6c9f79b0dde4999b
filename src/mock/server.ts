import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { MockAnswer, MockChatView, MockEmbedView, MockReply, MockServer, MockServerOptions } from './types.js';

/**
 * One real local HTTP server for every mock LLM API; a dialect (openai.ts, anthropic.ts, …) knows its
 * provider's routes, request fields, answer and error bodies. Faults are the same for all: statuses with
 * Retry-After, delays, hangs, dropped connections, bodies that are not JSON. A stand-in for a paid API in
 * tests, benchmarks and `assay mock`, nothing else.
 */
export interface Dialect {
  name: string;
  /** Path prefix of the base URL a client is configured with ('' for none). */
  basePath: string;
  /** Which kind of request this is; undefined: 404. */
  route(method: string, path: string): 'chat' | 'embed' | undefined;
  chatView(body: unknown, path: string, req: IncomingMessage): Omit<MockChatView, 'body' | 'path' | 'headers'>;
  chatBody(answer: MockAnswer, view: MockChatView, n: number, usage: { prompt: number; completion: number }): unknown;
  embedView?(body: unknown, path: string): Omit<MockEmbedView, 'body' | 'path'>;
  embedBody?(vectors: number[][], view: MockEmbedView): unknown;
  /** An error body in the provider's format, and any headers it adds. */
  errorBody(status: number, message: string): { body: unknown; headers?: Record<string, string> };
  /** Whether the request carries the key the way this provider expects. */
  authorized(req: IncomingMessage, apiKey: string): boolean;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/**
 * A response or tool-call id shaped like the providers' own (`chatcmpl-…`, `msg_…`: a prefix, then a long tail
 * with digits), numbered so a test can tell answers apart. Counters such as `chatcmpl-mock-7` would make every
 * error that quotes an answer look different from the next; real ids are grouped as ids (src/run/error-groups.ts).
 */
export const mockId = (prefix: string, n: number) => `${prefix}mock${String(n).padStart(12, '0')}`;

/** Roughly 4 characters a token, as the mocks count when a reply gives no usage. */
export const roughTokens = (text: string) => Math.ceil(text.length / 4);

export async function startMockServer(dialect: Dialect, options: MockServerOptions = {}): Promise<MockServer> {
  let inFlight = 0;
  let maxInFlight = 0;
  let chatCount = 0;
  let embCount = 0;
  const requests: MockServer['requests'] = [];
  const sockets = new Set<Socket>();
  const dimension = options.dimension ?? 8;

  const fail = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) => {
    const e = dialect.errorBody(status, message);
    send(res, status, e.body, { ...e.headers, ...extra });
  };

  const reply = async (res: ServerResponse, r: MockReply, ok: (answer: MockAnswer) => unknown) => {
    if ('hang' in r) return; // left open; the client's timeout or close() ends it
    if ('reset' in r) {
      res.socket?.destroy();
      return;
    }
    if ('delayMs' in r && r.delayMs) await sleep(r.delayMs);
    if (res.destroyed) return;
    if ('garbage' in r) return send(res, 200, r.garbage);
    if ('status' in r) {
      const headers: Record<string, string> = r.retryAfterSeconds !== undefined ? { 'retry-after': String(r.retryAfterSeconds) } : {};
      if (r.body !== undefined) return send(res, r.status, r.body, headers);
      return fail(res, r.status, `mock error ${r.status}`, headers);
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
        return fail(res, 400, 'invalid JSON body');
      }
      const path = (req.url ?? '').split('?')[0];
      requests.push({ path, body, headers: req.headers });
      if (options.apiKey !== undefined && !dialect.authorized(req, options.apiKey)) return fail(res, 401, 'invalid api key');
      const kind = dialect.route(req.method ?? 'GET', path);
      if (kind === 'chat') {
        const n = ++chatCount;
        let view: MockChatView;
        try {
          view = { ...dialect.chatView(body, path, req), body, path, headers: req.headers };
        } catch (err) {
          return fail(res, 400, `malformed request: ${(err as Error).message}`);
        }
        const r = options.chat ? await options.chat(view, n) : { content: 'ok' };
        return reply(res, r, (a) => {
          const prompt = a.usage?.prompt_tokens ?? roughTokens([view.system ?? '', ...view.messages.map((m) => m.content)].join('\n'));
          const calls = callsOf(a);
          const completion = a.usage?.completion_tokens ?? roughTokens(calls.length ? calls.map((c) => c.arguments).join('') : a.content);
          return dialect.chatBody(a, view, n, { prompt, completion });
        });
      }
      if (kind === 'embed' && dialect.embedView && dialect.embedBody) {
        const n = ++embCount;
        const view: MockEmbedView = { ...dialect.embedView(body, path), body, path };
        const r = options.embeddings ? await options.embeddings(view, n) : view.input.map((t) => pseudoEmbedding(t, dimension));
        if (!Array.isArray(r)) return reply(res, r, () => ({}));
        return send(res, 200, dialect.embedBody(r, view));
      }
      return fail(res, 404, `no route ${req.method} ${path}`);
    } catch (err) {
      if (!res.headersSent) return fail(res, 500, String(err));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    baseURL: `${url}${dialect.basePath}`,
    url,
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

/** Text of a message content in any of the common shapes: a string, or a list of parts with `text`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '',
      )
      .join('');
  }
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** The tool calls of an answer: `toolCalls`, else its one `toolCall`, else none. */
export function callsOf(a: MockAnswer): { name: string; arguments: string }[] {
  return a.toolCalls ?? (a.toolCall ? [a.toolCall] : []);
}

/** A tool call's arguments as a value: JSON text parsed, an object as it is, text that is not JSON kept as text. */
export function parsedArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A tool result as the text rules match: a string as it is, anything else as JSON. */
export function resultText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return contentText(v);
  return v === undefined || v === null ? '' : JSON.stringify(v);
}

/** The answer as a JSON value for a forced tool's input: the content parsed, or { text } when it is not JSON. */
export function toolInput(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return { text: content };
  }
}

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7) : undefined;
}
