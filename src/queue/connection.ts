import { Redis } from 'ioredis';
import { AssayError, ExitCode, UsageError } from '../errors.js';

/** The queue (Redis) could not be reached or used: an environment problem, exit 3, in one line without the password. */
export class QueueError extends AssayError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'QueueError';
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

/**
 * A Redis client that is known to answer: connects and PINGs, failing fast with a QueueError naming the
 * server when it does not. Afterwards it reconnects by itself (a restarted Redis is picked up again).
 */
export async function connectRedis(loc: RedisLocation, what = 'the queue', opts: { commandTimeoutMs?: number } = {}): Promise<Redis> {
  // No retries while connecting: a server that is not there is reported at once.
  const client = new Redis(loc.url, {
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 3,
    retryStrategy: () => null,
    ...(opts.commandTimeoutMs !== undefined ? { commandTimeout: opts.commandTimeoutMs } : {}),
  });
  let cause: Error | undefined;
  const onError = (err: Error) => (cause ??= err);
  client.on('error', onError);
  try {
    await client.connect();
    await client.ping();
    client.options.retryStrategy = (times) => Math.min(times * 200, 2000);
  } catch (err) {
    client.disconnect();
    const why = ((cause ?? err) instanceof Error ? (cause ?? (err as Error)).message : String(err)).split('\n')[0];
    // A server that wants a password says NOAUTH and a sentence about HELLO; say what to change instead.
    const hint = /^NOAUTH\b/.test(why)
      ? ' (the server requires a password: give it in the URL, redis://:password@host:6379 or redis://user:password@host:6379)'
      : '';
    throw new QueueError(`cannot reach ${what} at ${loc.shown}: ${hint ? 'NOAUTH, authentication required' : why}${hint}`, { cause: cause ?? err });
  }
  client.off('error', onError);
  client.on('error', () => {}); // a dropped connection is retried; commands that fail meanwhile say so themselves
  return client;
}
