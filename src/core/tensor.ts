import { Outcome, type OutcomeCode } from './outcome.js';
import { ArgumentError } from '../errors.js';

/**
 * The reliability tensor R[i][j][k] (white paper §3.6.1): input i, output iteration (sample) j,
 * validator k. One contiguous Uint8Array of outcome codes, row-major in (i, j, k).
 * This is the one representation that flows from runner to store to report to dashboard.
 */
export class ReliabilityTensor {
  readonly cells: Uint8Array;

  constructor(
    /** number of inputs (I in the paper) */
    readonly N: number,
    /** samples per input (J in the paper) */
    readonly M: number,
    /** number of validators (and verifiers) */
    readonly K: number,
    cells?: Uint8Array,
  ) {
    if (!Number.isInteger(N) || !Number.isInteger(M) || !Number.isInteger(K) || N < 0 || M < 0 || K < 0) {
      throw new ArgumentError(`tensor shape must be non-negative integers, got ${N}×${M}×${K}`, { key: 'shape' });
    }
    const size = N * M * K;
    if (cells && cells.length !== size) {
      throw new ArgumentError(`tensor of shape ${N}×${M}×${K} needs ${size} cells, got ${cells.length}`, { key: 'cells' });
    }
    this.cells = cells ?? new Uint8Array(size);
  }

  index(i: number, j: number, k: number): number {
    return (i * this.M + j) * this.K + k;
  }

  get(i: number, j: number, k: number): OutcomeCode {
    return this.cells[this.index(i, j, k)] as OutcomeCode;
  }

  set(i: number, j: number, k: number, code: OutcomeCode): void {
    this.cells[this.index(i, j, k)] = code;
  }

  /** True when every validator cell of sample (i, j) has been filled. */
  isSampleComplete(i: number, j: number): boolean {
    const base = this.index(i, j, 0);
    for (let k = 0; k < this.K; k++) if (this.cells[base + k] === Outcome.PENDING) return false;
    return true;
  }
}
