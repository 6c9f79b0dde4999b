import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import type { AppOptions } from './app.js';
import { isLoopbackHost } from './auth.js';
import { ConnectionGuard, resolveConnectionLimits, timeoutServerOptions, type ConnectionLimits, type ConnectionStats } from './connections.js';
import { logEvent, stdoutSink } from './log.js';
import { assayCommandLine } from '../invocation.js';

export interface StartOptions extends AppOptions {
  /** Default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** How long close() lets in-flight requests finish before cutting connections (default 10 s). */
  shutdownGraceMs?: number;
  /** Connection cap and header/body timeouts (defaults: 512, 20 s, 60 s). */
  connections?: Partial<ConnectionLimits>;
  /**
   * Host names a loopback server without a token answers besides loopback names and its own address
   * (e.g. a name a local reverse proxy forwards); every other Host gets 403.
   */
  allowHosts?: readonly string[];
}

export interface ServerHandle {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Graceful shutdown: stop accepting, let in-flight requests finish (up to the grace period), then close. */
  close(): Promise<void>;
  /** Open, evicted and refused connections so far. */
  connections(): ConnectionStats;
}

/** A listen failure the user can fix (port taken, privileged, address not on this machine): one line, exit 2. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const reasons: Record<string, [string, string]> = {
    EADDRINUSE: ['--port', `port ${port} is already in use on ${host}: stop the other process, or choose another port with --port (0 picks a free one)`],
    EACCES: ['--port', `not allowed to listen on ${where} (ports below 1024 need privileges): choose another port with --port`],
    EADDRNOTAVAIL: ['--host', `cannot listen on ${where}: ${host} is not an address of this machine`],
    ENOTFOUND: ['--host', `cannot listen on ${host}: the name does not resolve`],
  };
  const known = err.code ? reasons[err.code] : undefined;
  return known ? new UsageError(known[1], { path: known[0] }, { cause: err }) : err;
}

export async function startServer(options: StartOptions = {}): Promise<ServerHandle> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.token) {
    throw new UsageError(
      `refusing to listen on ${host} without an API token: anything but loopback (127.0.0.1, ::1, localhost) requires one (${assayCommandLine('serve --token-env VAR')})`,
      { path: '--host' },
    );
  }
  const limits = resolveConnectionLimits(options.connections);
  // Without a token, only loopback names and our own address may be in Host (DNS rebinding).
  const allowedHosts = options.token ? undefined : [host, ...(options.allowHosts ?? [])];
  // The app (Hono, the dashboard's pages and charts) loads with a server, not with the package (start-up, docs/runner.md).
  const [{ createApp, closeApp }, { serve }] = await Promise.all([import('./app.js'), import('@hono/node-server')]);
  const app = createApp({ ...options, allowedHosts });
  const sink = options.log === false ? undefined : (options.log ?? stdoutSink);
  const guard = new ConnectionGuard(limits);
  const port = options.port ?? 8787;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        // A request on a connection already answered 503 (over the cap) never reaches the app.
        fetch: (req, env) =>
          guard.isRefused((env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket) ? new Response(null, { status: 503 }) : app.fetch(req, env),
        hostname: host,
        port,
        // Slow-loris defence: a client gets this long to send its headers and body.
        serverOptions: timeoutServerOptions(limits),
        createServer: ((opts: object, listener: Parameters<typeof createServer>[1]) => {
          const created = createServer(opts, listener);
          guard.attach(created);
          return created;
        }) as unknown as typeof createServer,
      },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
  });
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
    connections: () => guard.stats(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        const grace = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 10_000);
        grace.unref();
        server.close(() => {
          clearTimeout(grace);
          void closeApp(app).finally(() => {
            if (sink) logEvent(sink, 'stopped');
            resolve();
          });
        });
        // Keep-alive sockets with no request in flight would hold close() open.
        server.closeIdleConnections();
        for (const res of active) res.shouldKeepAlive = false;
      });
      return closing;
    },
  };
}
