/**
 * The command a message tells the user to type (`assay runs`, `npx assay run --resume …`), for every layer that
 * words such a hint (the store, reports, the app services, the queue). Which command works where the user is
 * (`npx assay` under npx or a project's own install, `assay` for a global one) is decided once, by the CLI at
 * start (cli/invocation.ts), and carried here; the library, assay/vitest and tests, which start no bin, say
 * `assay`. No imports: the lowest layer.
 */

let command = 'assay';

/** `assay <rest>` as the user can type it here, e.g. `assayCommandLine('runs')` → `npx assay runs`. */
export function assayCommandLine(rest: string): string {
  return `${command} ${rest}`;
}

/** The command as set (`assay`, `npx assay`): what a worker thread is told so that its hints read the same. */
export function currentAssayCommand(): string {
  return command;
}

/** Set by the bin at start, from the CLI's decider; `assay` until then. */
export function setAssayCommand(value: string): void {
  command = value;
}
