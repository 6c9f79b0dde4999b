import type { MiddlewareHandler } from 'hono';

export type LogSink = (line: string) => void;

export const stdoutSink: LogSink = (line) => {
  process.stdout.write(line + '\n');
};

/**
 * One JSON line per request: time, method, path, status, ms. Never the body nor the query string
 * (they may hold user text or a token): the service logs no user data.
 */
export function requestLog(sink: LogSink): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    let failed: unknown;
    try {
      await next();
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      const line: Record<string, unknown> = {
        time: new Date().toISOString(),
        level: failed || c.res.status >= 500 ? 'error' : 'info',
        method: c.req.method,
        path: c.req.path,
        status: failed ? 500 : c.res.status,
        ms: Math.round((performance.now() - start) * 10) / 10,
      };
      sink(JSON.stringify(line));
    }
  };
}

/** A log event outside a request (start, stop). */
export function logEvent(sink: LogSink, event: string, fields: Record<string, unknown> = {}): void {
  sink(JSON.stringify({ time: new Date().toISOString(), level: 'info', event, ...fields }));
}
