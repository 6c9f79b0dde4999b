import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { GroundingEngine } from '../ground/types.js';
import type { Store } from '../store/types.js';
import { registerAnalyze } from './analyze.js';
import { requireToken } from './auth.js';
import { registerDashboard } from './dashboard.js';
import { createDashboardPool } from './dashboard-pool.js';
import { localReader } from './dashboard-views.js';
import type { DashboardReader } from './view-types.js';
import { requireLocalHost } from './host.js';
import { resolveLimits, type RequestLimiter, type ServerLimits } from './limits.js';
import { requestLog, stdoutSink, type LogSink } from './log.js';
import { createTraceDecoder, type TraceDecoder } from './trace-pool.js';
import { registerTraces } from './traces.js';
import { ArgumentError } from '../errors.js';

export interface AppOptions {
  /** The grounding engine behind POST /analyze; without it /analyze answers 503. */
  engine?: GroundingEngine;
  /** The store the dashboard reads (read-only); without it the dashboard says so. */
  store?: Store;
  /**
   * Where `store` can be opened again (a SQLite file, a postgres:// URL; assay serve gives it): the dashboard then
   * reads runs and grades on a worker thread with a connection of its own, off the event loop (issue 30).
   * Without it (a store in memory), the dashboard reads on the server's thread.
   */
  storeLocation?: string;
  /** The dashboard takes people's grades (POST/DELETE under /api/runs/:id/grades): the store must be writable. */
  grading?: boolean;
  /** POST /v1/traces stores OTLP exports' GenAI spans as production samples (assay serve --ingest): the store must be writable. */
  ingest?: boolean;
  /** Decodes /v1/traces bodies off the event loop (default: a worker pool the app starts on the first export and closeApp stops). */
  traceDecoder?: TraceDecoder;
  /** When set, every route but /healthz requires `Authorization: Bearer <token>` (or a /login session). */
  token?: string;
  /** Behind a reverse proxy that terminates TLS: believe its X-Forwarded-Proto / Forwarded (the login cookie is then Secure). */
  trustProxy?: boolean;
  limits?: Partial<ServerLimits>;
  /** The /analyze rate limiter, when it is shared between replicas (RedisRateLimiter); else one per process. */
  rateLimiter?: RequestLimiter;
  /** Where the one-line JSON request logs go (default stdout); `false` for none. */
  log?: LogSink | false;
  /**
   * When set, a request whose Host is neither a loopback name nor one of these gets 403 (DNS rebinding).
   * startServer sets it, to its bound address plus `allowHosts`, on a loopback server without a token.
   */
  allowedHosts?: readonly string[];
}

/** What an app started that must be stopped with it (closeApp). */
const closers = new WeakMap<Hono, () => Promise<void>>();

/** Stops what createApp started (the /v1/traces decoding workers); startServer's close() calls it. */
export async function closeApp(app: Hono): Promise<void> {
  await closers.get(app)?.();
}

/** The dashboard's reader: on worker threads when the store can be opened there again, else on this thread. */
function dashboardReader(store: Store, location: string | undefined, writable: boolean): DashboardReader {
  if (location === undefined || location === ':memory:') return localReader(store, writable);
  const pool = createDashboardPool({ location, writable });
  pool.warm();
  return pool;
}

/** The HTTP service: POST /analyze, GET /healthz, the dashboard and its /api data endpoints. */
export function createApp(options: AppOptions = {}): Hono {
  const limits = resolveLimits(options.limits);
  const app = new Hono();
  if (options.log !== false) app.use(requestLog(options.log ?? stdoutSink));
  app.use(async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  if (options.allowedHosts) app.use(requireLocalHost(options.allowedHosts));
  if (options.token !== undefined) {
    if (options.token.length < 16) throw new ArgumentError('the API token must be at least 16 characters', { key: 'token' });
    app.use(requireToken(options.token, { trustProxy: options.trustProxy }));
  }

  app.get('/healthz', (c) => c.json({ status: 'ok', analyze: Boolean(options.engine), store: Boolean(options.store) }));
  registerAnalyze(app, options.engine, limits, options.rateLimiter);
  const stops: (() => Promise<void>)[] = [];
  closers.set(app, async () => {
    await Promise.all(stops.map((stop) => stop()));
  });
  let decoder = options.traceDecoder;
  if (!decoder) {
    const own = createTraceDecoder({ queue: limits.maxTraceRequests });
    stops.push(() => own.close());
    decoder = own;
  }
  registerTraces(app, options.ingest ? options.store?.production : undefined, limits, decoder);
  const grading = options.grading ?? false;
  const reader = options.store && dashboardReader(options.store, options.storeLocation, grading);
  if (reader) stops.push(() => reader.close());
  registerDashboard(app, options.store, Boolean(options.engine), grading, limits, reader);

  app.notFound((c) => c.json({ error: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    // The message may quote user input: it stays out of the response and the log.
    return c.json({ error: 'internal', message: 'internal error' }, 500);
  });
  return app;
}
