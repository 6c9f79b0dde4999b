import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
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

const COOKIE = 'assay_token';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Requires `Authorization: Bearer <token>` on every route but /healthz. Browsers cannot add that
 * header to page loads, so GET /login?token=… sets an HttpOnly, SameSite=Strict cookie that is accepted too.
 */
export function requireToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path === '/healthz') return next();
    if (c.req.path === '/login' && c.req.method === 'GET') {
      if (!tokenMatches(c.req.query('token'), token)) return c.json({ error: 'unauthorized', message: 'wrong or missing token' }, 401);
      setCookie(c, COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect('/', 303);
    }
    const header = c.req.header('authorization');
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    if (tokenMatches(bearer, token) || tokenMatches(getCookie(c, COOKIE), token)) return next();
    c.header('WWW-Authenticate', 'Bearer realm="assay"');
    return c.json({ error: 'unauthorized', message: 'this server requires "Authorization: Bearer <token>"' }, 401);
  };
}
