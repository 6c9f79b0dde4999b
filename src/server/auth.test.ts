import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { MemoryStore } from '../store/memory.js';
import { createApp } from './app.js';
import { isLoopbackHost, Sessions, SESSION_TTL_S } from './auth.js';
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

  it('lets a browser log in once with /login?token=…: an HttpOnly, SameSite=Strict session cookie that is not the token', async () => {
    server = await startServer({ port: 0, token: TOKEN, store: new MemoryStore(), log: false });
    expect((await fetch(`${server.url}/login?token=nope-nope-nope`, { redirect: 'manual' })).status).toBe(401);
    const login = await fetch(`${server.url}/login?token=${TOKEN}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(new RegExp(`Max-Age=${SESSION_TTL_S}`));
    expect(cookie).not.toMatch(/Secure/i); // plain HTTP, no trusted proxy
    const pair = cookie.split(';')[0];
    expect(pair).not.toContain(TOKEN);
    expect(pair).not.toContain(encodeURIComponent(TOKEN));
    expect((await fetch(`${server.url}/`, { headers: { cookie: pair } })).status).toBe(200);
    // Two logins, two sessions; a forged or altered one is refused, and so is the token itself as the cookie.
    const again = (await fetch(`${server.url}/login?token=${TOKEN}`, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0];
    expect(again).not.toBe(pair);
    const [name, value] = pair.split('=');
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [tampered, `${name}=${TOKEN}`, `assay_token=${TOKEN}`, `${name}=9999999999.AAAAAAAAAAAAAAAAAAAAAA.${'A'.repeat(43)}`])
      expect((await fetch(`${server.url}/api/runs`, { headers: { cookie: bad } })).status, bad).toBe(401);
  });

  it('sessions expire, and end when the token changes', () => {
    const sessions = new Sessions(TOKEN);
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const s = sessions.issue(t0);
    expect(sessions.valid(s, t0 + 1000)).toBe(true);
    expect(sessions.valid(s, t0 + SESSION_TTL_S * 1000 - 1000)).toBe(true);
    expect(sessions.valid(s, t0 + SESSION_TTL_S * 1000 + 1000)).toBe(false);
    expect(new Sessions('another-token-of-16+').valid(s, t0 + 1000)).toBe(false);
    // Another replica with the same token accepts it.
    expect(new Sessions(TOKEN).valid(s, t0 + 1000)).toBe(true);
  });

  it('the cookie is Secure over HTTPS: behind a proxy that says so only with --trust-proxy (trustProxy)', async () => {
    const secureOf = async (trustProxy: boolean, headers: Record<string, string>) => {
      const app = createApp({ token: TOKEN, store: new MemoryStore(), log: false, trustProxy });
      const res = await app.request(`http://example.test/login?token=${TOKEN}`, { headers });
      expect(res.status).toBe(303);
      return /;\s*Secure/i.test(res.headers.get('set-cookie') ?? '');
    };
    expect(await secureOf(false, {})).toBe(false);
    expect(await secureOf(false, { 'x-forwarded-proto': 'https' })).toBe(false); // anyone can send the header
    expect(await secureOf(true, { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(await secureOf(true, { 'x-forwarded-proto': 'https, http' })).toBe(true); // the first proxy's word
    expect(await secureOf(true, { 'x-forwarded-proto': 'http' })).toBe(false);
    expect(await secureOf(true, { forwarded: 'for=192.0.2.60;proto=https;by=203.0.113.43' })).toBe(true);
    expect(await secureOf(true, {})).toBe(false);
    // A request that came over HTTPS itself.
    const app = createApp({ token: TOKEN, store: new MemoryStore(), log: false });
    const res = await app.request(`https://example.test/login?token=${TOKEN}`);
    expect(res.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
  });

  it('rejects tokens too short to be secret', () => {
    expect(() => createApp({ token: 'short', log: false })).toThrow(/at least 16/);
  });
});
