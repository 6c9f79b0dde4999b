import { AssayError, ExitCode, hasMarker, setMarker } from '../errors.js';

/**
 * Riding out a lost service (the PostgreSQL store, the Redis queue) for a bounded time: one line when it is
 * lost, one when it is back, and past the bound an OutageError (exit 3) instead of a wait without end. Every
 * call that goes through `ride` is tried again, once a second, while its failure is a lost connection; a
 * failure of any other kind (a refused password, a bad query) passes through at once.
 *
 * A service can also go silent: keep the connection and answer nothing (a hung server, a network dropping
 * packets). The drivers notice that only at their own timeouts (10 s for a Redis command, a minute for a
 * query), so the outage watches every call itself: one unanswered for SILENT_MS (and, where the service can
 * be asked separately, a probe unanswered too) is a silence, said at once and counted from the call's start.
 * The bound is kept by a timer from the moment of loss, not checked at the next failure: waiting calls end
 * with the OutageError however long their driver would still wait.
 */

/** How long `assay run` and `assay worker` ride out a lost store or queue unless told otherwise. */
export const DEFAULT_OUTAGE_MS = 60_000;

/** A call unanswered this long means the service went silent (unless its probe answers: a slow query is no silence). */
export const SILENT_MS = 3000;

const OUTAGE_ERROR = Symbol.for('assay.OutageError');

/** The service stayed unreachable past the bound (or refused us): exit 3, in one line. */
export class OutageError extends AssayError {
  constructor(
    message: string,
    /** What was lost, as messages name it ("the queue at redis://…"). */
    readonly service: string,
    options?: ErrorOptions,
  ) {
    super(message, ExitCode.INTERNAL, options);
    this.name = 'OutageError';
    setMarker(this, OUTAGE_ERROR);
  }

  static override isInstance(err: unknown): err is OutageError {
    return hasMarker(err, OUTAGE_ERROR);
  }
}

/** A way to call a service: directly, or riding out its outages (Outage.ride). */
export type Ride = <T>(fn: () => Promise<T>) => Promise<T>;

export const direct: Ride = (fn) => fn();

export interface OutageOptions {
  /** Give up after the service has been unreachable this long (ms); 0 gives up at the first failure that a retry does not mend. */
  boundMs: number;
  /** One line each: lost, back, given up. */
  log?: (line: string) => void;
  /** Whether a failure is a lost connection (worth waiting for) rather than a refusal or a bug. */
  retryable: (err: unknown) => boolean;
  /** Once, when the bound is passed: the process's cue to stop (a worker exits 3). */
  onGiveUp?: (err: OutageError) => void;
  /** The failure in a few words for the lines (default: its message's first line). */
  describe?: (err: unknown) => string;
  /** Pause between tries (default 1 s). */
  retryMs?: number;
  /** A call unanswered this long is a silence (ms, default SILENT_MS). */
  silentMs?: number;
  /**
   * Whether the service answers at all, asked (on a connection of its own) once a call has waited `silentMs`:
   * true when it answered within `timeoutMs`, if only to refuse. A call may be slow (a large query) while the
   * service answers; without a probe, every call is expected within `silentMs` (Redis: assay's commands are short).
   */
  probe?: (timeoutMs: number) => Promise<boolean>;
  /** Clock and pause, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class Outage {
  /** When the service was lost in this outage (the start of the call that found it silent, or the failure); undefined while it answers. */
  private since?: number;
  private said = false;
  /** Outages ended so far: a call that was waiting through one starts afresh once it is over. */
  private ended = 0;
  private gaveUp?: OutageError;
  /** Rejected with the OutageError when the bound passes: every waiting call ends with it. */
  private readonly givenUp: Promise<never>;
  private rejectAll!: (err: OutageError) => void;
  /** The last time the service answered anything (a call, a heartbeat, a probe). */
  private lastAnswer?: number;
  /** The last failure seen in this outage, for the line that gives up. */
  private lastError?: unknown;
  private deadline?: NodeJS.Timeout;
  private probing?: Promise<boolean>;
  private readonly now: () => number;
  private readonly pause: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    /** The service as lines name it: "the queue at redis://…", "the store at postgres://…". */
    readonly what: string,
    private readonly opts: OutageOptions,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.pause = opts.sleep ?? pause;
    this.givenUp = new Promise<never>((_, reject) => (this.rejectAll = reject));
    this.givenUp.catch(() => {}); // each waiting call rethrows it; nobody need be waiting
  }

  get down(): boolean {
    return this.since !== undefined;
  }

  /** The error that ended the wait, once the bound has passed. */
  get failure(): OutageError | undefined {
    return this.gaveUp;
  }

  /**
   * Run `fn`; while it fails for a lost connection, try again once a second until it answers or the bound
   * passes. A first failure is tried again at once and silently: a pooled connection the server dropped
   * fails once and is replaced, which is no outage. A call left unanswered is watched (SILENT_MS).
   */
  async ride<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let first = true;
    let ended = this.ended;
    for (;;) {
      if (this.gaveUp) throw this.gaveUp;
      const start = this.now();
      try {
        const value = await this.watched(fn, start);
        this.back();
        return value;
      } catch (err) {
        if (this.gaveUp) throw this.gaveUp;
        if (!this.opts.retryable(err)) throw err;
        // The outage this call waited through is over (another call got an answer): this failure is a first one.
        if (ended !== this.ended) [first, ended] = [true, this.ended];
        this.lost(err, !first, start);
        if (!first) await Promise.race([this.pause(this.opts.retryMs ?? 1000, signal), this.givenUp]);
        first = false;
      }
    }
  }

  /**
   * One call, watched but not tried again (a heartbeat): unanswered for SILENT_MS it starts the outage;
   * past the bound it ends with the OutageError. Its answer or failure is the caller's to report (back, lost).
   */
  watched<T>(fn: () => Promise<T>, start = this.now()): Promise<T> {
    if (this.gaveUp) return Promise.reject(this.gaveUp);
    const silentMs = this.opts.silentMs ?? SILENT_MS;
    // With a probe, half the time waiting for the call and half for the probe: a silence is said after silentMs either way.
    const waitMs = this.opts.probe ? silentMs / 2 : silentMs;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      // After the timer, I/O first: an answer that arrived while the event loop was busy is no silence. Unref'd,
      // as the other timers here: the call's own socket keeps the process up while it waits.
      timer = setTimeout(() => setImmediate(() => void check()), waitMs).unref();
    };
    const check = async () => {
      if (done || this.gaveUp || this.said) return;
      if (this.opts.probe && (await this.probe(silentMs - waitMs))) {
        if (!done) arm(); // slow, not silent: look again later
        return;
      }
      if (!done) ignore(() => this.silent(start, silentMs));
    };
    arm();
    let call: Promise<T>;
    try {
      call = fn();
    } catch (err) {
      call = Promise.reject(err as Error);
    }
    return Promise.race([call, this.givenUp]).finally(() => {
      done = true;
      clearTimeout(timer);
    });
  }

  /** A failure seen elsewhere (a heartbeat, a client's error event): starts the outage clock, says so once, gives up past the bound. */
  lost(err: unknown, say = true, at = this.now()): void {
    if (this.gaveUp) throw this.gaveUp;
    const t = this.now();
    // Lost no earlier than the failing call's start, nor than the service's last answer.
    this.since ??= Math.max(at, this.lastAnswer ?? at);
    this.lastError = err;
    if (say) this.say(err);
    if (say && t - this.since >= this.opts.boundMs) this.expire();
  }

  /** A refusal no wait will mend (a password the server does not take): give up at once. */
  refuse(err: unknown): never {
    this.since ??= this.now();
    this.giveUp(err, `${this.what} refused us: ${this.reason(err)}`);
  }

  /** The service answered: the outage (if any) is over. */
  back(): void {
    this.lastAnswer = this.now();
    if (this.since === undefined || this.gaveUp) return;
    if (this.said) this.opts.log?.(`${this.what} is back (after ${seconds(this.now() - this.since)})`);
    this.since = undefined;
    this.said = false;
    this.lastError = undefined;
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.ended++;
  }

  /** A call started at `start` has had no answer for `silentMs`: the service went silent then. */
  private silent(start: number, silentMs: number): void {
    this.lost(new Error(`no answer within ${seconds(silentMs)}`), true, start);
  }

  /** One line for the outage, and the bound's timer from the moment of loss. */
  private say(err: unknown): void {
    if (this.said) return;
    this.said = true;
    this.opts.log?.(`lost ${this.what} (${this.reason(err)}); trying again for up to ${seconds(this.opts.boundMs)}`);
    const left = this.since! + this.opts.boundMs - this.now();
    // Unref'd: a process that has nothing left to wait for (a run interrupted meanwhile) is not held until the bound.
    if (left > 0) this.deadline = setTimeout(() => ignore(() => this.expire()), left).unref();
  }

  /** The bound has passed: give up, saying how long the service really was away. */
  private expire(): void {
    if (this.since === undefined) return;
    this.giveUp(this.lastError, `${this.what} has been unreachable for ${seconds(this.now() - this.since)} (${this.reason(this.lastError)})`);
  }

  /** Whether the service answers a probe within `ms` (one probe at a time, shared by every watched call). */
  private probe(ms: number): Promise<boolean> {
    this.probing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms).unref()));
      try {
        const answered = await Promise.race([this.opts.probe!(ms).catch(() => false), late]);
        if (answered) this.lastAnswer = this.now();
        return answered;
      } finally {
        clearTimeout(timer);
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  private reason(err: unknown): string {
    return (this.opts.describe ?? reason)(err);
  }

  private giveUp(err: unknown, message: string): never {
    if (!this.gaveUp) {
      clearTimeout(this.deadline);
      this.gaveUp = new OutageError(message, this.what, { cause: err });
      this.rejectAll(this.gaveUp);
      this.opts.onGiveUp?.(this.gaveUp);
    }
    throw this.gaveUp;
  }
}

/** Call `fn`, setting aside what it throws: an Outage records its error, and every call waiting or made later throws it. */
export function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // kept by the outage (or the callee), not lost
  }
}

/** The first line of an error, for a log line (drivers put stack-like detail below it). */
export function reason(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const msg = typeof e?.message === 'string' && e.message ? e.message.split('\n')[0] : String(err);
  return msg.replace(/\.$/, '');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(Math.round(ms / 100) / 10).toString()} s` : `${Math.round(ms / 1000)} s`;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
