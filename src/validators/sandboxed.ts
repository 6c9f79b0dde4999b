import type { InputValue, Validator } from '../core/validator.js';
import type { Sandbox, SandboxLimits } from '../sandbox/types.js';
import { validatorFromHeader, type ValidatorHeader } from './builtin.js';

/**
 * A validator whose predicate is JavaScript source (`o => ...` or `(o, input) => ...`) run in the
 * sandbox. Compiled here, once; a source that does not compile rejects (the config loader turns that
 * into a UsageError naming the validator).
 *
 * The predicate must return a boolean (or a promise of one). Anything else — `undefined` from a
 * forgotten `return`, a match array, a number — is an `error` outcome, not a pass or a fail by
 * truthiness: a rule that does not say yes or no has not been checked.
 */
export async function sandboxedValidator(header: ValidatorHeader, source: string, sandbox: Sandbox, limits: Partial<SandboxLimits> = {}): Promise<Validator> {
  // The validator's own limit, else the experiment's, else the sandbox default.
  const fn = await sandbox.compile(source, header.timeoutMs !== undefined ? { ...limits, timeoutMs: header.timeoutMs } : limits);
  return validatorFromHeader(header, source, async (output: string, input: InputValue) => requireBoolean(await fn(output, input)));
}

/** Throws (so the outcome is `error`) unless the predicate gave a boolean. */
export function requireBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const found = value === null ? 'null' : Array.isArray(value) ? 'an array' : value === undefined ? 'undefined' : `a ${typeof value}`;
  throw new TypeError(`predicate returned ${found}, expected a boolean`);
}
