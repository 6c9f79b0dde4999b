import vm from 'node:vm';
import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/**
 * Calls user code that runs on the main thread (a predicate written as a real function in assay.config.ts)
 * so that Ctrl-C still works while it runs. A synchronous function that loops blocks the event loop, and with
 * it the run's SIGINT handler: Ctrl-C did nothing. Run through a vm script with `breakOnSigint`, the function
 * is interrupted by SIGINT instead; the signal is then raised again for the run's handler, which stops the
 * run as after any Ctrl-C. (Node consumes the signal that interrupted the script.)
 *
 * Cost: Node arms a SIGINT watchdog (a thread) per call, ≈ 25–80 µs, so it is paid only where it is needed:
 * while some SIGINT listener is installed (`assay run` installs one). Without one, Ctrl-C's default action
 * ends the process even while the loop is blocked. Built-in checks (linear-time) and sandboxed predicates
 * (their own worker, their own deadline) never go through here.
 */
// The function to call goes through a global slot, not this module's closure: a TypeScript config loads
// assay a second time (tsx imports it in its own module graph), and both copies must call their own function.
const SLOT = Symbol.for('assay.interruptibleCall');
const script = new vm.Script(`globalThis[Symbol.for('assay.interruptibleCall')]()`, { filename: 'assay-interruptible-call.js' });
const slots = globalThis as Record<symbol, unknown>;
/** From an interruption until the run's SIGINT listeners have run: no more user code starts meanwhile. */
let interrupted: Promise<void> | undefined;

/**
 * Hands the Ctrl-C on to whoever listens (the run stops; without a listener the process ends, as on any
 * Ctrl-C). Raised from the next check phase, once Node has put its own SIGINT handling back after the script;
 * the listeners run in the following poll phase, and the promise resolves after them.
 */
function handOn(): Promise<void> {
  return new Promise<void>((resolve) =>
    setImmediate(() => {
      process.kill(process.pid, 'SIGINT');
      setImmediate(() => {
        interrupted = undefined;
        resolve();
      });
    }),
  );
}

const INTERRUPTED_ERROR = Symbol.for('assay.InterruptedError');

/** A user's predicate cut short by Ctrl-C (exit 130 should it reach the top; evaluate.ts waits for `handled`). */
export class InterruptedError extends AssayError {
  constructor(
    /** Resolves once the signal has been handed on and its listeners have run. */
    readonly handled: Promise<void>,
  ) {
    super('interrupted (Ctrl-C)', ExitCode.INTERRUPTED);
    this.name = 'InterruptedError';
    setMarker(this, INTERRUPTED_ERROR);
  }

  static override isInstance(err: unknown): err is InterruptedError {
    return hasMarker(err, INTERRUPTED_ERROR);
  }
}

/**
 * Calls `f` (synchronously). Throws InterruptedError when Ctrl-C interrupts it — and, until the event loop has
 * turned once, for every further call without running it: evaluations already queued behind it must not
 * start another endless loop before the run's SIGINT handler has seen the signal.
 */
export function callInterruptibly<T>(f: () => T): T {
  if (interrupted) throw new InterruptedError(interrupted);
  if (process.listenerCount('SIGINT') === 0) return f();
  const outer = slots[SLOT];
  slots[SLOT] = f;
  try {
    return script.runInThisContext({ breakOnSigint: true }) as T;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
      interrupted = handOn();
      throw new InterruptedError(interrupted);
    }
    throw err;
  } finally {
    slots[SLOT] = outer;
  }
}
