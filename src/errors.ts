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

/** The exit codes an error can carry: 2 (the user can fix what they gave us) or 3 (environment, internal). */
export type ErrorExitCode = typeof ExitCode.USAGE | typeof ExitCode.INTERNAL;

/** Marker shared by every copy of this module: the `assay` bin's bundle and the package a TypeScript config imports. */
const MARKER = Symbol.for('assay.AssayError');

/**
 * The base of every error assay raises on purpose. Its message is written for the user and stands alone in
 * one line; `exitCode` is what the CLI exits with when it reaches the top. Anything else that reaches the top
 * is a bug, reported with its stack trace (exit 3).
 */
export class AssayError extends Error {
  constructor(
    message: string,
    readonly exitCode: ErrorExitCode,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AssayError';
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** An AssayError of this copy of assay or of another (the bin is a bundle; a config imports the package). */
  static isInstance(err: unknown): err is AssayError {
    return err instanceof AssayError || (typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[MARKER] === true);
  }
}

/**
 * A problem with what the user gave us (config file, input file, CLI flags). Exit code 2.
 * The message always names where (file, field path or line), what was expected and what was found.
 */
export class UsageError extends AssayError {
  constructor(
    message: string,
    readonly where?: { file?: string; path?: string; line?: number; key?: string },
    options?: ErrorOptions,
  ) {
    super(message, ExitCode.USAGE, options);
    this.name = 'UsageError';
  }
}

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
