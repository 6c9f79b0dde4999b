/**
 * Time in tests. A test never asserts how fast something is (benchmarks measure that); where it must show
 * that something ended *promptly* — a deadline, an abort or a kill took effect, rather than the work running
 * to its end or forever — it bounds the time by PROMPTLY_MS, and arranges for the failure to take much longer
 * (a hang, or a delay of SLOW_MS or more). A loaded machine (two test suites on two shared cores) can stall a
 * process for seconds; it cannot make a stall of this length look like a deadline that worked.
 */
export const PROMPTLY_MS = 20_000;

/** A delay that stands for "would take far too long": three times PROMPTLY_MS. */
export const SLOW_MS = 60_000;

/** How long a test waits for a child process it started (a CLI under tsx, a server) to be up: minutes' worth on a loaded machine. */
export const START_MS = 90_000;
