/**
 * Stop rules: reasons for a run to end before its N × M samples are done, other than Ctrl-C — a decided
 * verdict (sequential stopping), a budget spent, calls that keep failing the same way. Each rule watches
 * the samples as they are stored and says when to stop; the scheduler stops starting new samples, lets
 * the ones in flight finish and be stored, and ends the run with the rule's status. Rules see the stored
 * samples of earlier processes first (resume), so a decision never depends on which process made it.
 */
import type { ReliabilityTensor } from '../core/tensor.js';
import type { RunStatus, SampleRecord } from '../store/types.js';

export interface StopDecision {
  /** The rule that stopped the run, e.g. "sequential", "max-cost", "fail-fast". */
  rule: string;
  /**
   * `complete`: the question is answered (nothing left worth sampling). `interrupted`: stopped short of an
   * answer; `assay run --resume` can continue it (a budget raised, an endpoint fixed).
   */
  status: Extract<RunStatus, 'complete' | 'interrupted'>;
  /** One line for the user: what happened and what to do. */
  message: string;
  /**
   * What stopped the run, without the CLI's advice (e.g. "5 samples in a row failed the same way (connection):
   * …"): for callers that say what to do their own way (assay/vitest, where there is no --resume).
   */
  cause?: string;
  /**
   * Abort the samples in flight instead of waiting for them (they are not stored; a resume runs them): for a
   * rule that has seen enough to know they will fail the same way, so nobody waits out their retries.
   */
  cancelInFlight?: boolean;
  /** The exit code the CLI ends with (default: as for `status`, e.g. 3 for an endpoint that cannot be used). */
  exitCode?: number;
}

export interface StopRule {
  readonly name: string;
  /**
   * Called once per stored sample, in the order stored; `resumed` is true for samples stored by an earlier
   * process (seen before any new one). `tensor` already holds the sample's cells.
   */
  observe(sample: SampleRecord, tensor: ReliabilityTensor, resumed: boolean): void;
  /** After each observed sample: a decision stops the run. */
  check(): StopDecision | undefined;
  /** True when column k needs no further checks (its cells of later samples stay PENDING). Optional. */
  settled?(k: number): boolean;
  /** True when `observe` ignores resumed samples: a queued resume need not read them all for this rule. */
  readonly ignoresResumed?: boolean;
}

/** The first decision of any rule, in rule order. */
export function firstDecision(rules: readonly StopRule[]): StopDecision | undefined {
  for (const r of rules) {
    const d = r.check();
    if (d) return d;
  }
  return undefined;
}

/** Column k is settled when any rule says so. */
export function settledBy(rules: readonly StopRule[]): ((k: number) => boolean) | undefined {
  const withSettled = rules.filter((r) => r.settled);
  if (withSettled.length === 0) return undefined;
  return (k) => withSettled.some((r) => r.settled!(k));
}
