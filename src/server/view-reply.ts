import type { Context } from 'hono';
import type { ViewRequest, ViewResult } from './view-types.js';

/** Everything inline; nothing may be fetched from another origin at view time. */
export const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** What a dashboard read needs of a request: its path parameters and query, as plain data. */
export function viewRequest(c: Context): ViewRequest {
  return { params: { ...c.req.param() }, query: { ...c.req.query() } };
}

/** Sends a read's finished body as it is (no parsing, no re-serialising on the server's thread). */
export function reply(c: Context, r: ViewResult): Response {
  if (r.retryAfter !== undefined) c.header('Retry-After', String(r.retryAfter));
  if (r.type === 'html') {
    c.header('Content-Security-Policy', CSP);
    return c.html(r.body, r.status);
  }
  return c.body(r.body, r.status, { 'Content-Type': 'application/json' });
}
