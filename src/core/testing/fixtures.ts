import { Outcome, type OutcomeCode } from '../outcome.js';
import { ReliabilityTensor } from '../tensor.js';

const CODE: Record<string, OutcomeCode> = { P: Outcome.PASS, F: Outcome.FAIL, E: Outcome.ERROR, _: Outcome.PENDING };

/** Build a tensor from rows of strings: rows[i][j] is a string of K letters P, F, E, _ (pending). */
export function tensorOf(rows: string[][]): ReliabilityTensor {
  const N = rows.length;
  const M = N ? rows[0].length : 0;
  const K = M ? rows[0][0].length : 0;
  const t = new ReliabilityTensor(N, M, K);
  rows.forEach((row, i) => row.forEach((sample, j) => [...sample].forEach((c, k) => t.set(i, j, k, CODE[c]))));
  return t;
}

/**
 * The hand-built 2×3×2 tensor of the views, aggregate and summarize tests:
 *   input 0: j0 [P, P]  j1 [P, F]  j2 [E, P]
 *   input 1: j0 [F, P]  j1 [P, F]  j2 [P, _]
 */
export const HAND = (): ReliabilityTensor =>
  tensorOf([
    ['PP', 'PF', 'EP'],
    ['FP', 'PF', 'P_'],
  ]);
