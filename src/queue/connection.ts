import type { Redis } from 'ioredis';
import { AssayError, ExitCode, hasMarker, setMarker, UsageError, thrownMessage } from '../errors.js';

const QUEUE_ERROR = Symbol.for('assay.QueueError');

/** The queue (Redis) could not be reached or used: an environment problem, exit 3, in one line without the password. */
export class QueueError extends AssayError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'QueueError';
    setMarker(this, QUEUE_ERROR);
  }

  static override isInstance(err: unknown): err is QueueError {
    return hasMarker(err, QUEUE_ERROR);
  }
}

export interface RedisLocation {
  /** The URL as given minus assay's own `prefix` parameter: what ioredis connects with. */
  url: string;
  /** Prefix of every key assay and BullMQ write (`?prefix=`, default `assay`), so several teams or test runs share a server. */
  prefix: string;
  /** The URL for messages: the password replaced by ***. */
  shown: string;
}

const PREFIX = /^[A-Za-z0-9_.-]{1,100}$/;

/** Read `redis://[user:password@]host[:port][/db][?prefix=name]` (or rediss:// for TLS); UsageError naming `flag` otherwise. */
export function parseRedisUrl(url: string, flag = '--queue'): RedisLocation {
  const shown = url.replace(/^(rediss?:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${flag}: expected a URL such as redis://127.0.0.1:6379, found ${JSON.stringify(shown)}`, { path: flag });
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new UsageError(`${flag}: expected a redis:// or rediss:// URL, found ${JSON.stringify(shown)}`, { path: flag });
  const prefix = u.searchParams.get('prefix') ?? 'assay';
  if (!PREFIX.test(prefix))
    throw new UsageError(`${flag}: the prefix parameter must be letters, digits, _ . - (at most 100), found ${JSON.stringify(prefix)}`, { path: flag });
  u.searchParams.delete('prefix');
  return { url: u.toString(), prefix, shown };
}

/** A server that has not connected and answered a PING within this long is reported (ms). */
export const REDIS_CONNECT_TIMEOUT_MS = 10_000;
/** assay's own commands (the run board, rate limits, the heartbeat) are given up after this long without an answer (ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 10_000;
/** A lost connection is tried again every 0.2, 0.4, … s, then every second: a restarted Redis is found within a second. */
const reconnect = (times: number) => Math.min(times * 200, 1000);

/**
 * Options for the connections BullMQ makes for a worker: a connect timeout and quick reconnection. Its
 * blocking reads (waiting for jobs) carry BullMQ's own deadlines; a server that goes silent is noticed by
 * the worker's heartbeat on assay's own client (worker.ts). Jobs are added through assay's own client
 * (connectRedis), which fails at once while Redis is away, so that the caller rides the outage out.
 */
export function bullConnection(loc: RedisLocation) {
  return {
    url: loc.url,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: reconnect,
    maxRetriesPerRequest: null,
  };
}

/** A Redis error that says the server refused us (a password, an ACL): no wait mends it. */
export function redisRefused(err: unknown): boolean {
  return /^(NOAUTH|WRONGPASS|NOPERM)\b/.test(message(err));
}

/** A Redis failure that a wait may mend: the connection refused, dropped, not yet back, or silent. */
export function redisLost(err: unknown): boolean {
  const code = String((err as { code?: unknown } | undefined)?.code ?? '');
  return (
    /^(ECONN|ENOTFOUND|EAI_|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)/.test(code) ||
    (err as { name?: unknown } | undefined)?.name === 'MaxRetriesPerRequestError' ||
    /^(LOADING|MASTERDOWN|TRYAGAIN|BUSY)\b|Connection is closed|Stream isn't writeable|Command timed out|Socket timeout|max retries per request|connect ETIMEDOUT|ECONNRE|EPIPE|Connection in subscriber/i.test(
      message(err),
    )
  );
}

function message(err: unknown): string {
  return thrownMessage(err);
}

/**
 * A Redis client that is known to answer: connects and PINGs within REDIS_CONNECT_TIMEOUT_MS, failing fast
 * with a QueueError naming the server when it does not (refused, a wrong password, or a server that accepts
 * the connection and never answers). Afterwards it reconnects by itself (a restarted Redis is picked up
 * again); its commands fail at once while it is away (no offline queue) and after REDIS_COMMAND_TIMEOUT_MS
 * without an answer, so that the caller, not the client, decides how long to wait (see outage.ts).
 */
export async function connectRedis(loc: RedisLocation, what = 'the queue', opts: { commandTimeoutMs?: number } = {}): Promise<Redis> {
  // Loaded here, not at import: only a queued run or a worker needs ioredis (start-up, docs/runner.md).
  const { Redis } = await import('ioredis');
  // No retries while connecting: a server that is not there is reported at once.
  const client = new Redis(loc.url, {
    lazyConnect: true,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: opts.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: Error | undefined;
  const onError = (err: Error) => (cause ??= err);
  client.on('error', onError);
  let timer: NodeJS.Timeout | undefined;
  // ioredis times the TCP connection only: a server that accepts it and never answers would be waited for without end.
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${REDIS_CONNECT_TIMEOUT_MS / 1000} s (the server accepts connections but does not reply)`)),
      REDIS_CONNECT_TIMEOUT_MS,
    );
  });
  const attempt = (async () => {
    await client.connect();
    await client.ping();
  })();
  attempt.catch(() => {}); // once the wait is over, what the abandoned attempt says no longer matters
  try {
    await Promise.race([attempt, silent]);
    client.options.retryStrategy = reconnect;
  } catch (err) {
    client.disconnect();
    const why = ((cause ?? err) instanceof Error ? (cause ?? (err as Error)).message : String(err)).split('\n')[0];
    // A server that wants a password says NOAUTH and a sentence about HELLO; say what to change instead.
    const hint = /^NOAUTH\b/.test(why)
      ? ' (the server requires a password: give it in the URL, redis://:password@host:6379 or redis://user:password@host:6379)'
      : '';
    throw new QueueError(`cannot reach ${what} at ${loc.shown}: ${hint ? 'NOAUTH, authentication required' : why}${hint}`, { cause: cause ?? err });
  } finally {
    clearTimeout(timer);
  }
  client.off('error', onError);
  // A dropped connection is retried; what broke it is kept for the lines that say so (redisReason).
  client.on('error', (err: Error) => lastErrors.set(client, err));
  client.on('ready', () => lastErrors.delete(client));
  return client;
}

const lastErrors = new WeakMap<Redis, Error>();

/**
 * A failure of a command on `client` in a few words: a command refused because the connection is down
 * says only that, so the error that took the connection down (ECONNREFUSED, …) is named instead.
 */
export function redisReason(client: Redis): (err: unknown) => string {
  return (err) => {
    const msg = message(err).split('\n')[0];
    if (/^NOAUTH\b/.test(msg)) return `NOAUTH, authentication required (the server now requires a password: give it in the URL, redis://:password@host:6379)`;
    if (!/Stream isn't writeable|Connection is closed|max retries per request/i.test(msg)) return msg;
    const last = lastErrors.get(client);
    return last ? message(last).split('\n')[0] : 'the connection was closed';
  };
}

/**
 * Close a BullMQ worker without waiting for Redis to say goodbye: with Redis away, a polite close waits for
 * a connection that may never come back (its QUIT sits in the offline queue, and a client that is
 * reconnecting never reports its end), and keeps the process alive. Its connections are dropped at once
 * instead; its jobs in hand are abandoned (their locks expire and another worker takes them).
 */
export async function closeAtOnce(x: { getBackend(): { close(force?: boolean): Promise<void> }; close(force?: boolean): Promise<void> }): Promise<void> {
  await x
    .getBackend()
    .close(true)
    .catch(() => {});
  await x.close(true).catch(() => {});
}
