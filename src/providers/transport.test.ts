import { PROMPTLY_MS } from '../testing/time.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { isConnectionError } from './errors.js';
import { BufferedResponse } from './buffered-response.js';
import { whenRequestSent } from './request-sent.js';
import { createNodeFetch } from './transport.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

async function serve(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe('createNodeFetch', () => {
  it('inside a rate-limited call, reports when the request has left, before the server answers', async () => {
    const events: string[] = [];
    let answer: (() => void) | undefined;
    const s = await serve((_req, _body, res) => {
      if (answer) return res.end('later');
      events.push('server got it');
      answer = () => res.end('ok');
    });
    const f = createNodeFetch();
    const call = whenRequestSent(
      () => events.push('sent'),
      () => f(s.url, { method: 'POST', body: 'x' }),
    );
    while (events.length < 2) await new Promise((r) => setTimeout(r, 5));
    answer!();
    expect(await (await call).text()).toBe('ok');
    expect(events.sort()).toEqual(['sent', 'server got it']);
    // Outside a limited call nothing is reported (and nothing kept).
    expect(await (await f(s.url)).text()).toBe('later');
    expect(events.filter((e) => e === 'sent')).toHaveLength(1);
  });

  it('posts a body with its headers and returns a buffered Response', async () => {
    const seen: { method?: string; type?: string; length?: string; auth?: string; body?: string } = {};
    const s = await serve((req, body, res) => {
      Object.assign(seen, {
        method: req.method,
        type: req.headers['content-type'],
        length: req.headers['content-length'],
        auth: req.headers.authorization,
        body,
      });
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1' }).end(JSON.stringify({ echo: JSON.parse(body) }));
    });
    const f = createNodeFetch();
    const res = await f(`${s.url}/v1/x?q=1`, {
      method: 'POST',
      headers: new Headers({ 'Content-Type': 'application/json', Authorization: 'Bearer k' }),
      body: '{"a":"é"}',
    });
    expect(res).toBeInstanceOf(BufferedResponse);
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.url).toBe(`${s.url}/v1/x?q=1`);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.json()).toEqual({ echo: { a: 'é' } });
    expect(seen).toEqual({ method: 'POST', type: 'application/json', length: String(Buffer.byteLength('{"a":"é"}')), auth: 'Bearer k', body: '{"a":"é"}' });
  });

  it('keeps connections alive: sequential calls reuse one socket', async () => {
    const s = await serve((_req, _body, res) => res.end('ok'));
    const f = createNodeFetch();
    for (let n = 0; n < 20; n++) expect(await (await f(s.url)).text()).toBe('ok');
    expect(s.connections()).toBe(1);
  });

  it('decompresses a gzip body, as fetch does', async () => {
    const s = await serve((_req, _body, res) =>
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync('squeezed text')),
    );
    expect(await (await createNodeFetch()(s.url)).text()).toBe('squeezed text');
  });

  it('gives a 204 a null body and keeps error statuses as responses', async () => {
    const s = await serve((req, _body, res) => (req.url === '/none' ? res.writeHead(204).end() : res.writeHead(503, { 'retry-after': '2' }).end('busy')));
    const f = createNodeFetch();
    const none = await f(`${s.url}/none`);
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
    const busy = await f(`${s.url}/busy`);
    expect([busy.status, busy.ok, busy.headers.get('retry-after'), await busy.text()]).toEqual([503, false, '2', 'busy']);
  });

  it('follows redirects: 303 turns a POST into a GET; 307 keeps it; credentials stay with their origin', async () => {
    const other = await serve((req, body, res) => res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null })));
    const s = await serve((req, body, res) => {
      if (req.url === '/see-other') return res.writeHead(303, { location: '/landing' }).end();
      if (req.url === '/temporary') return res.writeHead(307, { location: '/landing' }).end();
      if (req.url === '/away') return res.writeHead(307, { location: `${other.url}/there` }).end();
      res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }));
    });
    const f = createNodeFetch();
    const init = { method: 'POST', headers: { authorization: 'Bearer secret', 'content-type': 'text/plain' }, body: 'payload' };
    expect(await (await f(`${s.url}/see-other`, init)).json()).toEqual({ method: 'GET', body: '', auth: 'Bearer secret' });
    expect(await (await f(`${s.url}/temporary`, init)).json()).toEqual({ method: 'POST', body: 'payload', auth: 'Bearer secret' });
    expect(await (await f(`${s.url}/away`, init)).json()).toEqual({ method: 'POST', body: 'payload', auth: null });
    const loop = await serve((_req, _body, res) => res.writeHead(302, { location: '/again' }).end());
    await expect(f(`${loop.url}/start`)).rejects.toThrow(/too many redirects/);
  });

  it('an abort ends a hanging call at once with the signal’s reason', async () => {
    const s = await serve(() => undefined); // never answers
    const ac = new AbortController();
    const reason = new Error('deadline');
    const t0 = performance.now();
    setTimeout(() => ac.abort(reason), 50);
    await expect(createNodeFetch()(s.url, { signal: ac.signal })).rejects.toBe(reason);
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS); // without the abort it would never end
  });

  it('a dropped connection is a socket error the providers classify as a connection failure', async () => {
    const s = await serve((req) => req.socket.destroy());
    const err = await createNodeFetch()(s.url, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isConnectionError(err)).toBe(true);
  });

  it('a refused connection is a connection failure too', async () => {
    const s = await serve(() => undefined);
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 20));
    const err = await createNodeFetch()(s.url).catch((e: unknown) => e);
    expect(isConnectionError(err)).toBe(true);
  });
});

describe('BufferedResponse', () => {
  const make = (body: string | null, status = 200) =>
    new BufferedResponse(
      body === null ? null : Buffer.from(body),
      status,
      'OK',
      { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] },
      'http://x/',
    );

  it('reads its body once, like fetch, and drops a UTF-8 BOM', async () => {
    const r = make('\uFEFF{"ok":true}');
    expect(r.bodyUsed).toBe(false);
    expect(await r.json()).toEqual({ ok: true });
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
  });

  it('clones before reading; streams, bytes and blobs carry the same bytes', async () => {
    const r = make('héllo');
    const c = r.clone();
    expect(new TextDecoder().decode(await r.bytes())).toBe('héllo');
    expect(await (await c.clone().blob()).text()).toBe('héllo');
    const chunks: Uint8Array[] = [];
    const reader = c.body!.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(Buffer.concat(chunks).toString()).toBe('héllo');
    expect(c.bodyUsed).toBe(true);
  });

  it('has case-insensitive headers joining repeated values, ok only for 2xx, and a null body when none', async () => {
    const r = make(null, 404);
    expect([r.ok, r.status, r.body, r.headers.get('Content-Type'), r.headers.get('SET-COOKIE'), r.headers.has('x-none'), r.headers.get('x-none')]).toEqual([
      false,
      404,
      null,
      'application/json',
      'a=1, b=2',
      false,
      null,
    ]);
    expect([...r.headers]).toEqual([
      ['content-type', 'application/json'],
      ['set-cookie', 'a=1, b=2'],
    ]);
    expect(await r.text()).toBe('');
  });
});
