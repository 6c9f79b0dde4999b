import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/** Why a sandboxed evaluation did not produce a value. */
export type SandboxErrorKind =
  | 'compile' // the source does not parse, or does not evaluate to a function
  | 'thrown' // the function threw (or its promise rejected)
  | 'timeout' // the wall-clock deadline passed (infinite loop)
  | 'memory' // the runtime's heap limit was reached
  | 'stack' // the stack size limit was reached (deep recursion)
  | 'result' // the result could not be copied out (not JSON-serialisable, or a promise that never settles)
  | 'argument' // an argument could not be copied in as JSON
  | 'crashed' // the sandbox's worker kept dying with no call to blame (it could not start, or was killed): not the predicate's doing
  | 'disposed'; // the sandbox was disposed

const SANDBOX_ERROR = Symbol.for('assay.SandboxError');

/** Every rejection of a SandboxedFunction is a SandboxError, so callers can record an `error` outcome. */
export class SandboxError extends AssayError {
  constructor(
    readonly kind: SandboxErrorKind,
    message: string,
  ) {
    // Reaching the top (not recorded as an `error` outcome) means assay misused its sandbox: internal.
    super(message, ExitCode.INTERNAL);
    this.name = 'SandboxError';
    setMarker(this, SANDBOX_ERROR);
  }

  static override isInstance(err: unknown): err is SandboxError {
    return hasMarker(err, SANDBOX_ERROR);
  }
}
