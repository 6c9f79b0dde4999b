/**
 * Watching the thread: a synchronous loop in a system function (or a check) keeps every timer from firing, the
 * per-call timeout, runTimeoutMs and Vitest's own hook limit alike. A heartbeat notes the longest time it could
 * not run, so a test that stalls can say the thread was blocked, and for how long. No imports: `assay/vitest`
 * loads this at collection time.
 */

/** The heartbeat's period; a gap far longer than it is time the thread spent elsewhere. */
const BEAT_MS = 100;
/** A gap this long is named (well above what a loaded machine or a garbage collection costs). */
export const BLOCKED_MS = 2_000;

export interface ThreadWatch {
  /** The longest stretch (ms) the heartbeat could not run, up to now. */
  longestGapMs(): number;
  stop(): void;
}

export function watchThread(): ThreadWatch {
  let last = performance.now();
  let longest = 0;
  const beat = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - BEAT_MS);
    last = now;
  };
  const timer = setInterval(beat, BEAT_MS);
  timer.unref?.();
  return {
    longestGapMs: () => {
      beat();
      return Math.max(0, longest);
    },
    stop: () => clearInterval(timer),
  };
}

/** "the system (or a check) blocked the thread for 11.5 s …", or undefined for a gap too short to name. */
export function blockedText(gapMs: number): string | undefined {
  if (gapMs < BLOCKED_MS) return undefined;
  return (
    `the system (or a check) blocked the thread for ${(gapMs / 1000).toFixed(1)} s at once: a synchronous loop or call, during which ` +
    'no timeout (timeoutMs, runTimeoutMs, Vitest’s own) can fire; make it await, or move CPU-heavy work to a worker thread'
  );
}
