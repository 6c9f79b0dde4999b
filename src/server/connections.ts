import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ArgumentError } from '../errors.js';

/**
 * Limits on the connections of the listening server (below the HTTP app): how many may be open, and how long
 * a client may take to send its request. Every one has a default, so `startServer({})` is already defended.
 */
export interface ConnectionLimits {
  /**
   * Connections open at once. A new one beyond it closes, to make room, the oldest connection that never
   * completed a request (a flood of half-sent requests goes first), else the oldest without a complete request
   * in progress (an idle keep-alive, or a request still arriving); when every connection is busy with a complete
   * request, the newcomer gets 503 and is closed.
   */
  maxConnections: number;
  /** A client must send its request headers within this many ms (408 and closed otherwise). */
  headersTimeoutMs: number;
  /** ... and the whole request, headers and body, within this many ms. */
  bodyTimeoutMs: number;
}

/** Well below the usual file-descriptor limit (1024 on many systems), leaving room for the store and the KB. */
export const defaultConnectionLimits: ConnectionLimits = {
  maxConnections: 512,
  headersTimeoutMs: 20_000,
  bodyTimeoutMs: 60_000,
};

export function resolveConnectionLimits(partial: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const limits = { ...defaultConnectionLimits, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new ArgumentError(`connection limit ${key} must be a positive integer, got ${String(value)}`, { key: key });
    }
  }
  if (limits.headersTimeoutMs > limits.bodyTimeoutMs) {
    throw new ArgumentError(`headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed bodyTimeoutMs (${limits.bodyTimeoutMs})`, {
      key: 'headersTimeoutMs',
    });
  }
  return limits;
}

/**
 * Node's own header and request timers, checked often enough to hold: Node looks at them only every
 * `connectionsCheckingInterval` (30 s by default), which let a 20 s header limit run to 49 s.
 */
export function timeoutServerOptions(limits: ConnectionLimits): ServerOptions {
  const interval = Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 20)));
  return { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.bodyTimeoutMs, connectionsCheckingInterval: interval };
}

const OVERLOADED = JSON.stringify({ error: 'overloaded', message: 'too many open connections; retry shortly' });
const OVERLOADED_RESPONSE =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n' +
  `Content-Length: ${Buffer.byteLength(OVERLOADED)}\r\n\r\n${OVERLOADED}`;

/** Counts since start, for tests and operators. */
export interface ConnectionStats {
  open: number;
  /** Connections closed to make room (oldest without a complete request first). */
  evicted: number;
  /** Newcomers answered 503 because every connection was busy. */
  refused: number;
}

/**
 * Caps the open connections of `server` (see ConnectionLimits.maxConnections). Thousands of half-sent
 * requests cannot exhaust file descriptors or lock out `/healthz`: they are the first to be closed.
 */
export class ConnectionGuard {
  /** Open connections, oldest first, with the request in progress on each (null between requests). */
  private readonly open = new Map<Socket, IncomingMessage | null>();
  /** Connections that have completed at least one request (a client that works, not a half-sent flood). */
  private readonly served = new WeakSet<Socket>();
  /** Sockets answered 503 on arrival: a request that still comes in on one must not reach the app. */
  private readonly refusedSockets = new WeakSet<Socket>();
  private evicted = 0;
  private refused = 0;

  constructor(private readonly limits: ConnectionLimits) {}

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.onConnection(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  /** Whether a request arrived on a connection that was refused (answer nothing more on it). */
  isRefused(socket: Socket | undefined): boolean {
    return socket !== undefined && this.refusedSockets.has(socket);
  }

  stats(): ConnectionStats {
    return { open: this.open.size, evicted: this.evicted, refused: this.refused };
  }

  private onConnection(socket: Socket): void {
    if (this.open.size >= this.limits.maxConnections && !this.evictOne()) {
      this.refuse(socket);
      return;
    }
    this.open.set(socket, null);
    socket.once('close', () => this.open.delete(socket));
  }

  /**
   * Closes the oldest connection that never completed a request, else the oldest without a complete request in
   * progress; false when every connection is busy.
   */
  private evictOne(): boolean {
    let fallback: Socket | undefined;
    for (const [socket, req] of this.open) {
      if (req !== null && req.complete) continue;
      if (!this.served.has(socket)) return this.evict(socket);
      fallback ??= socket;
    }
    return fallback !== undefined && this.evict(fallback);
  }

  private evict(socket: Socket): true {
    this.open.delete(socket);
    socket.destroy();
    this.evicted++;
    return true;
  }

  private refuse(socket: Socket): void {
    this.refused++;
    this.refusedSockets.add(socket);
    socket.on('error', () => {});
    socket.end(OVERLOADED_RESPONSE);
    // Let the client read the 503, but never hold the descriptor.
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    if (!this.open.has(socket)) return;
    this.open.set(socket, req);
    res.once('close', () => {
      if (req.complete) this.served.add(socket);
      if (this.open.get(socket) === req) this.open.set(socket, null);
    });
  }
}
