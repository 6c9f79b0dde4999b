/**
 * Fail fast: when generation calls keep failing the same way — connection refused, 401/403/404, a model that
 * does not exist, an answer the config cannot read, a system that never answers — the run stops after `maxErrors` such samples in a row
 * instead of retrying every remaining sample (with 100 samples against a closed port: ~49 s of backoff for
 * one piece of news). The samples in flight are cancelled (a resume runs them); the run is left
 * `interrupted`, so `assay run --resume` finishes it once the cause is fixed; the CLI exits 3.
 */
import type { ReliabilityTensor } from '../core/tensor.js';
import { ArgumentError, ExitCode } from '../errors.js';
import type { ProviderErrorKind } from '../providers/types.js';
import type { SampleRecord } from '../store/types.js';
import { errorKey } from './error-groups.js';
import type { StopDecision, StopRule } from './stop.js';

/** Samples failing the same way, in a row, that stop a run unless told otherwise (`--max-errors`). */
export const DEFAULT_MAX_ERRORS = 5;

/**
 * Failures that say something about the endpoint or the config rather than about one call: they repeat.
 * Rate limits are left out: they come and go with load, and backoff is the answer to them. Timeouts count:
 * each costs the whole per-call limit and is not retried (providers/retry.ts), and a system that hung on a
 * handful of samples in a row will hang on the rest (a hanging system met the limit on every sample, issue 30).
 */
const REPEATING: ReadonlySet<ProviderErrorKind> = new Set<ProviderErrorKind>(['connection', 'client', 'server', 'invalid_response', 'timeout']);

/** The part of a generation error that says what failed, without the attempt count the runner puts first. */
function failureKey(message: string): string {
  return errorKey(message.replace(/^generation failed after \d+ attempt\(s\): /, ''));
}

export class FailFastRule implements StopRule {
  readonly name = 'fail-fast';
  readonly ignoresResumed = true;
  private streak = 0;
  private key: string | undefined;
  private first: SampleRecord | undefined;

  /** `maxErrors` ≥ 1: samples in a row failing the same way that stop the run. */
  constructor(readonly maxErrors: number = DEFAULT_MAX_ERRORS) {
    if (!Number.isInteger(maxErrors) || maxErrors < 1)
      throw new ArgumentError(`maxErrors: expected a whole number ≥ 1, found ${maxErrors}`, { key: 'maxErrors' });
  }

  observe(s: SampleRecord, _tensor: ReliabilityTensor, resumed: boolean): void {
    // An earlier process's failures say nothing about the endpoint now (a resume usually follows a fix).
    if (resumed) return;
    const kind = s.generationErrorKind;
    if (s.generationError === undefined || kind === undefined || !REPEATING.has(kind)) {
      this.streak = 0;
      this.key = undefined;
      return;
    }
    const key = `${kind}\u0000${failureKey(s.generationError)}`;
    if (key === this.key) this.streak++;
    else {
      this.key = key;
      this.streak = 1;
      this.first = s;
    }
  }

  check(): StopDecision | undefined {
    if (this.streak < this.maxErrors || !this.first) return undefined;
    const why = this.first.generationError!.replace(/^generation failed after \d+ attempt\(s\): /, '');
    const cause = `${this.streak} samples in a row failed the same way (${this.first.generationErrorKind}): ${why}`;
    return {
      rule: this.name,
      status: 'interrupted',
      cancelInFlight: true,
      exitCode: ExitCode.INTERNAL,
      cause,
      message: `stopped early: ${cause}. Fix the cause${this.first.generationErrorKind === 'timeout' ? ' (or, if the system needs longer, raise timeoutMs, the per-call limit, in the config)' : ''}, then finish the run with --resume (and --retry-errors to run these failed samples again; --max-errors N changes how many failures in a row stop a run; 0 never stops)`,
    };
  }
}
