import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { StoreError } from './errors.js';
import { PostgresStore } from './postgres.js';
import { isPostgresUrl, parsePostgresUrl } from './postgres-schema.js';
import { defaultStorePath, openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export { StoreError } from './errors.js';
export { isPostgresUrl, redactPassword } from './postgres-schema.js';

/**
 * Where a command's runs live: `--store`, else the ASSAY_STORE environment variable, else
 * `.assay/assay.db` under the working directory. A `postgres://` (or `postgresql://`) URL names a
 * PostgreSQL database; anything else is the path of a SQLite file.
 */
export function storeLocation(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.ASSAY_STORE;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : defaultStorePath(cwd);
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
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
}

/**
 * Open the store at `location` (see storeLocation) and make sure it can be used: a SQLite file is opened
 * (and migrated), a PostgreSQL database connected to (and migrated). A missing store for reading is exit 2
 * (UsageError); a store that cannot be opened or reached is exit 3 (StoreError), in one line.
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const readonly = options.readonly ?? false;
  if (isPostgresUrl(location)) {
    const store = new PostgresStore(location, { readonly, ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}) });
    try {
      await store.open();
    } catch (err) {
      await store.close().catch(() => {});
      throw err instanceof UsageError || err instanceof StoreError
        ? err
        : new StoreError(`--store: cannot open the assay store at ${store.location.shown}: ${firstLine(err)}`, { cause: err });
    }
    return store;
  }
  if (readonly && !existsSync(location)) {
    throw new UsageError(`--store: expected an assay store at ${location}, found no file (runs are stored there by: assay run <config>)`, {
      file: location,
      path: '--store',
    });
  }
  try {
    return openSqliteStore(location, { readonly });
  } catch (err) {
    const code = (err as { code?: unknown; cause?: { code?: unknown } }).code ?? (err as { cause?: { code?: unknown } }).cause?.code;
    const why = firstLine(err).replace(/^cannot open the assay store at .*?: /, '');
    throw new StoreError(`--store: cannot open the assay store at ${location}: ${why}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: err });
  }
}

/**
 * A store failure met while using the store (SQLITE_READONLY, SQLITE_FULL, a dropped database connection),
 * as a one-line StoreError naming the location; undefined for anything else.
 */
export function storeFailure(location: string, err: unknown): StoreError | undefined {
  if (err instanceof StoreError) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  return new StoreError(`--store: cannot write the assay store at ${shownLocation(location)}: ${firstLine(err)} (${code})`, { cause: err });
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
