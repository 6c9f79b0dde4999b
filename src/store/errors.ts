import { AssayError, ExitCode, type AssayErrorOptions, hasMarker, setMarker, UsageError } from '../errors.js';
import { assayCommandLine } from '../invocation.js';

const STORE_ERROR = Symbol.for('assay.StoreError');

/**
 * The store could not be opened, reached or written (permissions, a read-only mount, a file that is not a
 * database, a database server that refuses or drops the connection): an environment problem, exit 3,
 * reported in one line naming the store (a URL's password is never shown).
 */
export class StoreError extends AssayError {
  /** The option at fault (`store`), for a caller that names it its own way (the CLI: --store). */
  readonly where?: { key: string };

  /** `retryable`: a lost connection (the server down, restarting, silent), which may mend; not a refusal (a password, a missing database). */
  constructor(message: string, options?: AssayErrorOptions & { key?: string }) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'StoreError';
    if (options?.key) this.where = { key: options.key };
    setMarker(this, STORE_ERROR);
  }

  static override isInstance(err: unknown): err is StoreError {
    return hasMarker(err, STORE_ERROR);
  }
}

const DUPLICATE_SAMPLE_ERROR = Symbol.for('assay.DuplicateSampleError');

/** A sample (i, j) that is already stored: another writer (a second --resume, a queue worker) got there first. */
export class DuplicateSampleError extends AssayError {
  constructor(
    readonly runId: string,
    readonly i: number,
    readonly j: number,
  ) {
    super(`run ${runId}: sample (${i}, ${j}) is already stored`, ExitCode.INTERNAL);
    this.name = 'DuplicateSampleError';
    setMarker(this, DUPLICATE_SAMPLE_ERROR);
  }

  static override isInstance(err: unknown): err is DuplicateSampleError {
    return hasMarker(err, DUPLICATE_SAMPLE_ERROR);
  }
}

const UNKNOWN_RUN_ERROR = Symbol.for('assay.UnknownRunError');

export class UnknownRunError extends AssayError {
  constructor(runId: string) {
    super(`no run with id "${runId}" in the store (list them with: ${assayCommandLine('runs')})`, ExitCode.USAGE);
    this.name = 'UnknownRunError';
    setMarker(this, UNKNOWN_RUN_ERROR);
  }

  static override isInstance(err: unknown): err is UnknownRunError {
    return hasMarker(err, UNKNOWN_RUN_ERROR);
  }
}

const NO_STORE_ERROR = Symbol.for('assay.NoStoreError');

/** Reading a store that does not exist yet (no SQLite file, no assay tables in the database): exit 2, and nothing is created. */
export class NoStoreError extends UsageError {
  constructor(
    /** The store as messages name it (a URL without its password). */
    readonly shown: string,
    message: string,
  ) {
    super(message, { path: 'store', key: 'store' });
    this.name = 'NoStoreError';
    setMarker(this, NO_STORE_ERROR);
  }

  static override isInstance(err: unknown): err is NoStoreError {
    return hasMarker(err, NO_STORE_ERROR);
  }
}

const GRADE_ERROR = Symbol.for('assay.GradeError');

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
    setMarker(this, GRADE_ERROR);
  }

  static override isInstance(err: unknown): err is GradeError {
    return hasMarker(err, GRADE_ERROR);
  }
}
