import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { MemoryStore } from '../store/memory.js';
import { checkMediaType } from './analyze.js';
import { hostName, isAllowedHost } from './host.js';
import { startServer, type ServerHandle, type StartOptions } from './start.js';
import { testEngine } from './testing/engine.js';
import { PROMPTLY_MS } from '../testing/time.js';

let servers: ServerHandle[] = [];
let sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(options: StartOptions = {}): Promise<ServerHandle> {
  const server = await startServer({
    port: 0,
    engine: testEngine('Paris is in France.'),
    store: new MemoryStore(),
    log: false,
    shutdownGraceMs: 200,
    ...options,
  });
  servers.push(server);
  return server;
}

/** One request over a real socket with the headers exactly as given (fetch will not send a forged Host). */
function raw(server: ServerHandle, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method: body === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw TCP connection that writes `data` and then stays silent; resolves when the server closes it. */
function halfSent(server: ServerHandle, data: string): { socket: Socket; closed: Promise<{ ms: number; reply: string }> } {
  const t0 = performance.now();
  const socket = connect(server.port, '127.0.0.1');
  sockets.push(socket);
  let reply = '';
  socket.on('data', (d) => (reply += d));
  socket.on('error', () => {});
  socket.write(data);
  const closed = new Promise<{ ms: number; reply: string }>((resolve) => socket.once('close', () => resolve({ ms: performance.now() - t0, reply })));
  return { socket, closed };
}

const analyzeBody = JSON.stringify({ query: 'Where is Paris?', answer: 'Paris is in France.' });

describe('header and body time limits (slow clients)', () => {
  it('closes a connection whose headers do not arrive in time with 408, at the limit rather than up to 30 s later', async () => {
    const server = await serve({ connections: { headersTimeoutMs: 300, bodyTimeoutMs: 900 } });
    const partial = halfSent(server, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const silent = halfSent(server, '');
    for (const { ms, reply } of [await partial.closed, await silent.closed]) {
      expect(reply).toMatch(/^HTTP\/1\.1 408/);
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThan(PROMPTLY_MS); // Node's default check interval (30 s) made a 20 s limit hold only at 49 s
    }
  });

  it('closes a connection whose body trickles past the whole-request limit', async () => {
    const server = await serve({ connections: { headersTimeoutMs: 300, bodyTimeoutMs: 900 } });
    const slow = halfSent(
      server,
      `POST /analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${analyzeBody.length}\r\n\r\n{`,
    );
    const trickle = setInterval(() => slow.socket.write(' '), 100);
    const { ms, reply } = await slow.closed;
    clearInterval(trickle);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeGreaterThanOrEqual(850);
    expect(ms).toBeLessThan(PROMPTLY_MS); // a trickle every 100 ms would otherwise keep it open for good
  });

  it('rejects limits that cannot work', async () => {
    await expect(startServer({ port: 0, log: false, connections: { headersTimeoutMs: 5000, bodyTimeoutMs: 1000 } })).rejects.toThrow(/headersTimeoutMs/);
    await expect(startServer({ port: 0, log: false, connections: { maxConnections: 0 } })).rejects.toThrow(/maxConnections/);
  });
});

describe('connection cap', () => {
  it('keeps /healthz and /analyze answering while hundreds of half-sent requests try to hold every connection', async () => {
    const server = await serve({ connections: { maxConnections: 40 } });
    const flood = Array.from({ length: 300 }, (_, i) =>
      halfSent(server, i % 2 ? 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' : 'POST /analyze HTTP/1.1\r\n'),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(server.connections().open).toBeLessThanOrEqual(40);
    expect((await raw(server, '/healthz', {})).status).toBe(200);
    expect((await raw(server, '/analyze', { 'content-type': 'application/json' }, analyzeBody)).status).toBe(200);
    // The oldest half-sent connections were closed to make room; the server holds at most its cap.
    const closed = await Promise.all(flood.slice(0, 200).map((f) => f.closed));
    expect(closed).toHaveLength(200);
    expect(server.connections().evicted).toBeGreaterThanOrEqual(260);
  });

  it('closes the half-sent flood before an idle keep-alive connection that has been served', async () => {
    const server = await serve({ connections: { maxConnections: 40 } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: server.port, path: '/healthz', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await get()).toEqual({ status: 200, reused: false });
      const flood = Array.from({ length: 200 }, () => halfSent(server, 'GET /healthz HTTP/1.1\r\n'));
      await Promise.all(flood.slice(0, 150).map((f) => f.closed));
      // The keep-alive connection from before the flood is still open and answers on the same socket.
      expect(await get()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('answers a newcomer 503 with Retry-After when every connection is busy with a complete request', async () => {
    const server = await serve({ connections: { maxConnections: 2 }, engine: testEngine('Paris is in France.', { delayMs: 600 }) });
    const busy = [0, 1].map(() => raw(server, '/analyze', { 'content-type': 'application/json' }, analyzeBody));
    await new Promise((r) => setTimeout(r, 200));
    const refused = halfSent(server, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const { reply } = await refused.closed;
    expect(reply).toMatch(/^HTTP\/1\.1 503/);
    expect(reply).toMatch(/Retry-After: 1/);
    expect(reply).toContain('"error":"overloaded"');
    expect((await Promise.all(busy)).map((r) => r.status)).toEqual([200, 200]);
    expect(server.connections().refused).toBe(1);
    expect((await raw(server, '/healthz', {})).status).toBe(200);
  });
});

describe('Host check on a loopback server without a token (DNS rebinding)', () => {
  it('reads the name out of a Host header', () => {
    expect(['localhost:8787', 'LOCALHOST', '[::1]:8787', '127.0.0.1', 'evil.example.com:80'].map(hostName)).toEqual([
      'localhost',
      'localhost',
      '::1',
      '127.0.0.1',
      'evil.example.com',
    ]);
    expect(isAllowedHost('app.localhost:3000', [])).toBe(true);
    expect(isAllowedHost('localhost.evil.com', [])).toBe(false);
    expect(isAllowedHost('127.0.0.1.nip.io', [])).toBe(false);
    expect(isAllowedHost('proxy.internal:443', ['proxy.internal'])).toBe(true);
  });

  it('answers 403 to any other Host on every route, and serves loopback names and its own address', async () => {
    const server = await serve();
    for (const path of ['/api/runs', '/healthz', '/']) {
      const res = await raw(server, path, { host: 'evil.example.com' });
      expect(res.status, path).toBe(403);
      expect(JSON.parse(res.body).error).toBe('forbidden_host');
    }
    expect((await raw(server, '/analyze', { host: 'evil.example.com:8787', 'content-type': 'application/json' }, analyzeBody)).status).toBe(403);
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, '[::1]', 'dash.localhost']) {
      expect((await raw(server, '/api/runs', { host })).status, host).toBe(200);
    }
  });

  it('answers names given with allowHosts, and checks nothing when a token protects the server', async () => {
    const allowed = await serve({ allowHosts: ['assay.internal'] });
    expect((await raw(allowed, '/api/runs', { host: 'assay.internal:8080' })).status).toBe(200);
    expect((await raw(allowed, '/api/runs', { host: 'other.internal' })).status).toBe(403);
    const token = 'correct-horse-battery-staple';
    const withToken = await serve({ token });
    expect((await raw(withToken, '/api/runs', { host: 'evil.example.com' })).status).toBe(401);
    expect((await raw(withToken, '/api/runs', { host: 'assay.example.com', authorization: `Bearer ${token}` })).status).toBe(200);
  });
});

describe('POST /analyze accepts only application/json in UTF-8', () => {
  it('tells accepted media types from the rest', () => {
    for (const t of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"'])
      expect(checkMediaType(t), t).toBeUndefined();
    for (const t of [
      undefined,
      '',
      'text/plain',
      'application/jsonx',
      'application/json-patch+json',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
    ]) {
      expect(checkMediaType(t), String(t)).toMatch(/expected Content-Type: application\/json/);
    }
  });

  it('answers 415 without a Content-Type or with another charset, 400 to bytes that are not UTF-8', async () => {
    const server = await serve();
    const post = (headers: Record<string, string>, body: string | Buffer = analyzeBody) => raw(server, '/analyze', headers, body);
    const missing = await post({});
    expect(missing.status).toBe(415);
    expect(JSON.parse(missing.body).message).toMatch(/found no Content-Type/);
    expect((await post({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post({ 'content-type': 'application/json; charset=iso-8859-1' })).status).toBe(415);
    expect((await post({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    const latin1 = Buffer.concat([Buffer.from('{"query":"caf'), Buffer.from([0xe9]), Buffer.from('","answer":"Paris is in France."}')]);
    const bad = await post({ 'content-type': 'application/json' }, latin1);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toBe('invalid_encoding');
  });
});

describe('listening', () => {
  it('reports a port in use as a usage error naming the port', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await startServer({ port, log: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toContain(`port ${port} is already in use`);
    } finally {
      blocker.close();
    }
  });
});
