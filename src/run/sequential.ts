/**
 * `stopping: sequential` as a stop rule: each validator stops being checked once its confidence sequence
 * decides it against minSuccess, and the run ends when every validator is decided (or every sample is run).
 * The decisions come from core/stopping.ts, a pure function of the stored tensor's complete-round prefix:
 * a resumed run, `assay show` and any worker that reads the same samples re-derive the same ones.
 */
import { floorUnderSequential, perInputWithSequential } from '../core/per-input.js';
import { SequentialScan } from '../core/stopping.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { ValidatorMeta } from '../core/validator.js';
import type { SampleRecord } from '../store/types.js';
import type { StopDecision, StopRule } from './stop.js';
import { ArgumentError } from '../errors.js';
import { maxOf } from '../core/arrays.js';

export class SequentialStopRule implements StopRule {
  readonly name = 'sequential';
  private readonly scans: SequentialScan[];
  private tensor: ReliabilityTensor | undefined;

  /** `validators`: the run's K columns (minSuccess, expect); `level`: the run's confidence level. */
  constructor(validators: readonly (Pick<ValidatorMeta, 'minSuccess' | 'expect'> & Partial<Pick<ValidatorMeta, 'name' | 'perInput'>>)[], level: number) {
    // Per-input floors are exact tests over a number of samples fixed in advance: stopping on the data voids them.
    const floored = floorUnderSequential('sequential', validators);
    if (floored !== undefined) {
      const name = validators[floored].name;
      throw new ArgumentError(perInputWithSequential(name !== undefined ? `validator ${JSON.stringify(name)}` : undefined), { key: 'perInput' });
    }
    this.scans = validators.map((v, k) => new SequentialScan(k, { minSuccess: v.minSuccess, level, ...(v.expect !== undefined ? { expect: v.expect } : {}) }));
  }

  observe(_sample: SampleRecord, tensor: ReliabilityTensor): void {
    this.tensor = tensor;
    for (const scan of this.scans) scan.advance(tensor);
  }

  check(): StopDecision | undefined {
    if (!this.tensor || this.scans.length === 0 || !this.scans.every((s) => s.decided)) return undefined;
    const rounds = maxOf(this.scans.map((s) => s.status(this.tensor!.M).rounds));
    return {
      rule: this.name,
      status: 'complete',
      message: `every validator was decided by its confidence sequence after ${rounds} of ${this.tensor.M} samples per input`,
    };
  }

  settled(k: number): boolean {
    return this.scans[k]?.decided ?? false;
  }
}
