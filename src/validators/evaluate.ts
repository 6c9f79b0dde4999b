import type { Trajectory } from '../core/trajectory.js';
import type { CheckResult, InputValue, Validator } from '../core/validator.js';
import { SandboxError } from '../sandbox/errors.js';
import { isBuiltinPredicate } from './builtin.js';
import { callInterruptibly, InterruptedError } from './interruptible.js';
import { enforcesOwnTimeLimit, PredicateResultError, requireBoolean } from './sandboxed.js';
import { TrajectoryCheckError } from './trajectory-checks.js';
import { thrownMessage } from '../errors.js';

export interface EvaluateOptions {
  /** Time limit for this evaluation in ms; the validator's own `timeoutMs` takes precedence. */
  timeoutMs?: number;
  /** Run cancellation (Ctrl-C); an aborted evaluation is an `error`. */
  signal?: AbortSignal;
  /** Overall bound for a sandboxed predicate, waiting included; default `SANDBOX_WAIT_BOUND_MS`. */
  sandboxWaitMs?: number;
  /** The agent's steps, when the output is a trajectory: predicates get it as their third argument, judges see it. */
  trajectory?: Trajectory;
}

export const DEFAULT_VALIDATOR_TIMEOUT_MS = 5000;
/** Verifiers call an LLM judge: the default per-call limit of a provider. */
export const DEFAULT_VERIFIER_TIMEOUT_MS = 60_000;
/**
 * A sandboxed predicate's time limit is enforced inside the sandbox from when it starts running; before
 * that it may wait for its worker behind other calls (its own earlier ones, or another predicate's on a
 * shared worker), which is not its fault. Only this overall bound, 10 minutes from the call (or the
 * predicate's own limit if longer), ends such a wait as an `error`, so a sandbox that never answers cannot
 * hang a run.
 */
export const SANDBOX_WAIT_BOUND_MS = 10 * 60_000;

/**
 * Whether an error is the rule itself throwing on this output (a JSON.parse of non-JSON), as opposed to the
 * rule being broken (a non-boolean answer) or the machinery failing (a sandbox timeout, memory limit, abort).
 * Only the first may count as a failure, and only with `onError: 'fail'`.
 */
function thrownByRule(err: unknown): boolean {
  if (SandboxError.isInstance(err)) return err.kind === 'thrown';
  return !PredicateResultError.isInstance(err) && !TrajectoryCheckError.isInstance(err);
}

/**
 * Checks one output with one validator. Uses `evaluate` (verifiers) when present, else `predicate`.
 * Never throws and never turns a problem into a `fail`: a throw, a rejection, a non-boolean result,
 * a timeout or an abort is `{ outcome: 'error', error }` — except that a predicate with `onError: 'fail'`
 * that throws (or rejects) fails the output, with the thrown message as its reason. Timeouts, aborts,
 * sandbox limits and non-boolean results stay errors.
 */
export async function evaluateValidator(v: Validator, output: string, input: InputValue, options: EvaluateOptions = {}): Promise<CheckResult> {
  // A sandboxed predicate's own limit is enforced in the sandbox, from when it starts running.
  const ownLimit = !v.evaluate && enforcesOwnTimeLimit(v.predicate);
  const timeoutMs = v.timeoutMs ?? options.timeoutMs ?? (v.kind === 'verifier' ? DEFAULT_VERIFIER_TIMEOUT_MS : DEFAULT_VALIDATOR_TIMEOUT_MS);
  if (options.signal?.aborted) return { outcome: 'error', error: `validator ${v.name}: aborted` };
  const message = (err: unknown) => thrownMessage(err);
  const failed = (err: unknown): CheckResult =>
    !v.evaluate && v.onError === 'fail' && thrownByRule(err)
      ? { outcome: 'fail', reasons: [`the predicate threw (onError: fail): ${message(err)}`] }
      : { outcome: 'error', error: `validator ${v.name}: ${message(err)}` };
  const verdict = (value: unknown): CheckResult => (requireBoolean(value) ? { outcome: 'pass' } : { outcome: 'fail' });

  if (!v.evaluate) {
    // Synchronous predicates (built-in checks, most functions) need no timer: they are done already.
    // A user's function runs so that Ctrl-C can interrupt it even if it never returns (interruptible.ts).
    let result: unknown;
    try {
      const predicate = v.predicate;
      const t = options.trajectory;
      result = ownLimit || isBuiltinPredicate(predicate) ? predicate(output, input, t) : callInterruptibly(() => predicate(output, input, t));
      if (!isThenable(result)) return verdict(result);
    } catch (err) {
      // Answer once the Ctrl-C has been handed on: by then the run's SIGINT handler has aborted the run, so this
      // cut-short check is dropped with its sample rather than stored as an error (see run/sample.ts).
      if (InterruptedError.isInstance(err)) return err.handled.then(() => failed(err));
      return failed(err);
    }
    const work = Promise.resolve(result).then(verdict).catch(failed);
    if (!ownLimit) return race(work, v.name, timeoutMs, options.signal);
    const bound = Math.max(v.timeoutMs ?? 0, options.sandboxWaitMs ?? SANDBOX_WAIT_BOUND_MS);
    return race(work, v.name, bound, options.signal, undefined, 'got no answer from the sandbox within');
  }

  // Verifiers get a signal that fires on the deadline as well as on the run's cancellation.
  const deadline = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const evaluate = v.evaluate;
  const work = (async () => normalise(await evaluate(output, input, signal, options.trajectory)))().catch(failed);
  return race(work, v.name, timeoutMs, options.signal, () => deadline.abort());
}

function race(
  work: Promise<CheckResult>,
  name: string,
  timeoutMs: number,
  signal?: AbortSignal,
  onTimeout?: () => void,
  what = 'timed out after',
): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => {
      onTimeout?.();
      resolve({ outcome: 'error', error: `validator ${name}: ${what} ${timeoutMs} ms` });
    }, timeoutMs);
    onAbort = () => resolve({ outcome: 'error', error: `validator ${name}: aborted` });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, stop]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof x === 'object' && x !== null && typeof (x as { then?: unknown }).then === 'function';
}

/** Guards against an `evaluate` that returns something other than a CheckResult. */
function normalise(r: CheckResult): CheckResult {
  if (r && (r.outcome === 'pass' || r.outcome === 'fail' || r.outcome === 'error')) return r;
  return { outcome: 'error', error: `evaluate returned ${JSON.stringify(r)}, expected { outcome: 'pass' | 'fail' | 'error' }` };
}
