import { NoStoreError } from './errors.js';
import { assayCommandLine } from '../invocation.js';

/**
 * The one "store must exist" refusal, for every store and every reader: a store opened to read (or to grade
 * what it holds) that nobody has run into yet. Exit 2, nothing created; `where.key` is `store` (the CLI says
 * --store). `shown` is the store as messages name it; `at` adds where in it (a PostgreSQL schema).
 */
export function noStore(shown: string, found: string, at = ''): NoStoreError {
  return new NoStoreError(
    shown,
    `store: expected an assay store at ${shown}${at}, found ${found} (runs are stored there by: ${assayCommandLine('run <config>')})`,
  );
}
