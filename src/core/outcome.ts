/**
 * Outcome of one validator on one output: the cell value of the reliability tensor R[i][j][k].
 * Codes are small integers so the tensor fits in a Uint8Array. PENDING marks a cell not yet run
 * (a run that was interrupted, or is still going); it is never counted in any rate.
 */
export const Outcome = {
  PENDING: 0,
  PASS: 1,
  FAIL: 2,
  /** Infrastructure error (timeout, 429, 5xx, a predicate that threw): excluded from success rates. */
  ERROR: 3,
} as const;

export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome];
export type OutcomeName = 'pass' | 'fail' | 'error';

export function outcomeName(code: OutcomeCode): OutcomeName | 'pending' {
  switch (code) {
    case Outcome.PASS:
      return 'pass';
    case Outcome.FAIL:
      return 'fail';
    case Outcome.ERROR:
      return 'error';
    default:
      return 'pending';
  }
}

export function outcomeCode(name: OutcomeName): OutcomeCode {
  return name === 'pass' ? Outcome.PASS : name === 'fail' ? Outcome.FAIL : Outcome.ERROR;
}
