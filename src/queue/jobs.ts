import type { JobsOptions } from 'bullmq';
import type { OutcomeCode } from '../core/outcome.js';
import type { ProviderErrorKind, TokenUsage } from '../providers/types.js';

/** One BullMQ queue carries the sample jobs of every run; any worker takes any run's jobs. */
export const QUEUE_NAME = 'samples';

/** A sample job: run sample (i, j) of a stored run. Everything else the worker reads from the store. */
export interface SampleJob {
  runId: string;
  i: number;
  j: number;
  /** The run's samples per input (M): the sample's place on the run board is i × M + j. */
  m: number;
  /** Queued again after Redis lost the run's jobs: the sample may be stored already, or in flight on a worker. */
  again?: true;
}

/** One job per (run, i, j): queuing a sample that is already queued is a no-op (BullMQ ids are unique; ':' is reserved). */
export function sampleJobId(runId: string, i: number, j: number): string {
  return `${runId}_${i}_${j}`;
}

/**
 * A job whose processor throws (the store unreachable, Redis gone) is retried with backoff; a provider
 * error is not a throw (it is an ERROR cell). A worker that dies holding a job loses its lock; another
 * worker's stalled-job check puts the job back (maxStalledCount in worker.ts). Finished jobs are removed
 * at once: a stored sample is in the store, a failed one is counted on the run board with its first error
 * (board.ts), and either way the same job id can be queued again by a resume.
 */
export const SAMPLE_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
};

/** What a finished job returns (and the run board's stream carries to a process watching the run): the sample without its text. */
export interface SampleJobResult {
  i: number;
  j: number;
  /** stored: by this job; theirs: found stored (a retried job, a second coordinator); skipped: the run was stopped. */
  by: 'stored' | 'theirs' | 'skipped';
  outcomes?: OutcomeCode[];
  attempts?: number;
  latencyMs?: number;
  usage?: TokenUsage;
  generationError?: string;
  generationErrorKind?: ProviderErrorKind;
}
