/**
 * Cooperative time-slicing for CPU work on the event loop (the grounding analysis in `assay serve`).
 * An analysis checks in between small steps; once it has held the thread for `sliceMs` it yields a macrotask
 * turn (setImmediate), so other requests — `/healthz` included — are served in between, and a time limit's
 * timer can fire. Every check-in also throws the signal's reason once aborted, so a timed-out or abandoned
 * analysis stops at its next step instead of running to the end.
 */
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
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yields++;
    this.sliceStart = performance.now();
    this.signal?.throwIfAborted();
  }
}
