import { ExitCode } from '../errors.js';

/**
 * The store could not be opened, reached or written (permissions, a read-only mount, a file that is not a
 * database, a database server that refuses or drops the connection): an environment problem, exit 3,
 * reported in one line naming the store (a URL's password is never shown).
 */
export class StoreError extends Error {
  readonly exitCode = ExitCode.INTERNAL;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** A sample (i, j) that is already stored: another writer (a second --resume, a queue worker) got there first. */
export class DuplicateSampleError extends Error {
  constructor(
    readonly runId: string,
    readonly i: number,
    readonly j: number,
  ) {
    super(`run ${runId}: sample (${i}, ${j}) is already stored`);
    this.name = 'DuplicateSampleError';
  }
}

export class UnknownRunError extends Error {
  constructor(runId: string) {
    super(`no run with id "${runId}" in the store`);
    this.name = 'UnknownRunError';
  }
}
