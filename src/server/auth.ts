import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/** True for addresses only this machine can reach; anything else needs an API token. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

const COOKIE = 'assay_session';
/** How long a dashboard login lasts. */
export const SESSION_TTL_S = 12 * 60 * 60;

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Dashboard sessions: the cookie is `<expiry>.<nonce>.<mac>`, the MAC (HMAC-SHA256) keyed by a key derived
 * from the token. It is not the token, and the token cannot be recovered from it; every replica serving the
 * same token accepts it; it ends at its expiry, and a new token ends every session at once.
 */
export class Sessions {
  private readonly key: Buffer;

  constructor(token: string) {
    this.key = createHmac('sha256', token).update('assay dashboard session v1').digest();
  }

  issue(nowMs = Date.now()): string {
    const body = `${Math.floor(nowMs / 1000) + SESSION_TTL_S}.${randomBytes(16).toString('base64url')}`;
    return `${body}.${this.mac(body)}`;
  }

  valid(value: string | undefined, nowMs = Date.now()): boolean {
    const m = value?.match(/^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/);
    if (!m) return false;
    const expected = Buffer.from(this.mac(`${m[1]}.${m[2]}`));
    const given = Buffer.from(m[3]);
    return timingSafeEqual(expected, given) && Number(m[1]) > nowMs / 1000;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/**
 * Whether the request reached us over HTTPS: its own URL, or — only with `trustProxy`, for a server behind a
 * reverse proxy that terminates TLS and says so — the first proxy's `X-Forwarded-Proto` or `Forwarded: proto=`.
 * Without `trustProxy` those headers are ignored: any client could send them.
 */
export function cameOverHttps(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  if (!trustProxy) return false;
  const xfp = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (xfp) return xfp === 'https';
  const fwd = c.req
    .header('forwarded')
    ?.split(',')[0]
    ?.match(/(?:^|;)\s*proto=("?)(https?)\1/i)?.[2];
  return fwd?.toLowerCase() === 'https';
}

export interface TokenOptions {
  /** Believe X-Forwarded-Proto / Forwarded from the proxy in front (`assay serve --trust-proxy`). */
  trustProxy?: boolean;
}

/**
 * Requires `Authorization: Bearer <token>` on every route but /healthz. Browsers cannot add that header to
 * page loads, so GET /login?token=… starts a session: an HttpOnly, SameSite=Strict cookie (Secure when the
 * request came over HTTPS) holding a signed session id, never the token itself.
 */
export function requireToken(token: string, options: TokenOptions = {}): MiddlewareHandler {
  const sessions = new Sessions(token);
  return async (c, next) => {
    if (c.req.path === '/healthz') return next();
    if (c.req.path === '/login' && c.req.method === 'GET') {
      if (!tokenMatches(c.req.query('token'), token)) return c.json({ error: 'unauthorized', message: 'wrong or missing token' }, 401);
      setCookie(c, COOKIE, sessions.issue(), {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        maxAge: SESSION_TTL_S,
        secure: cameOverHttps(c, options.trustProxy ?? false),
      });
      return c.redirect('/', 303);
    }
    const header = c.req.header('authorization');
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    if (tokenMatches(bearer, token) || sessions.valid(getCookie(c, COOKIE))) return next();
    c.header('WWW-Authenticate', 'Bearer realm="assay"');
    return c.json({ error: 'unauthorized', message: 'this server requires "Authorization: Bearer <token>"' }, 401);
  };
}
