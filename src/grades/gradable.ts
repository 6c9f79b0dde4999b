import { decisionOfRun } from '../core/decision.js';
import type { RunRecord } from '../store/types.js';

/**
 * Why a run takes no grades, or undefined when it does. A run with `stopping: sequential` stopped when its
 * confidence sequence over the judge's verdicts decided: that stopping time depends on those verdicts, and a
 * correction by grades at it has no interval known to hold its level, so grades are refused rather than used
 * with a bound that may not hold (docs/judges.md). The run's rules are graded on a run with `stopping: fixed`.
 */
export function gradingRefusal(run: Pick<RunRecord, 'id' | 'config' | 'validators'>): string | undefined {
  if (decisionOfRun(run).stopping !== 'sequential') return undefined;
  return `run ${run.id} used stopping: sequential, which takes no grades: it stopped when its confidence sequence over the judge's verdicts decided, and a correction by people's grades at a stopping time chosen by the data has no interval known to hold its level; grade a run of the same experiment with stopping: fixed (see docs/judges.md)`;
}
