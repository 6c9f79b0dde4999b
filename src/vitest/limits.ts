/**
 * The time limits of a describeReliability block, decided here once: the run's own limit (`runTimeoutMs`) and
 * the Vitest hook's, set a margin above it so that assay stops the run, stores it as interrupted and says why
 * before Vitest's "Hook timed out" could. No imports: `assay/vitest` loads this at collection time.
 */

/**
 * A call's default limit (the runner's per-call `timeoutMs`): a test wants the news of a hanging system sooner
 * than a config file's 60 s. A timed-out call is not tried again and fail fast stops the block after a handful,
 * so a hanging system fails the block in about this long. The block's `timeoutMs` sets it.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** The whole experiment's default limit. */
export const DEFAULT_RUN_TIMEOUT_MS = 30 * 60_000;
/** The longest runTimeoutMs: with its margin it stays within what a Node timer holds (2^31 − 1 ms). */
export const MAX_RUN_TIMEOUT_MS = 7 * 24 * 60 * 60_000;

/** runTimeoutMs when it is one the options check accepts, else the default (the check then fails the block). */
export function runTimeoutOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_RUN_TIMEOUT_MS ? value : DEFAULT_RUN_TIMEOUT_MS;
}

/**
 * How long the beforeAll hook waits for the run: runTimeoutMs plus time to load the runner, open the store and, once the run is
 * stopped, store its status and build the report (10% of the limit, at least 10 s).
 */
export function hookTimeoutMs(runTimeoutMs: unknown): number {
  const ms = runTimeoutOf(runTimeoutMs);
  return ms + Math.max(10_000, Math.ceil(ms / 10));
}

/**
 * Vitest's own limit for the hook, past `hookTimeoutMs`: when a blocked thread kept every timer from firing, the
 * hook's wait (set earlier, so due first) ends before Vitest's, and the rule tests fail saying why.
 */
export const HOOK_SLACK_MS = 5_000;
