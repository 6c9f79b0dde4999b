/**
 * A problem with what the user gave us (config file, input file, CLI flags). Exit code 2.
 * The message always names where (file, field path or line), what was expected and what was found.
 */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly where?: { file?: string; path?: string; line?: number },
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

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
