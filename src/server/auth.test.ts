import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { MemoryStore } from '../store/memory.js';
import { createApp } from './app.js';
import { isLoopbackHost } from './auth.js';
import { startServer, type ServerHandle } from './start.js';
import { testEngine } from './testing/engine.js';

const TOKEN = 'correct-horse-battery-staple';
let server: ServerHandle | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('API token', () => {
  it('tells loopback addresses from the rest', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '128.0.0.1', '']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('refuses to listen off loopback without a token', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, log: false })).rejects.toThrow(UsageError);
    await expect(startServer({ host: '0.0.0.0', port: 0, log: false })).rejects.toThrow(/token/);
  });

  it('off loopback with a token: every route but /healthz requires Authorization: Bearer', async () => {
    server = await startServer({ host: '0.0.0.0', port: 0, token: TOKEN, engine: testEngine('Paris is in France.'), store: new MemoryStore(), log: false });
    const url = `http://127.0.0.1:${server.port}`;
    const body = JSON.stringify({ query: 'q', answer: 'Paris is in France.' });
    const headers = { 'content-type': 'application/json' };
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const none = await fetch(`${url}/analyze`, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect((await fetch(`${url}/analyze`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong-token-123' }, body })).status).toBe(401);
    expect((await fetch(`${url}/analyze`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${TOKEN}` }, body })).status).toBe(200);
    expect((await fetch(`${url}/api/runs`)).status).toBe(401);
    expect((await fetch(`${url}/`)).status).toBe(401);
    expect((await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('lets a browser log in once with /login?token=…, which sets an HttpOnly cookie', async () => {
    server = await startServer({ port: 0, token: TOKEN, store: new MemoryStore(), log: false });
    expect((await fetch(`${server.url}/login?token=nope-nope-nope`, { redirect: 'manual' })).status).toBe(401);
    const login = await fetch(`${server.url}/login?token=${TOKEN}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const page = await fetch(`${server.url}/`, { headers: { cookie: cookie.split(';')[0] } });
    expect(page.status).toBe(200);
  });

  it('rejects tokens too short to be secret', () => {
    expect(() => createApp({ token: 'short', log: false })).toThrow(/at least 16/);
  });
});
