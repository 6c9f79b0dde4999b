import type { OutcomeCode } from '../core/outcome.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import type { InputValue, ValidatorMeta } from '../core/validator.js';
import type { ProviderErrorKind, TokenUsage } from '../providers/types.js';

export type RunStatus = 'running' | 'complete' | 'interrupted' | 'failed';

export interface NewRun {
  /** Experiment name from the config; runs of one name form a trend. */
  name: string;
  /** The resolved config as JSON-serialisable data (predicates as their source text). */
  config: unknown;
  /** Path of the config file it came from, if any (so --resume can reload predicates). */
  configPath?: string;
  inputs: InputValue[];
  samples: number;
  validators: ValidatorMeta[];
  systemId: string;
}

export interface RunRecord extends NewRun {
  id: string;
  status: RunStatus;
  createdAt: string; // ISO 8601
  finishedAt?: string;
  N: number;
  M: number;
  K: number;
}

/** One generation (input i, sample j) and its K validator outcomes: the unit written atomically. */
export interface SampleRecord {
  i: number;
  j: number;
  /** The output text, or undefined when the generation itself failed after retries. */
  output?: string;
  /** Set when the generation failed (all K cells are then ERROR). */
  generationError?: string;
  /** The provider error's kind when the generation failed (for stop rules; not every store keeps it). */
  generationErrorKind?: ProviderErrorKind;
  /** One per validator, in validator order. */
  outcomes: OutcomeCode[];
  /** Per-validator error message (undefined where the outcome is not ERROR). */
  errors?: (string | undefined)[];
  /** Per-validator verifier reasons, for verifier columns (undefined elsewhere). */
  reasons?: (string[] | undefined)[];
  latencyMs: number;
  /** Provider calls made for this sample, including retried ones. */
  attempts: number;
  usage?: TokenUsage;
  finishedAt?: string;
}

export interface RunFilter {
  name?: string;
  limit?: number;
}

/**
 * Persistence of runs, behind one interface (SQLite by default). Every adapter passes the shared
 * contract suite in store/contract.case.ts. Writes of one sample are atomic: after a crash a sample
 * is either fully stored or absent, so resume never duplicates or loses a completed cell.
 */
export interface Store {
  createRun(run: NewRun): Promise<RunRecord>;
  /** Insert one sample; storing the same (i, j) twice is an error (no duplicates). */
  recordSample(runId: string, sample: SampleRecord): Promise<void>;
  setStatus(runId: string, status: RunStatus): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /** The run's tensor; cells of samples not yet stored are PENDING. */
  loadTensor(runId: string): Promise<ReliabilityTensor>;
  getSample(runId: string, i: number, j: number): Promise<SampleRecord | undefined>;
  /** All stored samples of a run, ordered by (i, j). */
  listSamples(runId: string): Promise<SampleRecord[]>;
  close(): Promise<void>;
}
