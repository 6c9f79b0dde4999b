import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from './auth.js';

/** The name part of a Host header ("localhost:8787" → "localhost", "[::1]:8787" → "::1"), lower-case. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'));
  const colon = h.indexOf(':');
  // one colon: name:port; more: an unbracketed IPv6 address (not valid in Host, but not ours to fix)
  return colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.slice(0, colon) : h;
}

/** Loopback names (localhost, *.localhost, 127.0.0.0/8, ::1), the bound address, and the names given. */
export function isAllowedHost(header: string, allowed: readonly string[]): boolean {
  const name = hostName(header);
  if (name === '') return false;
  if (isLoopbackHost(name) || name.endsWith('.localhost')) return true;
  return allowed.some((a) => hostName(a) === name);
}

/**
 * DNS rebinding defence for a server without a token: a web page on evil.example whose name is re-pointed
 * at 127.0.0.1 reaches this server with `Host: evil.example` — answer it 403, whatever the route. Requests
 * without a Host header (HTTP/1.0 tools) pass: browsers always send one.
 */
export function requireLocalHost(allowed: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host');
    if (host === undefined || isAllowedHost(host, allowed)) return next();
    return c.json(
      {
        error: 'forbidden_host',
        message: `Host "${host.slice(0, 100)}" is not allowed: a server without an API token answers only localhost, 127.0.0.1, [::1] and the address it listens on (DNS rebinding defence); use one of them, add the name with --allow-host, or require a token with --token-env`,
      },
      403,
    );
  };
}
