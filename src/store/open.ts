import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError, thrownMessage } from '../errors.js';
import { Outage, type OutageOptions } from './outage.js';
import { StoreError } from './errors.js';
import { noStore } from './no-store.js';
import { postgresProbe, PostgresStore } from './postgres.js';
import { isPostgresUrl, parsePostgresUrl, redactPassword } from './postgres-schema.js';
import { defaultStorePath, isDefaultStoreFolder, openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export { NoStoreError, StoreError } from './errors.js';
export { isPostgresUrl, redactPassword } from './postgres-schema.js';

/**
 * Where a command's runs live: `--store`, else the ASSAY_STORE environment variable, else
 * `.assay/assay.db` under the working directory. A `postgres://` (or `postgresql://`) URL names a
 * PostgreSQL database; any other URL is refused (UsageError naming where it came from); anything else is
 * the path of a SQLite file.
 */
export function storeLocation(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  if (flag !== undefined && flag !== '') return checkStoreLocation(flag, 'store', cwd);
  const fromEnv = env.ASSAY_STORE;
  return fromEnv !== undefined && fromEnv !== '' ? checkStoreLocation(fromEnv, 'ASSAY_STORE', cwd) : defaultStorePath(cwd);
}

/** `scheme://…`: what a user means as a URL, never as a file name. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A location that looks like a URL must be a PostgreSQL one: `mysql://…` is a mistake, not a SQLite file to
 * create. With `cwd` (a location a user gave: --store, ASSAY_STORE), a SQLite file's folder must exist: a
 * mistyped path creates no folders. Only `.assay/` in the working directory, assay's own, is made when missing.
 */
export function checkStoreLocation(location: string, name = 'store', cwd?: string): string {
  if (URL_LIKE.test(location) && !isPostgresUrl(location)) {
    const scheme = location.slice(0, location.indexOf(':') + 1);
    throw new UsageError(
      `${name}: expected a postgres:// or postgresql:// URL, or the path of a SQLite file, found ${JSON.stringify(redactPassword(location))} (a ${scheme} URL: assay keeps runs in PostgreSQL or SQLite only)`,
      { path: name, key: name },
    );
  }
  if (cwd !== undefined && !isPostgresUrl(location) && location !== ':memory:') {
    const folder = dirname(resolve(cwd, location));
    if (!existsSync(folder) && !isDefaultStoreFolder(folder, cwd))
      throw new UsageError(
        `${name}: the folder ${folder} of the SQLite store ${location} does not exist; create it first, or give a store path in a folder that exists`,
        { file: location, path: name, key: name },
      );
  }
  return location;
}

/** The SQLite file a location names (reports must never overwrite it), or undefined for a database server. */
export function storeFile(location: string): string | undefined {
  return isPostgresUrl(location) ? undefined : location;
}

/** A location for messages: a URL without its password. */
export function shownLocation(location: string): string {
  return isPostgresUrl(location) ? parsePostgresUrl(location).shown : location;
}

export interface OpenStoreOptions {
  /** For reading (runs, show, compare, the dashboard): nothing is created, and a missing store is a usage error. */
  readonly?: boolean;
  /**
   * The store must hold runs already, though it is opened for writing (grades, clearing the cache): a missing
   * store is the same usage error as for reading (noStore), and nothing is created. Implied by `readonly`.
   */
  existing?: boolean;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
  /** PostgreSQL: ride out a lost server for a bounded time (storeOutage); ignored for SQLite, which has no server to lose. */
  outage?: Outage;
}

/**
 * How a command that keeps working (assay run, assay worker) rides out a lost PostgreSQL store: queries that
 * fail for a lost connection are tried again for up to `boundMs`, with one line when it is lost and one when
 * it is back; undefined for a SQLite store.
 */
export function storeOutage(
  location: string,
  opts: { boundMs: number; log: (line: string) => void; onGiveUp?: OutageOptions['onGiveUp'] },
): Outage | undefined {
  if (!isPostgresUrl(location)) return undefined;
  return new Outage(`the store at ${shownLocation(location)}`, {
    boundMs: opts.boundMs,
    log: opts.log,
    retryable: (err) => StoreError.isInstance(err) && err.retryable,
    // A query may be slow while the server answers: a silence is a probe unanswered too.
    probe: postgresProbe(location),
    // The driver's words (ECONNREFUSED, Connection terminated), not the StoreError's, which names the store again.
    describe: (err) => {
      const cause = (err as { cause?: { message?: unknown; code?: unknown } }).cause;
      if (!StoreError.isInstance(err) || typeof cause?.message !== 'string') return firstLine(err);
      const code = typeof cause.code === 'string' && !cause.message.includes(cause.code) ? ` (${cause.code})` : '';
      return `${cause.message.split('\n')[0]}${code}`;
    },
    ...(opts.onGiveUp ? { onGiveUp: opts.onGiveUp } : {}),
  });
}

/**
 * Open the store at `location` (see storeLocation) and make sure it can be used: a SQLite file is opened
 * (and migrated), a PostgreSQL database connected to (and migrated). A missing store for reading is exit 2
 * (UsageError); a store that cannot be opened or reached is exit 3 (StoreError), in one line.
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const readonly = options.readonly ?? false;
  const existing = readonly || (options.existing ?? false);
  checkStoreLocation(location);
  if (isPostgresUrl(location)) {
    const store = new PostgresStore(location, {
      readonly,
      existing,
      ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
      ...(options.outage ? { outage: options.outage } : {}),
    });
    try {
      await store.open();
    } catch (err) {
      await store.close().catch(() => {});
      throw UsageError.isInstance(err) || StoreError.isInstance(err)
        ? err
        : new StoreError(`store: cannot open the assay store at ${store.location.shown}: ${firstLine(err)}`, { cause: err, key: 'store' });
    }
    return store;
  }
  if (existing && location !== ':memory:' && !existsSync(location)) throw noStore(location, 'no file');
  try {
    return openSqliteStore(location, { readonly, existing });
  } catch (err) {
    if (UsageError.isInstance(err)) throw err;
    const code = (err as { code?: unknown; cause?: { code?: unknown } }).code ?? (err as { cause?: { code?: unknown } }).cause?.code;
    const why = firstLine(err).replace(/^cannot open the assay store at .*?: /, '');
    throw new StoreError(`store: cannot open the assay store at ${location}: ${why}${typeof code === 'string' ? ` (${code})` : ''}`, {
      cause: err,
      key: 'store',
    });
  }
}

/**
 * A store failure met while using the store (SQLITE_READONLY, SQLITE_FULL, a dropped database connection),
 * as a one-line StoreError naming the location; undefined for anything else.
 */
export function storeFailure(location: string, err: unknown): StoreError | undefined {
  if (StoreError.isInstance(err)) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  return new StoreError(`store: cannot write the assay store at ${shownLocation(location)}: ${firstLine(err)} (${code})`, { cause: err, key: 'store' });
}

function firstLine(err: unknown): string {
  return thrownMessage(err).split('\n')[0];
}
