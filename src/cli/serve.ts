import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { checkerConfig, checkerOptions, embedderConfig, embedderOptions, llmConfig, llmOptions, type CheckerFlags } from './ground-options.js';
import { intFlag, numberFlag } from './flags.js';
import { createGroundingPool, DEFAULT_QUEUE, defaultWorkers, type GroundingPool } from '../ground/pool/grounding.js';
import { isLoopbackHost } from '../server/auth.js';
import { defaultConnectionLimits, type ConnectionLimits } from '../server/connections.js';
import { RedisRateLimiter, resolveLimits, type ServerLimits } from '../server/limits.js';
import type { Redis } from 'ioredis';
import { connectRedis, parseRedisUrl } from '../queue/connection.js';
import { startServer, type ServerHandle } from '../server/start.js';
import { openStore, storeLocation } from '../store/open.js';
import type { Store } from '../store/types.js';

interface ServeFlags extends CheckerFlags {
  kb?: string;
  store?: string;
  grading?: boolean;
  ingest?: boolean;
  port: string;
  host: string;
  tokenEnv?: string;
  trustProxy?: boolean;
  llm?: string;
  llmModel?: string;
  llmBaseUrl?: string;
  temperature?: string;
  modelDir?: string;
  allowRemote?: boolean;
  embeddingUrl?: string;
  maxBody?: string;
  maxTraceBody?: string;
  timeout?: string;
  rate?: string;
  burst?: string;
  redis?: string;
  maxConnections?: string;
  headersTimeout?: string;
  bodyTimeout?: string;
  allowHost: string[];
  workers?: string;
  queue?: string;
  workerMemory?: string;
}

function tokenFrom(flags: ServeFlags): string | undefined {
  if (!flags.tokenEnv) {
    if (!isLoopbackHost(flags.host)) {
      throw new UsageError(
        `--host ${flags.host}: listening beyond loopback requires an API token; put it in an environment variable and pass --token-env VAR`,
        { path: '--host' },
      );
    }
    return undefined;
  }
  const token = process.env[flags.tokenEnv];
  if (!token)
    throw new UsageError(`--token-env ${flags.tokenEnv}: expected the API token in that environment variable, found it unset or empty`, {
      path: '--token-env',
    });
  if (token.length < 16)
    throw new UsageError(`--token-env ${flags.tokenEnv}: the token must be at least 16 characters, found ${token.length}`, { path: '--token-env' });
  return token;
}

async function serveCommand(flags: ServeFlags): Promise<void> {
  const port = intFlag('--port', flags.port, { min: 0, max: 65535 }) as number;
  const token = tokenFrom(flags);
  const limits: Partial<ServerLimits> = {};
  const maxBody = intFlag('--max-body', flags.maxBody, { min: 1 });
  const maxTraceBody = intFlag('--max-trace-body', flags.maxTraceBody, { min: 1 });
  if (maxTraceBody) limits.maxTraceBodyBytes = maxTraceBody;
  const timeout = intFlag('--timeout', flags.timeout, { min: 1 });
  const rate = numberFlag('--rate', flags.rate, { min: 0.001 });
  const burst = intFlag('--burst', flags.burst, { min: 1 });
  const llm = await llmConfig(flags);
  // An LLM claim checker answers on this thread (network I/O); an NLI model is loaded in each analysis worker.
  const checking = await checkerConfig(flags);
  if (maxBody) limits.maxBodyBytes = maxBody;
  if (timeout) limits.requestTimeoutMs = timeout;
  if (rate) limits.ratePerSecond = rate;
  if (burst) limits.rateBurst = burst;
  const connections: Partial<ConnectionLimits> = {};
  const maxConnections = intFlag('--max-connections', flags.maxConnections, { min: 1 });
  const headersTimeout = intFlag('--headers-timeout', flags.headersTimeout, { min: 1 });
  const bodyTimeout = intFlag('--body-timeout', flags.bodyTimeout, { min: 1 });
  if (maxConnections) connections.maxConnections = maxConnections;
  if (headersTimeout) connections.headersTimeoutMs = headersTimeout;
  if (bodyTimeout) connections.bodyTimeoutMs = bodyTimeout;
  const headersMs = connections.headersTimeoutMs ?? defaultConnectionLimits.headersTimeoutMs;
  const bodyMs = connections.bodyTimeoutMs ?? defaultConnectionLimits.bodyTimeoutMs;
  if (headersMs > bodyMs)
    throw new UsageError(`--headers-timeout ${headersMs} exceeds --body-timeout ${bodyMs}: the whole request includes its headers`, {
      path: '--headers-timeout',
    });

  const workers = intFlag('--workers', flags.workers, { min: 1, max: 256 }) ?? defaultWorkers();
  const queue = intFlag('--queue', flags.queue, { min: 0 }) ?? DEFAULT_QUEUE;
  const workerHeapMb = intFlag('--worker-memory', flags.workerMemory, { min: 16 });
  // The pool decides when /analyze is overloaded: every worker busy and its queue full.
  limits.maxInFlight = workers + queue;

  let engine: GroundingPool | undefined;
  if (flags.kb) {
    try {
      // The analyses run in worker threads, each with the KB loaded once; this thread only does I/O.
      engine = await createGroundingPool({
        kbDir: flags.kb,
        embedderConfig: embedderConfig(flags),
        llm,
        ...checking,
        workers,
        queue,
        ...(workerHeapMb ? { workerHeapMb } : {}),
        onWarning: (message) => process.stderr.write(`assay: ${message}\n`),
      });
    } catch (err) {
      if (UsageError.isInstance(err)) throw err;
      throw new UsageError(`--kb ${flags.kb}: ${(err as Error).message}`, { file: flags.kb, path: '--kb' });
    }
  }
  // The dashboard reads the store; without --store (or ASSAY_STORE) a missing default store just means no dashboard data.
  let store: Store | undefined;
  const location = storeLocation(flags.store);
  // --grading: the grading page stores people's grades, so the store is opened for writing (runs stay untouched);
  // it must hold runs already, as for reading.
  // --ingest: POST /v1/traces writes production traffic, so the store is opened for writing and made when missing.
  if (flags.store || process.env.ASSAY_STORE || existsSync(location) || flags.grading || flags.ingest)
    store = await openStore(location, { readonly: !flags.grading && !flags.ingest, existing: !flags.ingest }).catch(async (err: unknown) => {
      await engine?.close();
      throw err;
    });
  if (!engine && !store) {
    throw new UsageError(
      'nothing to serve: give --kb <dir> for POST /analyze and/or --store LOCATION (default $ASSAY_STORE, else .assay/assay.db) for the dashboard',
      { path: '--kb' },
    );
  }

  let handle: ServerHandle;
  let redis: Redis | undefined;
  try {
    // A command Redis never answers is dropped after 5 s, so a hung Redis cannot pile up pending commands.
    redis =
      flags.redis !== undefined ? await connectRedis(parseRedisUrl(flags.redis, '--redis'), 'the shared rate limit', { commandTimeoutMs: 5000 }) : undefined;
    const rateLimiter = redis && sharedLimiter(redis, flags.redis!, limits);
    handle = await startServer({
      host: flags.host,
      port,
      token,
      engine,
      store,
      ...(store ? { storeLocation: location } : {}),
      grading: Boolean(flags.grading && store),
      ingest: Boolean(flags.ingest && store),
      limits,
      connections,
      allowHosts: flags.allowHost,
      trustProxy: flags.trustProxy === true,
      ...(rateLimiter ? { rateLimiter } : {}),
    });
  } catch (err) {
    await store?.close(); // a PostgreSQL pool would keep the process alive
    await engine?.close();
    redis?.disconnect();
    throw err;
  }
  process.stderr.write(
    `assay: serving on ${handle.url} (${[engine ? `POST /analyze, ${engine.workers} workers` : '', store ? ['dashboard', flags.grading ? 'grading' : '', flags.ingest ? 'OTLP traces at POST /v1/traces' : ''].filter(Boolean).join(', ') : ''].filter(Boolean).join(', ')}); Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second signal during the drain ends the process at once (default handler).
      handle.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await engine?.close();
  await store?.close();
  redis?.disconnect();
}

/** `--redis`: every replica given the same Redis (and prefix) shares each client's /analyze budget. */
function sharedLimiter(redis: Redis, url: string, limits: Partial<ServerLimits>): RedisRateLimiter {
  const { rateBurst, ratePerSecond } = resolveLimits(limits);
  return new RedisRateLimiter(redis, rateBurst, ratePerSecond, parseRedisUrl(url, '--redis').prefix, (err) =>
    process.stderr.write(`assay: the shared rate limit cannot reach Redis (${err.message}); limiting in this process meanwhile\n`),
  );
}

/** `assay serve`: POST /analyze and the read-only dashboard in one process. */
export function register(program: Command): void {
  const cmd = program
    .command('serve')
    .description('serve POST /analyze (with --kb) and the dashboard over the store, in one process')
    .option('--kb <dir>', 'knowledge base directory (from assay kb ingest) for POST /analyze')
    .option('--store <location>', 'store the dashboard reads: a SQLite file or a postgres:// URL (default: $ASSAY_STORE, else .assay/assay.db)')
    .option('--grading', "let the dashboard's grading page store people's grades (opens the store for writing; see docs/judges.md)")
    .option(
      '--ingest',
      'take OpenTelemetry traces at POST /v1/traces (OTLP/HTTP) into production experiments (opens the store for writing; see docs/production.md)',
    )
    .option('--port <n>', 'port (0 picks a free one)', '8787')
    .option('--host <host>', 'address to bind; anything but loopback requires --token-env', '127.0.0.1')
    .option('--token-env <var>', 'environment variable holding the API token (then every request needs Authorization: Bearer)')
    .option('--max-body <bytes>', 'largest request body of POST /analyze (default 262144)')
    .option('--max-trace-body <bytes>', 'largest OTLP export at POST /v1/traces, compressed and decompressed (default 4194304)')
    .option('--timeout <ms>', 'per-request time limit of /analyze (default 30000)')
    .option('--rate <n>', 'sustained requests per second per client (default 10)')
    .option('--burst <n>', 'burst of requests per client (default 30)')
    .option('--redis <url>', 'share the /analyze rate limit between replicas through this Redis (redis://host:6379[?prefix=name])')
    .option('--max-connections <n>', 'open connections at most; beyond, the oldest idle or half-sent one is closed, or 503 (default 512)')
    .option('--workers <n>', 'worker threads that analyse /analyze requests, each with its own copy of the KB (default: one per core, 2–8)')
    .option('--queue <n>', 'requests that may wait for a free worker; beyond, 503 with Retry-After (default 32)')
    .option('--worker-memory <mb>', "heap limit of each worker thread in MB; an analysis beyond it fails alone with 500 (default: Node's own)")
    .option('--headers-timeout <ms>', 'a client must send its request headers within this time (default 20000)')
    .option('--body-timeout <ms>', 'a client must send its whole request within this time (default 60000)')
    .option(
      '--allow-host <name>',
      'without a token, also answer this Host name besides localhost and loopback addresses (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option('--trust-proxy', 'behind a reverse proxy that terminates TLS: believe its X-Forwarded-Proto (the login cookie is then Secure)');
  checkerOptions(llmOptions(embedderOptions(cmd))).action(async (flags: ServeFlags) => serveCommand(flags));
}
