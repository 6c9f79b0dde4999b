import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';
import type { Trajectory } from '../core/trajectory.js';
import type { InputValue, Predicate, Validator } from '../core/validator.js';
import type { Sandbox, SandboxLimits } from '../sandbox/types.js';
import { validatorFromHeader, type ValidatorHeader } from './builtin.js';

/**
 * A validator whose predicate is JavaScript source (`o => ...`, `(o, input) => ...` or, for an agent, `(o, input, t) => ...`) run in the
 * sandbox. Compiled here, once; a source that does not compile rejects (the config loader turns that
 * into a UsageError naming the validator).
 *
 * The predicate must return a boolean (or a promise of one). Anything else — `undefined` from a
 * forgotten `return`, a match array, a number — is an `error` outcome, not a pass or a fail by
 * truthiness: a rule that does not say yes or no has not been checked.
 *
 * Its time limit is enforced by the sandbox, measured from when the predicate starts running; time spent
 * waiting for a sandbox worker behind other calls does not count (see `SANDBOX_WAIT_BOUND_MS`).
 */
export async function sandboxedValidator(header: ValidatorHeader, source: string, sandbox: Sandbox, limits: Partial<SandboxLimits> = {}): Promise<Validator> {
  // The validator's own limit, else the experiment's, else the sandbox default.
  const fn = await sandbox.compile(source, header.timeoutMs !== undefined ? { ...limits, timeoutMs: header.timeoutMs } : limits);
  // An agent's steps are the third argument (`(o, input, t) => …`); a text output passes two, as it always did.
  const predicate = async (output: string, input: InputValue, trajectory?: Trajectory) =>
    requireBoolean(await (trajectory ? fn(output, input, trajectory) : fn(output, input)));
  selfTimed.add(predicate);
  return validatorFromHeader(header, source, predicate);
}

/** Predicates whose time limit the sandbox enforces (keyed by function, so copies of a Validator keep it). */
const selfTimed = new WeakSet<Predicate>();

/** Whether the predicate's own time limit is enforced where it runs (a sandboxed predicate). */
export function enforcesOwnTimeLimit(predicate: Predicate): boolean {
  return selfTimed.has(predicate);
}

const PREDICATE_RESULT_ERROR = Symbol.for('assay.PredicateResultError');

/** A predicate that answered something other than a boolean: the rule is broken, not the output (never `onError: fail`). */
export class PredicateResultError extends AssayError {
  constructor(message: string) {
    // The user's rule is at fault: exit 2 should one reach the top (it is recorded as an `error` outcome).
    super(message, ExitCode.USAGE);
    this.name = 'PredicateResultError';
    setMarker(this, PREDICATE_RESULT_ERROR);
  }

  static override isInstance(err: unknown): err is PredicateResultError {
    return hasMarker(err, PREDICATE_RESULT_ERROR);
  }
}

/** Throws (so the outcome is `error`) unless the predicate gave a boolean. */
export function requireBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value instanceof Boolean) throw new PredicateResultError('predicate returned a Boolean object (new Boolean), expected a primitive boolean');
  const found =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : value === undefined
          ? 'undefined'
          : typeof value === 'object'
            ? 'an object'
            : `a ${typeof value}`;
  throw new PredicateResultError(`predicate returned ${found}, expected a boolean`);
}
