import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { UsageError } from '../errors.js';
import { createApp, type AppOptions } from './app.js';
import { isLoopbackHost } from './auth.js';
import { logEvent, stdoutSink } from './log.js';

export interface StartOptions extends AppOptions {
  /** Default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** How long close() lets in-flight requests finish before cutting connections (default 10 s). */
  shutdownGraceMs?: number;
}

export interface ServerHandle {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Graceful shutdown: stop accepting, let in-flight requests finish (up to the grace period), then close. */
  close(): Promise<void>;
}

export async function startServer(options: StartOptions = {}): Promise<ServerHandle> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.token) {
    throw new UsageError(
      `refusing to listen on ${host} without an API token: anything but loopback (127.0.0.1, ::1, localhost) requires one (assay serve --token-env VAR)`,
      { path: '--host' },
    );
  }
  const app = createApp(options);
  const sink = options.log === false ? undefined : (options.log ?? stdoutSink);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  // Slow-loris defence: a client gets this long to send its headers and body.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${shownHost}:${addr.port}`;
  if (sink) logEvent(sink, 'listening', { url, auth: Boolean(options.token) });

  let closing: Promise<void> | undefined;
  // While shutting down, answer in-flight and late requests with Connection: close and drop each
  // connection once idle, so keep-alive clients cannot hold the shutdown open.
  const active = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    active.add(res);
    res.once('close', () => {
      active.delete(res);
      if (closing) server.closeIdleConnections();
    });
    if (closing) res.shouldKeepAlive = false;
  });
  return {
    url,
    host: addr.address,
    port: addr.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const grace = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 10_000);
        grace.unref();
        server.close(() => {
          clearTimeout(grace);
          if (sink) logEvent(sink, 'stopped');
          resolve();
        });
        // Keep-alive sockets with no request in flight would hold close() open.
        server.closeIdleConnections();
        for (const res of active) res.shouldKeepAlive = false;
      });
      return closing;
    },
  };
}
