/**
 * Sequential stopping (`stopping: sequential`): where each validator's confidence sequence decided it,
 * as a pure function of the stored tensor. The runner samples iteration-major (round j = sample j of every
 * input); a validator's evidence is read at the end of each round whose cells for it are all filled, in
 * order, and it stops at the first round where the sequence decides it against minSuccess. Because the
 * answer depends only on the tensor's complete-round prefix, a resumed run, `assay show` and a distributed
 * worker all re-derive the same decisions from the stored samples.
 */
import { Outcome } from './outcome.js';
import { sequenceBounds, sequentialVerdict, type SequentialDecision } from './sequence.js';
import type { ReliabilityTensor } from './tensor.js';
import { ArgumentError } from '../errors.js';

export interface SequentialStatus {
  decision: SequentialDecision;
  /**
   * Why it stopped, or why it has not: `lower-bound` (the sequence's lower bound, errors counted as
   * failures, reached minSuccess: pass), `upper-bound` (its upper bound, errors counted as passes, fell below
   * minSuccess: fail), `samples` (every round was run and it is still undecided), `running` (rounds remain).
   */
  reason: 'lower-bound' | 'upper-bound' | 'samples' | 'running';
  /** Complete rounds read: samples j = 0 … rounds − 1 of every input. When decided, the round it stopped after. */
  rounds: number;
  /** Outcomes over those rounds. */
  counts: { pass: number; fail: number; error: number };
  /** The sequence's bounds there: low with errors as failures, high with errors as passes (null: nothing seen). */
  bounds: { low: number; high: number } | null;
}

export interface SequentialOptions {
  minSuccess: number;
  level: number;
  /** The planned rate (config `expect`), if any. */
  expect?: number;
}

/**
 * The scan behind {@link sequentialStatus}, kept between calls so a runner can advance it as samples are
 * stored: each `advance` reads the rounds that have become complete since, in order, and stops at the
 * first that decides. Reading the same tensor in one go or sample by sample gives the same status.
 */
export class SequentialScan {
  private counts = { pass: 0, fail: 0, error: 0 };
  private rounds = 0;
  private decision: SequentialDecision = 'undecided';

  constructor(
    readonly k: number,
    readonly options: SequentialOptions,
  ) {}

  /** Reads newly complete rounds of column k (no-op once decided). */
  advance(t: ReliabilityTensor): this {
    const { k } = this;
    if (!(Number.isInteger(k) && k >= 0 && k < t.K))
      throw new ArgumentError(`sequentialStatus: validator ${k} is not a column of a tensor with K = ${t.K}`, { key: 'k' });
    while (this.decision === 'undecided' && this.rounds < t.M && t.N > 0) {
      const j = this.rounds;
      const round = { pass: 0, fail: 0, error: 0 };
      for (let i = 0; i < t.N; i++) {
        const c = t.get(i, j, k);
        if (c === Outcome.PENDING) return this;
        if (c === Outcome.PASS) round.pass++;
        else if (c === Outcome.FAIL) round.fail++;
        else round.error++;
      }
      this.counts.pass += round.pass;
      this.counts.fail += round.fail;
      this.counts.error += round.error;
      this.rounds = j + 1;
      this.decision = sequentialVerdict(this.counts, this.options.minSuccess, this.options.level, this.options.expect);
    }
    return this;
  }

  get decided(): boolean {
    return this.decision !== 'undecided';
  }

  /** The status so far; `samples` once all M rounds of a tensor with M samples were read undecided. */
  status(M: number): SequentialStatus {
    const { decision, rounds } = this;
    const counts = { ...this.counts };
    const reason = decision === 'pass' ? 'lower-bound' : decision === 'fail' ? 'upper-bound' : rounds === M ? 'samples' : 'running';
    return { decision, reason, rounds, counts, bounds: boundsWithErrors(counts, this.options.level, this.options.expect) };
  }
}

/** Sequential status of validator k from the tensor's complete-round prefix. */
export function sequentialStatus(t: ReliabilityTensor, k: number, o: SequentialOptions): SequentialStatus {
  return new SequentialScan(k, o).advance(t).status(t.M);
}

/** The sequence's lower bound with errors as failures and upper bound with errors as passes. */
export function boundsWithErrors(c: { pass: number; fail: number; error: number }, level: number, expect?: number): { low: number; high: number } | null {
  const asFail = sequenceBounds(c.pass, c.fail + c.error, level, expect);
  const asPass = sequenceBounds(c.pass + c.error, c.fail, level, expect);
  return asFail && asPass ? { low: asFail.low, high: asPass.high } : null;
}

/**
 * Which validators still need checking (the runner's stop rule): those not yet decided. The run is over
 * when none is left or every round has been run.
 */
export function undecidedValidators(t: ReliabilityTensor, options: readonly SequentialOptions[]): boolean[] {
  return options.map((o, k) => sequentialStatus(t, k, o).decision === 'undecided');
}
