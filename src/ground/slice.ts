/**
 * Cooperative time-slicing for CPU work on the event loop (the grounding analysis in `assay serve`).
 * An analysis checks in between small steps; once it has held the thread for `sliceMs` it waits for a turn.
 * Turns are handed out one per event-loop iteration, in order, by one shared pump: between two slices the
 * loop polls for I/O, so other requests (`/healthz` included) are served and time-limit timers fire however
 * many analyses run at once. (Each analysis scheduling its own setImmediate would not do: Node runs every
 * queued immediate in one go, so 32 analyses would hold the loop for 32 slices.) Every check-in also throws
 * the signal's reason once aborted, so a timed-out or abandoned analysis stops at its next step.
 */
const waiting: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift();
  if (!next) {
    pumping = false;
    return;
  }
  next();
  setImmediate(pump);
}

function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

export class TimeSlicer {
  private sliceStart = performance.now();
  /** How many times this analysis gave the thread away (for tests and benchmarks). */
  yields = 0;

  constructor(
    private readonly signal?: AbortSignal,
    /** Longest stretch of work between two yields, in ms. */
    readonly sliceMs = 8,
  ) {}

  /** Yields when the current slice is used up; throws when aborted. */
  async checkIn(): Promise<void> {
    this.signal?.throwIfAborted();
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.yields++;
    this.sliceStart = performance.now();
    this.signal?.throwIfAborted();
  }
}
