import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContract } from './contract.case.js';
import { HttpSystem, whereMissing } from './http.js';
import { ProviderError } from './types.js';

/** A stand-in for the user's own app: a real HTTP server whose routes echo, delay and fail. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
let server: Server;
let base: string;
const seen: Seen[] = [];
let next: ((res: ServerResponse) => void) | undefined;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const url = new URL(req.url ?? '/', 'http://x');
    const delay = Number(url.searchParams.get('delay') ?? 0);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (res.destroyed) return;
    if (url.pathname === '/fail') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
    } else if (url.pathname === '/scripted' && next) {
      const n = next;
      next = undefined;
      n(res);
    } else {
      let input: unknown = body;
      try {
        input = (JSON.parse(body) as { input: unknown }).input;
      } catch {
        // a text body
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { choices: [{ text: `echo: ${JSON.stringify(input)}` }] } }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

systemContract(
  'http (local node:http server)',
  ({ delayMs, failing }) => new HttpSystem({ url: `${base}/${failing ? 'fail' : 'echo'}?delay=${delayMs ?? 0}`, outputPath: 'data.choices[0].text' }),
);

const call = (s: HttpSystem, input: string | Record<string, unknown> = 'hi') =>
  s.generate(input, { signal: new AbortController().signal, inputIndex: 0, sample: 0 });

async function failure(respond: (res: ServerResponse) => void, outputPath?: string): Promise<ProviderError> {
  next = respond;
  const e = await call(new HttpSystem({ url: `${base}/scripted`, outputPath })).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

describe('HttpSystem', () => {
  it('POSTs {"input": <input>} as JSON by default and reads outputPath', async () => {
    const s = new HttpSystem({ url: `${base}/echo`, outputPath: '$.data.choices[0].text' });
    const g = await call(s, { text: 'a', n: 2 });
    expect(g.text).toBe('echo: {"text":"a","n":2}');
    const req = seen[seen.length - 1];
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ input: { text: 'a', n: 2 } });
  });

  it('renders a body template keeping JSON types, sends headers, and a method', async () => {
    const s = new HttpSystem({
      url: `${base}/echo`,
      method: 'PUT',
      headers: { authorization: 'Bearer t0k' },
      body: { input: '{{question}}', meta: { n: '{{n}}', note: 'n is {{n}}' }, fixed: true },
      outputPath: 'data.choices[0].text',
    });
    await call(s, { question: 'why?', n: 3 });
    const req = seen[seen.length - 1];
    expect(req.method).toBe('PUT');
    expect(req.headers.authorization).toBe('Bearer t0k');
    expect(JSON.parse(req.body)).toEqual({ input: 'why?', meta: { n: 3, note: 'n is 3' }, fixed: true });
  });

  it('a string body is sent as text; GET puts fields in the URL, encoded', async () => {
    await call(new HttpSystem({ url: `${base}/echo`, body: 'Q: {{input}}' }), 'a&b');
    expect(seen[seen.length - 1].body).toBe('Q: a&b');
    expect(seen[seen.length - 1].headers['content-type']).toMatch(/text\/plain/);
    await call(new HttpSystem({ url: `${base}/echo?q={{input}}`, method: 'GET' }), 'a&b c');
    expect(seen[seen.length - 1].url).toBe('/echo?q=a%26b%20c');
    expect(seen[seen.length - 1].method).toBe('GET');
  });

  it('without outputPath the body is the output (a JSON string unquoted)', async () => {
    next = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('"plain answer"');
    expect((await call(new HttpSystem({ url: `${base}/scripted` }))).text).toBe('plain answer');
    next = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('raw text');
    expect((await call(new HttpSystem({ url: `${base}/scripted` }))).text).toBe('raw text');
  });

  it('429 → rate_limit with Retry-After seconds', async () => {
    const e = await failure((res) => res.writeHead(429, { 'retry-after': '3' }).end('slow down'));
    expect([e.kind, e.status, e.retryAfterMs]).toEqual(['rate_limit', 429, 3000]);
  });

  it('429 → rate_limit with Retry-After as an HTTP date', async () => {
    const when = new Date(Date.now() + 10_000).toUTCString();
    const e = await failure((res) => res.writeHead(429, { 'retry-after': when }).end());
    expect(e.kind).toBe('rate_limit');
    // An HTTP date has 1 s resolution.
    expect(e.retryAfterMs).toBeGreaterThan(8000);
    expect(e.retryAfterMs).toBeLessThanOrEqual(10_000);
  });

  it('500 → server, 400 → client with the body excerpt', async () => {
    const e5 = await failure((res) => res.writeHead(502).end('bad gateway'));
    expect([e5.kind, e5.status, e5.retryable]).toEqual(['server', 502, true]);
    const e4 = await failure((res) => res.writeHead(400).end('missing field "input"'));
    expect([e4.kind, e4.status, e4.retryable]).toEqual(['client', 400, false]);
    expect(e4.message).toContain('missing field "input"');
  });

  it('connection reset → connection; refused → connection', async () => {
    const e = await failure((res) => res.socket?.destroy());
    expect(e.kind).toBe('connection');
    const r = await call(new HttpSystem({ url: 'http://127.0.0.1:1/' })).catch((err: unknown) => err);
    expect((r as ProviderError).kind).toBe('connection');
  });

  it('a garbage body, or outputPath missing from it → invalid_response', async () => {
    const e1 = await failure((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'), 'data.text');
    expect(e1.kind).toBe('invalid_response');
    const e2 = await failure((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"other":1}}'), 'data.text');
    expect(e2.kind).toBe('invalid_response');
    expect(e2.message).toContain('data.text');
    expect(e2.message).toContain('is not in the answer (data has other); answer: {"data":{"other":1}}');
    // Present but null (a tool call's content): said as such, not as missing.
    const e3 = await failure((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"text":null,"tool":1}}'), 'data.text');
    expect(e3.message).toContain('outputPath data.text is null in the answer; answer: {"data":{"text":null,"tool":1}}');
  });
});

describe('whereMissing', () => {
  it('names where the path leaves the answer and what is there instead', () => {
    const answer = { id: 'x', choices: [{ index: 0, message: { content: 'hi' } }] };
    expect(whereMissing(answer, ['choices', 0, 'text'])).toBe('choices.0 has index, message');
    expect(whereMissing(answer, ['output'])).toBe('the answer has id, choices');
    expect(whereMissing(answer, ['choices', 3])).toBe('choices is an array of 1');
    expect(whereMissing(answer, ['id', 'x'])).toBe('id is a string');
    expect(whereMissing([], [0])).toBe('the answer is an array of 0');
  });
});
