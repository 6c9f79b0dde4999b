/** Why a sandboxed evaluation did not produce a value. */
export type SandboxErrorKind =
  | 'compile' // the source does not parse, or does not evaluate to a function
  | 'thrown' // the function threw (or its promise rejected)
  | 'timeout' // the wall-clock deadline passed (infinite loop)
  | 'memory' // the runtime's heap limit was reached
  | 'stack' // the stack size limit was reached (deep recursion)
  | 'result' // the result could not be copied out (not JSON-serialisable, or a promise that never settles)
  | 'argument' // an argument could not be copied in as JSON
  | 'disposed'; // the sandbox was disposed

/** Every rejection of a SandboxedFunction is a SandboxError, so callers can record an `error` outcome. */
export class SandboxError extends Error {
  constructor(
    readonly kind: SandboxErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
