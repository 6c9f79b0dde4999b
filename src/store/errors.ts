import { AssayError, ExitCode, UsageError } from '../errors.js';

/**
 * The store could not be opened, reached or written (permissions, a read-only mount, a file that is not a
 * database, a database server that refuses or drops the connection): an environment problem, exit 3,
 * reported in one line naming the store (a URL's password is never shown).
 */
export class StoreError extends AssayError {
  /** A lost connection (the server down, restarting, silent), which may mend; not a refusal (a password, a missing database). */
  readonly transient: boolean;
  /** The option at fault (`store`), for a caller that names it its own way (the CLI: --store). */
  readonly where?: { key: string };

  constructor(message: string, options?: ErrorOptions & { transient?: boolean; key?: string }) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'StoreError';
    this.transient = options?.transient ?? false;
    if (options?.key) this.where = { key: options.key };
  }
}

/** A sample (i, j) that is already stored: another writer (a second --resume, a queue worker) got there first. */
export class DuplicateSampleError extends AssayError {
  constructor(
    readonly runId: string,
    readonly i: number,
    readonly j: number,
  ) {
    super(`run ${runId}: sample (${i}, ${j}) is already stored`, ExitCode.INTERNAL);
    this.name = 'DuplicateSampleError';
  }
}

export class UnknownRunError extends AssayError {
  constructor(runId: string) {
    super(`no run with id "${runId}" in the store (list them with: assay runs)`, ExitCode.USAGE);
    this.name = 'UnknownRunError';
  }
}

/** Reading a store that does not exist yet (no SQLite file, no assay tables in the database): exit 2, and nothing is created. */
export class NoStoreError extends UsageError {
  constructor(
    /** The store as messages name it (a URL without its password). */
    readonly shown: string,
    message: string,
  ) {
    super(message, { path: 'store', key: 'store' });
    this.name = 'NoStoreError';
  }
}

/** A grade the store refuses (an output outside the run, a rule it does not have, a malformed field): exit 2. */
export class GradeError extends AssayError {
  constructor(
    message: string,
    /** The NewGrade field at fault, when one is. */
    readonly field?: string,
    /** Its position in a batch (recordGrades), so an import can name the line. */
    readonly index?: number,
  ) {
    super(message, ExitCode.USAGE);
    this.name = 'GradeError';
  }
}
