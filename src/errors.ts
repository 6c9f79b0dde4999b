/** Documented process exit codes of the `assay` CLI. */
export const ExitCode = {
  OK: 0,
  /** A verdict failed (or was inconclusive in confident mode), or a comparison got significantly worse. */
  VERDICT_FAILED: 1,
  /** Bad config, input file or command-line usage. */
  USAGE: 2,
  /** Unexpected internal or infrastructure error (e.g. the store could not be opened). */
  INTERNAL: 3,
  /** Interrupted by the user (Ctrl-C); what finished was kept. */
  INTERRUPTED: 130,
} as const;

/**
 * The exit codes an error can carry: 2 (the user can fix what they gave us), 3 (environment, internal), and the
 * two that name an outcome, 1 (a reliability test that did not pass) and 130 (Ctrl-C).
 */
export type ErrorExitCode = typeof ExitCode.VERDICT_FAILED | typeof ExitCode.USAGE | typeof ExitCode.INTERNAL | typeof ExitCode.INTERRUPTED;

export interface AssayErrorOptions extends ErrorOptions {
  /** Whether trying the same thing again may succeed (a lost connection, a 429); decided where the error is made. */
  retryable?: boolean;
}

/**
 * Marks `err` as made by the class whose marker is `marker`. Every class sets its own in its constructor, so an
 * error carries the markers of its class and of every class above it. Not enumerable: it stays out of
 * comparisons, logs and what crosses a thread.
 */
export function setMarker(err: Error, marker: symbol): void {
  Object.defineProperty(err, marker, { value: true });
}

/** Whether `err` carries `marker`, whichever copy of assay made it. */
export function hasMarker(err: unknown, marker: symbol): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[marker] === true;
}

/**
 * Marker shared by every copy of this module: the `assay` bin's bundle and the package a TypeScript config
 * imports hold two copies of every class, so `instanceof` cannot tell; `isInstance` reads the marker. Each
 * subclass has its own (`Symbol.for('assay.<Name>')`), so `isInstance` answers for that class and the classes
 * below it, never for a sibling.
 */
const ASSAY_ERROR = Symbol.for('assay.AssayError');

/**
 * The base of every error assay raises on purpose. Its message is written for the user and stands alone in
 * one line; `exitCode` is what the CLI exits with when it reaches the top; `retryable` says, once and where
 * the error is made, whether another attempt may help. Anything else that reaches the top is a bug, reported
 * with its stack trace (exit 3).
 */
export class AssayError extends Error {
  /** Whether another attempt may succeed (a lost connection, a rate limit): decided where the error is made, false unless said. */
  readonly retryable: boolean;

  constructor(
    message: string,
    readonly exitCode: ErrorExitCode,
    options?: AssayErrorOptions,
  ) {
    super(message, options);
    this.name = 'AssayError';
    this.retryable = options?.retryable ?? false;
    setMarker(this, ASSAY_ERROR);
  }

  /** An AssayError (of any class) of this copy of assay or of another (the bin is a bundle; a config imports the package). */
  static isInstance(err: unknown): err is AssayError {
    return hasMarker(err, ASSAY_ERROR);
  }
}

const USAGE_ERROR = Symbol.for('assay.UsageError');

/**
 * A problem with what the user gave us (config file, input file, CLI flags). Exit code 2.
 * The message always names where (file, field path or line), what was expected and what was found.
 */
export class UsageError extends AssayError {
  constructor(
    message: string,
    /** Where the problem is: a file, a field path, a line; `key` names a library function's argument or option. */
    readonly where?: { file?: string; path?: string; line?: number; key?: string },
    options?: ErrorOptions,
  ) {
    super(message, ExitCode.USAGE, options);
    this.name = 'UsageError';
    setMarker(this, USAGE_ERROR);
  }

  static override isInstance(err: unknown): err is UsageError {
    return hasMarker(err, USAGE_ERROR);
  }
}

const ARGUMENT_ERROR = Symbol.for('assay.ArgumentError');

/**
 * A library function was given an argument it cannot use (a level outside (0, 1), a negative count, an
 * unknown method). Exit 2 should one reach the CLI; `where.key` names the argument or option at fault, the
 * message says what was expected and what was found.
 */
export class ArgumentError extends AssayError {
  constructor(
    message: string,
    readonly where: { key: string },
    options?: ErrorOptions,
  ) {
    super(message, ExitCode.USAGE, options);
    this.name = 'ArgumentError';
    setMarker(this, ARGUMENT_ERROR);
  }

  static override isInstance(err: unknown): err is ArgumentError {
    return hasMarker(err, ARGUMENT_ERROR);
  }
}

const MISSING_PACKAGE_ERROR = Symbol.for('assay.MissingPackageError');

/**
 * A feature needs an optional package that is not installed (the transformers embedder, PDF ingest, a
 * provider's SDK). Exit 2: the message names the package and the command that installs it.
 */
export class MissingPackageError extends UsageError {
  constructor(
    readonly packageName: string,
    readonly feature: string,
    options?: ErrorOptions & { hint?: string },
  ) {
    const hint = options?.hint ? `; ${options.hint}` : '';
    super(
      `${feature} needs the optional package ${packageName}, which is not installed: install it with npm install ${packageName}${hint}`,
      undefined,
      options,
    );
    this.name = 'MissingPackageError';
    setMarker(this, MISSING_PACKAGE_ERROR);
  }

  static override isInstance(err: unknown): err is MissingPackageError {
    return hasMarker(err, MISSING_PACKAGE_ERROR);
  }
}

/**
 * Import an optional peer dependency by name, or throw a MissingPackageError naming it and its install
 * command. Only "this very package is missing" becomes that error; a package that is there but fails to load
 * keeps its own error.
 */
export async function importOptional<T>(packageName: string, feature: string, load: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = err instanceof Error ? err.message : '';
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`));
    if (missing) throw new MissingPackageError(packageName, feature, { cause: err, hint });
    throw err;
  }
}

/**
 * What a thrown value says, whatever it is: an Error's message, else its text. Never throws itself: a value
 * whose `toString` (or `message` getter) throws, or an object without a prototype, is described instead
 * (issue 30: such a value thrown by a system aborted the whole run).
 */
export function thrownMessage(err: unknown): string {
  try {
    if (err instanceof Error) return String(err.message);
    return String(err);
  } catch (inner) {
    if (typeof err === 'object' && err !== null && Object.getPrototypeOf(err) === null) {
      let json = '';
      try {
        json = JSON.stringify(err).slice(0, 200);
      } catch {
        json = 'unprintable';
      }
      return `threw an object without a prototype (${json})`;
    }
    let why = '';
    try {
      why = inner instanceof Error ? inner.message : typeof inner;
    } catch {
      why = 'unreadable';
    }
    return `threw ${err === null ? 'null' : typeof err === 'object' ? 'an object' : `a ${typeof err}`} whose toString throws (${why})`;
  }
}
